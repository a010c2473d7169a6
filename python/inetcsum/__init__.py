"""inetcsum: the Internet checksum (RFC 1071), fast and exact, and every protocol checksum built on
it, from the inetcsum C library.

    import inetcsum
    inetcsum.checksum(bytes.fromhex("4500003044224000800600008c7c19acae241e2b"))   # 0x442e
    for check in inetcsum.verify(frame):          # every checksum in an Ethernet frame
        print(check.layer, check.status, check)   # stored, expected in hex (expected None: unknowable)

Conventions:

- 16-bit values (checksums, sums, seeds, fields given to update16) are as the bytes read in
  network order, the way Wireshark and scapy show them: ``checksum(b) == scapy.utils.checksum(b)``.
- partial(), combine(), pseudo_ipv4() ... return the ones'-complement sum folded to 16 bits, not
  complemented; any of them (or any 32-bit value) can seed the next.  checksum() is its complement.
- Data is any object with the buffer protocol (bytes, bytearray, memoryview, array, mmap, numpy
  arrays), C-contiguous, read in place without a copy; functions that write (fill, offload,
  l4_fill, copy_partial, complete_partial) need a writable one.  The GIL is released while a call
  works on NOGIL_BYTES bytes or more, so threads summing large buffers run in parallel.
- Errors: TypeError for a wrong type (a str, a read-only buffer where one is written),
  ValueError for a wrong value (NonContiguousError, also a BufferError, for a strided buffer).
- Every function is thread-safe; set_impl() applies to the whole process.
"""

from ._inetcsum import (
    MAX_CHECKS,
    MAX_DEPTH,
    NOGIL_BYTES,
    NonContiguousError,
    _register,
    checksum,
    combine,
    complete_partial,
    copy_partial,
    crc32c,
    crc32c_impl_name,
    crc32c_impls,
    crc32c_set_impl,
    fill,
    fold,
    impl_name,
    impl_name_at,
    impls,
    impls_built,
    ipv4_header,
    l4_fill,
    l4_verify,
    offload,
    partial,
    pseudo_ipv4,
    pseudo_ipv6,
    set_impl,
    subtract,
    update,
    update16,
    update32,
    verify,
    version,
)
from ._types import Check, CheckFlag, FrameFlag, Layer, Link, Offload, Report, Status, Verdict

_register(Check, Verdict, Report, Layer, Status, CheckFlag, FrameFlag, Offload)
del _register

from .capture import (  # noqa: E402 (after the types it uses are registered)
    Capture,
    CaptureCheck,
    CaptureWriter,
    Cut,
    FixResult,
    Frame,
    Progress,
    Summary,
    Undecoded,
    fix_capture,
)
from .gso import Coalescer, GsoType, VnetFlag, VnetHeader, segment  # noqa: E402

__version__ = version()

__all__ = [
    # sums
    "checksum",
    "partial",
    "fold",
    "combine",
    "subtract",
    "copy_partial",
    "crc32c",
    "update16",
    "update32",
    "update",
    # protocols
    "pseudo_ipv4",
    "pseudo_ipv6",
    "ipv4_header",
    "l4_verify",
    "l4_fill",
    # packets
    "verify",
    "fill",
    "offload",
    "complete_partial",
    # segmentation offload
    "segment",
    "Coalescer",
    "VnetHeader",
    "VnetFlag",
    "GsoType",
    # captures
    "Capture",
    "CaptureWriter",
    "Frame",
    "Cut",
    "CaptureCheck",
    "Undecoded",
    "Summary",
    "fix_capture",
    "FixResult",
    "Progress",
    # kernels
    "impl_name",
    "impl_name_at",
    "impls",
    "impls_built",
    "set_impl",
    "crc32c_impl_name",
    "crc32c_impls",
    "crc32c_set_impl",
    "version",
    # types and constants
    "Check",
    "CheckFlag",
    "FrameFlag",
    "Layer",
    "Link",
    "Offload",
    "Report",
    "Status",
    "Verdict",
    "NonContiguousError",
    "NOGIL_BYTES",
    "MAX_CHECKS",
    "MAX_DEPTH",
]
