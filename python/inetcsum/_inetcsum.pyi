# Type stubs of the C extension (python/ext/).  Each function's docstring, in the extension, says
# what it does; the conventions are in inetcsum/__init__.py.
from ipaddress import IPv4Address, IPv6Address
import os
from typing import Any, Callable, Iterable, List, Optional, Sequence, Tuple, Type, Union, overload

from _typeshed import ReadableBuffer, WriteableBuffer

from ._types import Check, CheckFlag, FrameFlag, Layer, Link, Offload, Report, Status, Verdict

_Address4 = Union[ReadableBuffer, str, IPv4Address]
_Address6 = Union[ReadableBuffer, str, IPv6Address]

NOGIL_BYTES: int
MAX_CHECKS: int
MAX_DEPTH: int

class NonContiguousError(ValueError, BufferError): ...

# sums
def checksum(data: ReadableBuffer, /) -> int: ...
def partial(data: ReadableBuffer, seed: int = 0) -> int: ...
def fold(sum: int, /) -> int: ...
def combine(sum1: int, sum2: int, offset: int = 0) -> int: ...
def subtract(sum1: int, sum2: int, offset: int = 0) -> int: ...
def copy_partial(dst: WriteableBuffer, src: ReadableBuffer, seed: int = 0) -> int: ...
def crc32c(data: ReadableBuffer, crc: int = 0) -> int: ...
def update16(check: int, old: int, new: int, /) -> int: ...
def update32(check: int, old: int, new: int, /) -> int: ...
def update(check: int, old: ReadableBuffer, new: ReadableBuffer, offset: int = 0) -> int: ...

# protocols
def pseudo_ipv4(src: _Address4, dst: _Address4, proto: int, length: int, seed: int = 0) -> int: ...
def pseudo_ipv6(src: _Address6, dst: _Address6, proto: int, length: int, seed: int = 0) -> int: ...
def ipv4_header(header: ReadableBuffer, /) -> int: ...
def l4_verify(
    layer: Union[Layer, str, int],
    message: ReadableBuffer,
    pseudo: int = 0,
    *,
    over_ipv6: bool = False,
    udp6_zero_ok: bool = False,
) -> Verdict: ...
def l4_fill(
    layer: Union[Layer, str, int],
    message: WriteableBuffer,
    pseudo: int = 0,
    *,
    over_ipv6: bool = False,
    udp6_zero_ok: bool = False,
    udp_zero: bool = False,
    all: bool = False,
) -> Verdict: ...

# packets
def verify(
    frame: ReadableBuffer, *, link: Union[Link, int, str] = ..., wirelen: int = 0, udp6_zero_ok: bool = False
) -> Report: ...
def fill(
    frame: WriteableBuffer,
    *,
    link: Union[Link, int, str] = ...,
    wirelen: int = 0,
    udp6_zero_ok: bool = False,
    udp_zero: bool = False,
    all: bool = False,
) -> Report: ...
def offload(
    frame: WriteableBuffer,
    device: Union[Offload, int],
    request: Union[Offload, int] = ...,
    *,
    link: Union[Link, int, str] = ...,
    zero_seed: bool = False,
) -> Report: ...
def complete_partial(packet: WriteableBuffer, csum_start: int, csum_offset: int, *, crc32c: bool = False) -> None: ...

# kernels
def impl_name() -> str: ...
def _layer_row(layer: Union[Layer, str, int], /) -> Tuple[str, str, int]: ...
def impl_name_at(length: int, /) -> str: ...
def impls() -> List[str]: ...
def impls_built() -> List[str]: ...
def set_impl(name: Optional[str] = None, /) -> None: ...
def crc32c_impl_name() -> str: ...
def crc32c_impls() -> List[str]: ...
def crc32c_set_impl(name: Optional[str] = None, /) -> None: ...
def version() -> str: ...
def _register(
    Check: Type[Check],
    Verdict: Type[Verdict],
    Report: Type[Report],
    Layer: Type[Layer],
    Status: Type[Status],
    CheckFlag: Type[CheckFlag],
    FrameFlag: Type[FrameFlag],
    Offload: Type[Offload],
    /,
) -> None: ...

# Captures (inetcsum.Capture wraps these).
def _capture_open(path: Union[str, bytes, "os.PathLike[str]", "os.PathLike[bytes]"], /) -> object: ...
def _capture_next(handle: object, /) -> Optional[Tuple[int, bytes, int, int, Optional[int]]]: ...
def _capture_info(handle: object, /) -> Tuple[str, str, Optional[Tuple[int, int, int, int]]]: ...
def _layer_bits(layers: Iterable[Union[Layer, str, int]], /) -> int: ...
def _writer_open(path: Union[str, bytes, "os.PathLike[str]", "os.PathLike[bytes]"], pcapng: bool, link: int, /) -> object: ...
def _writer_put(handle: object, data: Any, wirelen: int, time_ns: Optional[int], /) -> None: ...
def _writer_close(handle: object, commit: bool, /) -> None: ...
def _capture_close(handle: object, /) -> None: ...
def _capture_position(handle: object, /) -> Tuple[int, Optional[int], int]: ...

# Verify and fix of whole captures (Capture.verify and fix_capture wrap these).
_Tally = Tuple[int, int, Tuple[Tuple[int, ...], ...], int, int, int, int, int, int, int, int, int, Tuple[Tuple[str, int], ...]]
def _capture_verify(
    handle: object, udp6_zero_ok: bool, reassemble: bool, unfollowed_ok: bool, layers: int, /
) -> Optional[
    Tuple[
        int,
        Optional[Report],
        Optional[Report],
        Optional[Tuple[int, ...]],
        List[Tuple[int, Report]],
        Optional[str],
        int,
        Optional[str],
        int,
    ]
]: ...
def _capture_summary(handle: object, /) -> _Tally: ...
def _capture_verify_problems(
    handle: object, udp6_zero_ok: bool, reassemble: bool, unfollowed_ok: bool, layers: int, max_frames: int, /
) -> Optional[List[Tuple[Any, ...]]]: ...
def _fix_capture(
    src: Union[str, bytes],
    dst: Union[str, bytes, None],
    all: bool,
    udp_zero: bool,
    udp6_zero_ok: bool,
    reassemble: bool,
    unfollowed_ok: bool,
    layers: int,
    progress: Optional[Callable[[int, Optional[int], int], object]],
    /,
) -> Tuple[_Tally, Optional[Tuple[int, int, int, int]]]: ...

# Segmentation offload.
# (Without out=, new bytes objects; with it, memoryviews of out.)
@overload
def segment(
    packet: ReadableBuffer,
    *,
    gso_size: Optional[int] = None,
    vnet: Optional[ReadableBuffer] = None,
    link: Union[Link, int, str] = ...,
    device: Union[Offload, int] = 0,
    zero_seed: bool = False,
    vnet_out: int = 0,
    out: None = None,
    fixed_id: Union[bool, Sequence[bool]] = False,
    max_segs: int = 0,
) -> List[bytes]: ...
@overload
def segment(
    packet: ReadableBuffer,
    *,
    gso_size: Optional[int] = None,
    vnet: Optional[ReadableBuffer] = None,
    link: Union[Link, int, str] = ...,
    device: Union[Offload, int] = 0,
    zero_seed: bool = False,
    vnet_out: int = 0,
    out: WriteableBuffer,
    fixed_id: Union[bool, Sequence[bool]] = False,
    max_segs: int = 0,
) -> List[memoryview]: ...
def _gro_new(link: Union[Link, int, str], vnet_size: int, max_flows: int, any_tunnel: bool, /) -> object: ...
def _gro_add(table: object, packet: ReadableBuffer, /) -> Tuple[List[bytes], int, List[Tuple[bool, ...]]]: ...
def _gro_flush(table: object, /) -> Tuple[List[bytes], int, List[Tuple[bool, ...]]]: ...
