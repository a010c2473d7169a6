"""Captures read by the C library's reader: pcap and pcapng (either byte order, several
interfaces and link types), gzip, zstd or xz compressed, and files cut short inside their last
record (the frames before the cut are read, and the cut is reported) -- no scapy or dpkt needed."""
from __future__ import annotations

import os
from typing import Iterator, NamedTuple, Optional, Union

from . import _inetcsum
from ._types import Link


class Frame(NamedTuple):
    """One packet of a capture: its number, bytes, link type, wire length and timestamp."""

    number: int  # 1-based, as Wireshark numbers frames
    data: bytes  # the bytes captured
    link: Union[Link, int]  # its interface's link type (an int when inetcsum has no Link for it)
    wirelen: int  # its length on the wire (more than len(data) when the capture cut it)
    time_ns: Optional[int]  # nanoseconds since the Unix epoch; None for a pcapng simple packet

    @property
    def time(self) -> Optional[float]:
        """The timestamp in seconds, as a float (microseconds survive; time_ns keeps all)."""
        return None if self.time_ns is None else self.time_ns / 1e9


class Cut(NamedTuple):
    """Where a capture ended inside a record (tcpdump killed, a copy interrupted)."""

    after_frame: int  # the last whole frame
    offset: int  # where the cut record starts, in the (decompressed) file
    have: int  # its bytes present
    need: int  # at least how many it needed (0, 0: a compressed stream ended between records)


def _link(value: int) -> Union[Link, int]:
    try:
        return Link(value)
    except ValueError:
        return value


class Capture:
    """A capture file, read frame by frame: ``for frame in Capture("x.pcapng.gz"): ...``.

    Opening raises OSError when the file cannot be opened and ValueError when it is not a
    capture; iterating raises ValueError at a corrupt record (the frames before it were given).
    After the last frame, ``cut`` says whether the file was cut short.  Usable once, as a
    context manager or not (the file is closed at the end, or by close())."""

    def __init__(self, path: Union[str, bytes, "os.PathLike[str]", "os.PathLike[bytes]"]) -> None:
        self._handle = _inetcsum._capture_open(path)
        self.path = path

    @property
    def format(self) -> str:
        """"pcap" or "pcapng"."""
        return _inetcsum._capture_info(self._handle)[0]

    @property
    def compression(self) -> str:
        """"plain", "gzip", "zstd" or "xz": told by the file's first bytes."""
        return _inetcsum._capture_info(self._handle)[1]

    @property
    def cut(self) -> Optional[Cut]:
        """None, or where the file ended inside a record (known once the frames were read)."""
        cut = _inetcsum._capture_info(self._handle)[2]
        return None if cut is None else Cut(*cut)

    def __iter__(self) -> Iterator[Frame]:
        while True:
            item = _inetcsum._capture_next(self._handle)
            if item is None:
                self.close()
                return
            number, data, link, wirelen, time_ns = item
            yield Frame(number, data, _link(link), wirelen, time_ns)

    def close(self) -> None:
        _inetcsum._capture_close(self._handle)

    def __enter__(self) -> "Capture":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"Capture({self.path!r}, format={self.format!r}, compression={self.compression!r})"
