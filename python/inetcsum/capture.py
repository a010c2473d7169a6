"""Captures read by the C library's reader: pcap and pcapng (either byte order, several
interfaces and link types), gzip, zstd or xz compressed, and files cut short inside their last
record (the frames before the cut are read, and the cut is reported) -- no scapy or dpkt needed.
Whole captures verified (Capture.verify) and fixed (fix_capture) by the engine of the inetcsum
command, fragment reassembly included, so results match it and tshark."""
from __future__ import annotations

import os
import threading
import time
from typing import IO, Any, Callable, Dict, FrozenSet, Iterable, Iterator, List, NamedTuple, Optional, Tuple, Union

from . import _inetcsum
from ._types import Check, CheckFlag, Layer, Link, Status


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


def _feed(source: IO[bytes], fd: int, failure: List[BaseException]) -> None:
    """Copies a file object into the pipe the reader reads, then closes it (a thread of its own)."""
    try:
        with os.fdopen(fd, "wb", closefd=True) as dst:
            while True:
                chunk = source.read(1 << 20)
                if not chunk:
                    break
                if isinstance(chunk, str):
                    raise TypeError("a Capture reads a binary file object (opened with 'rb'), not a text one")
                dst.write(chunk)
    except BrokenPipeError:
        pass  # the reader stopped first (closed, or at a corrupt record: its error says why)
    except BaseException as e:  # noqa: BLE001 - raised where the frames end
        failure.append(e)


def _link(value: int) -> Union[Link, int]:
    try:
        return Link(value)
    except ValueError:
        return value


Source = Union[str, bytes, "os.PathLike[str]", "os.PathLike[bytes]", bytearray, memoryview, IO[bytes]]


class Capture:
    """A capture file, read frame by frame: ``for frame in Capture("x.pcapng.gz"): ...``.

    The source is a path, a binary file object (a pipe, ``io.BytesIO``, an fsspec file,
    ``sys.stdin.buffer``: read in a thread of its own as the reader asks) or the bytes of a capture
    (``bytearray`` or ``memoryview``; ``bytes`` is a path, as ``open`` takes it: wrap a capture's
    bytes in ``memoryview``).  Compressed ones are read as they are, whatever the source.
    Opening raises OSError when the file cannot be opened and ValueError when it is not a
    capture; iterating raises ValueError at a corrupt record (the frames before it were given).
    After the last frame, ``cut`` says whether the file was cut short.  Read once, as a context
    manager or not (the file is closed at the end, or by close()): reading a closed capture, or one
    read to its end, raises ValueError, as a closed file does (it gave nothing, which looked like
    a clean file)."""

    def __init__(self, source: Source) -> None:
        self._summary: Optional[Summary] = None
        self._state = "open"  # then "read" (to its end) or "closed" (by close())
        self._feeder: Optional[threading.Thread] = None
        self._failure: List[BaseException] = []
        self._dev: Optional[str] = None  # the /dev/fd name the C reader opened a stream or bytes by
        if isinstance(source, (bytearray, memoryview)):
            self.path: Any = "<bytes>"
            fd = os.memfd_create("inetcsum-capture")  # (a file in memory: the reader seeks as in any file)
            try:
                view = memoryview(source).cast("B")
                done = 0
                while done < len(view):  # (os.write may write less than asked)
                    done += os.write(fd, view[done:])
                os.lseek(fd, 0, os.SEEK_SET)
                self._handle = self._open_dev(fd)
            finally:
                os.close(fd)  # (the reader opened its own descriptor)
        elif hasattr(source, "read"):
            self.path = getattr(source, "name", "<stream>")
            r, w = os.pipe()
            self._feeder = threading.Thread(target=_feed, args=(source, w, self._failure), daemon=True)
            self._feeder.start()
            try:
                self._handle = self._open_dev(r)
            except BaseException:
                self._feeder.join(timeout=5)
                if self._failure:  # (the stream's own error, which the reader saw as an early end)
                    raise self._failure[0] from None
                raise
            finally:
                os.close(r)
        else:
            self.path = source
            self._handle = _inetcsum._capture_open(source)

    def _open_dev(self, fd: int) -> Any:
        """Opens the capture behind descriptor fd, its messages naming self.path."""
        self._dev = f"/dev/fd/{fd}"
        try:
            return _inetcsum._capture_open(self._dev)
        except (OSError, ValueError) as e:
            raise self._named(e) from None

    def _named(self, e: BaseException) -> BaseException:
        """e, its message naming the source as people gave it rather than a /dev/fd name."""
        if self._dev is None or self._dev not in str(e):
            return e
        if isinstance(e, OSError) and e.errno:
            return type(e)(e.errno, e.strerror, str(self.path))
        return type(e)(str(e).replace(self._dev, str(self.path)))

    def _usable(self) -> None:
        """Raises ValueError unless frames may still be read."""
        if self._state == "closed":
            raise ValueError(f"I/O operation on a closed capture: {self.path!r}")
        if self._state == "read":
            raise ValueError(f"{self.path!r} was read to its end already: a Capture is used once (open it again)")

    def _finish(self) -> None:
        """The end of the frames: the file closed, the capture read; a stream that failed to be
        read says so (the reader saw its end early: that is no clean file)."""
        if self._state == "open":
            self._state = "read"
        _inetcsum._capture_close(self._handle)
        if self._feeder is not None:
            self._feeder.join()
            if self._failure:
                raise self._failure[0]

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
        self._usable()
        return self._frames()

    def _frames(self) -> Iterator[Frame]:
        while True:
            if self._state == "closed":
                raise ValueError(f"I/O operation on a closed capture: {self.path!r}")
            try:
                item = _inetcsum._capture_next(self._handle)
            except ValueError as e:  # a corrupt record
                raise self._named(e) from None
            if item is None:
                self._finish()
                return
            number, data, link, wirelen, time_ns = item
            yield Frame(number, data, _link(link), wirelen, time_ns)

    def verify(
        self,
        *,
        udp6_zero_ok: bool = False,
        reassemble: bool = True,
        unfollowed_ok: bool = False,
        progress: Optional["ProgressCallback"] = None,
        problems_only: bool = False,
        only: Optional[Iterable[Union[Layer, str]]] = None,
        skip: Optional[Iterable[Union[Layer, str]]] = None,
    ) -> Iterator[Union["CaptureCheck", "Undecoded"]]:
        """Every checksum of the capture judged as ``inetcsum verify`` judges it, in the order of
        its JSON Lines: a CaptureCheck per checksum (those of a fragmented datagram on the frame
        that completes it, with its fragments' frames; those of a datagram never completed,
        unverifiable, on its first fragment's frame, when it is given up), an Undecoded per frame
        that could not be decoded or followed to its end.  ``x.problem`` says which to act on
        (with unfollowed_ok, a frame not followed is not one, as ``verify --unfollowed-ok``).  Once
        it is exhausted, ``summary`` holds the counts.  Uses the capture (instead of iterating its
        frames).  progress, if given, is called with a Progress every 0.2 s of work and once at the
        end (an exception it raises ends the iteration there).  With problems_only, only the items
        whose ``problem`` is true are given, and the frames with none never reach Python: a capture
        with few problems is judged at the C engine's speed (the summary counts everything alike).
        only or skip (Layer members or their names, as ``verify --only``/``--skip``): the checks of
        other layers are not given, counted nor problems."""
        self._usable()
        layers = _layer_choice(only, skip)
        return _verify(self, udp6_zero_ok, reassemble, unfollowed_ok, progress, problems_only, layers)

    @property
    def summary(self) -> Optional["Summary"]:
        """The counts of verify(), once it went through the whole capture; None before."""
        return self._summary

    def close(self) -> None:
        """Closes the file now; reading the capture after raises ValueError."""
        if self._state == "open":
            self._state = "closed"
        _inetcsum._capture_close(self._handle)

    def __enter__(self) -> "Capture":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"Capture({self.path!r}, format={self.format!r}, compression={self.compression!r})"


class CaptureWriter:
    """A capture written frame by frame, as scapy's PcapWriter and dpkt's Writer are used:
    ``with CaptureWriter("out.pcapng.gz") as w: w.write(frame)``, so that frames can be read,
    fixed (``inetcsum.fill``) and written one at a time in a pipeline.

    pcap (microseconds) or pcapng, as ``format`` says or the name does (``.pcapng``, before any
    compression suffix; else pcap); gzip, zstd or xz when the name ends in .gz, .zst or .xz.  Every
    frame has the writer's link type (Ethernet unless ``link`` says).  The file is written through
    a temporary one and renamed into place at close(): it appears whole or not at all, and leaving
    the ``with`` block by an exception leaves nothing.  Writing after close() raises ValueError."""

    def __init__(self, path: Union[str, bytes, "os.PathLike[str]", "os.PathLike[bytes]"], *,
                 link: Union[Link, int] = Link.ETHERNET, format: Optional[str] = None) -> None:
        if format is None:
            name = os.fsdecode(os.fspath(path)).lower()
            for suffix in (".gz", ".zst", ".xz"):
                name = name[: -len(suffix)] if name.endswith(suffix) else name
            format = "pcapng" if name.endswith(".pcapng") else "pcap"
        if format not in ("pcap", "pcapng"):
            raise ValueError(f"CaptureWriter: format {format!r}: 'pcap' or 'pcapng'")
        self.path = path
        self.format = format
        self.link = _link(int(link))
        self._handle = _inetcsum._writer_open(_fs_path(path), format == "pcapng", int(link))
        self.frames = 0

    def write(self, frame: Union[Frame, bytes, bytearray, memoryview], *, wirelen: Optional[int] = None,
              time_ns: Optional[int] = None) -> None:
        """Writes a Frame (its bytes, wire length and time kept; its link type must be the
        writer's) or a frame's bytes (wirelen: its length on the wire when the bytes are cut
        short; time_ns: nanoseconds since the epoch, now when not given)."""
        if isinstance(frame, Frame):
            if int(frame.link) != int(self.link):
                raise ValueError(f"CaptureWriter.write(): frame {frame.number} has link type {frame.link!r}, "
                                 f"the writer {self.link!r}")
            data, wirelen, time_ns = frame.data, frame.wirelen if wirelen is None else wirelen, \
                frame.time_ns if time_ns is None else time_ns
        else:
            data = frame
        _inetcsum._writer_put(self._handle, data, wirelen or 0, time_ns)
        self.frames += 1

    def close(self) -> None:
        """Puts the file in place (compressed as its name asks): only then does it exist."""
        _inetcsum._writer_close(self._handle, True)

    def __enter__(self) -> "CaptureWriter":
        return self

    def __exit__(self, exc_type: Optional[type], *exc: object) -> None:
        _inetcsum._writer_close(self._handle, exc_type is None)  # (an exception: nothing is left)

    def __repr__(self) -> str:
        return f"CaptureWriter({self.path!r}, format={self.format!r}, link={self.link!r}, frames={self.frames})"


# ---- verify and fix of a whole capture -------------------------------------------------------------


class CaptureCheck(NamedTuple):
    """One checksum of a capture as ``inetcsum verify`` judges it (its JSON Lines "check" object)."""

    frame: int  # the frame; for a reassembled datagram's checksum, the frame that completed it
    check: Check
    # For the checksums of a reassembled datagram: the frames of its fragments, ascending (its
    # check.offset is then in the reassembled datagram); None for a frame's own checksums.
    datagram: Optional[Tuple[int, ...]] = None

    @property
    def problem(self) -> bool:
        """Bad, partial or illegal, and not inside an ICMP error's quote (quoted packets are
        evidence of what was sent, not problems): what the command counts and fix writes."""
        return self.check.problem and not self.check.flags & CheckFlag.QUOTED


class Undecoded(NamedTuple):
    """A frame that could not be decoded whole (its JSON Lines "frame" object): a problem, since
    what it carries was not judged, unless it is one not followed and that was allowed."""

    frame: int
    # "unknown link type", "malformed" (its headers contradict each other) or "not followed" (the
    # walk stopped at a number it does not follow)
    reason: str
    link: Union[Link, int]
    # for an unknown link type or a frame not followed: what was not followed, in words ("EtherType
    # 0x88b5 not followed", "link type 226 not decoded"), and where that header starts
    why: Optional[str] = None
    offset: int = 0
    allowed: bool = False  # not followed, and verify(unfollowed_ok=True) allows that

    @property
    def problem(self) -> bool:
        return not self.allowed


class Summary(NamedTuple):
    """A capture's counts, as the command's summary (and its JSON "summary" object) gives them."""

    frames: int
    checksums: int
    statuses: Dict[Status, int]  # statuses present, with their counts
    layers: Dict[Layer, Dict[Status, int]]  # the same per layer present
    problems: int  # bad, partial and illegal outside quoted packets, plus frames not decoded
    truncated: int  # frames captured shorter than they were on the wire
    reassembled: int  # fragmented datagrams made whole
    incomplete: int  # ... and those whose fragments never all came
    undecoded: int  # frames of an unknown link type or malformed
    quoted: int  # bad, partial or illegal inside quotes (not problems)
    cut: Optional[Cut]  # the file ended inside a record: every record before it was judged
    unfollowed: int = 0  # frames not followed to their end (problems unless allowed)
    # ... by reason, as "EtherType 0x88b5 not followed" (the first 8 reasons; "other" the rest)
    unfollowed_why: Dict[str, int] = {}

    @property
    def ok(self) -> bool:
        """No problem found, and the file was read to its end (a file cut inside its last record is
        not ok, as ``inetcsum verify`` exits 3 for it)."""
        return self.problems == 0 and self.cut is None


class Progress(NamedTuple):
    """How far a long read has come, as given to a progress callback (verify(), fix_capture())."""

    done: int  # bytes of the file read (compressed bytes for a compressed file)
    total: Optional[int]  # the file's size; None when it is not a regular file (a pipe)
    frames: int  # frames read

    @property
    def fraction(self) -> Optional[float]:
        """done / total, or None when the size is not known."""
        return self.done / self.total if self.total else None


ProgressCallback = Callable[[Progress], object]
PROGRESS_EVERY = 0.2  # seconds between two calls of a progress callback (and one at the end)


class FixResult(NamedTuple):
    """What fix_capture did: the input as verify sees it, what was written, what is left."""

    input: Summary  # the input before the fix (its cut, if it was cut short)
    written: int  # checksum fields written
    left: int  # problems the output still holds: they cannot be fixed in place (truncated frames, ...)

    @property
    def ok(self) -> bool:
        """The output holds no problem and every record of the input: False when the input was cut
        inside its last record (input.cut; the output then ends before that record, and
        ``inetcsum fix`` exits 3)."""
        return self.left == 0 and self.input.cut is None


_Tally = Tuple[int, int, Tuple[Tuple[int, ...], ...], int, int, int, int, int, int, int, int, int, Tuple[Tuple[str, int], ...]]


def _summary(tally: _Tally, cut: Optional[Tuple[int, int, int, int]]) -> Summary:
    frames, checksums, by, problems, truncated, reassembled, incomplete, undecoded, quoted = tally[:9]
    statuses: Dict[Status, int] = {}
    layers: Dict[Layer, Dict[Status, int]] = {}
    for layer, row in zip(Layer, by):
        for status, count in zip(Status, row):
            if count:
                statuses[status] = statuses.get(status, 0) + count
                layers.setdefault(layer, {})[status] = count
    return Summary(frames, checksums, statuses, layers, problems, truncated, reassembled, incomplete, undecoded,
                   quoted, None if cut is None else Cut(*cut), tally[11], dict(tally[12]))


def _layer_choice(only: Optional[Iterable[Union[Layer, str]]], skip: Optional[Iterable[Union[Layer, str]]]) -> int:
    """The layers judged, as the C engine's mask (0: every one), from verify's and fix_capture's
    only and skip: names as the JSON's (ValueError for a name no layer has)."""
    if only is not None and skip is not None:
        raise TypeError("only and skip do not go together (only names what is judged)")
    if only is not None:
        bits = _inetcsum._layer_bits(only)
        if not bits:
            raise ValueError("only names no layer: nothing would be judged")
        return bits
    if skip is not None:
        every = _inetcsum._layer_bits(Layer)
        bits = every & ~_inetcsum._layer_bits(skip)
        if not bits:
            raise ValueError("skip names every layer: nothing would be judged")
        return bits
    return 0


def _items(item: Tuple[Any, ...], unfollowed_ok: bool,
           layers: Optional[FrozenSet[Layer]] = None) -> Iterator[Union[CaptureCheck, Undecoded]]:
    """One frame's tuple from the C engine as the items verify() gives, in their order (with a
    layer choice, the checks of the layers chosen)."""
    number, report, whole, frames, unfinished, reason, link, why, why_offset = item
    chosen = (lambda check: True) if layers is None else (lambda check: check.layer in layers)
    for first, checks in unfinished:  # datagrams given up on: on their first fragment
        for check in checks:
            if chosen(check):
                yield CaptureCheck(first, check)
    if report is None:  # the end
        return
    for check in report:
        if chosen(check):
            yield CaptureCheck(number, check)
    if reason is not None:
        yield Undecoded(number, reason, _link(link), why, why_offset, unfollowed_ok and reason != "malformed")
    if whole is not None:
        for check in whole:
            if chosen(check):
                yield CaptureCheck(number, check, frames)


def _verify(
    capture: "Capture", udp6_zero_ok: bool, reassemble: bool, unfollowed_ok: bool,
    progress: Optional[ProgressCallback] = None, problems_only: bool = False, layers: int = 0,
) -> Iterator[Union[CaptureCheck, Undecoded]]:
    handle = capture._handle
    next_call = time.monotonic() + PROGRESS_EVERY
    chosen = None if not layers else frozenset(l for l in Layer if layers & _inetcsum._layer_bits((l,)))
    while True:
        if capture._state == "closed":
            raise ValueError(f"I/O operation on a closed capture: {capture.path!r}")
        if progress is not None and time.monotonic() >= next_call:
            progress(Progress(*_inetcsum._capture_position(handle)))
            next_call = time.monotonic() + PROGRESS_EVERY
        if problems_only:
            batch = _inetcsum._capture_verify_problems(handle, udp6_zero_ok, reassemble, unfollowed_ok, layers, 1 << 14)
        else:  # (a frame at a time: a tuple is a one-frame batch, without a list made per frame)
            one = _inetcsum._capture_verify(handle, udp6_zero_ok, reassemble, unfollowed_ok, layers)
            batch = None if one is None else (one,)
        if batch is None:
            return
        for item in batch:
            for x in _items(item, unfollowed_ok, chosen):
                if not problems_only or x.problem:
                    yield x
            if item[1] is None:  # the end
                if progress is not None:
                    done, total, frames = _inetcsum._capture_position(handle)
                    progress(Progress(total if total is not None else done, total, frames))
                capture._summary = _summary(_inetcsum._capture_summary(handle), _inetcsum._capture_info(handle)[2])
                capture._finish()
                return


def _fs_path(path: Union[str, bytes, "os.PathLike[str]", "os.PathLike[bytes]"]) -> Union[str, bytes]:
    """A path as the C engine takes it; "-" means a file of that name, never standard output."""
    p = os.fspath(path)
    return os.path.join(".", p) if p in ("-", b"-") else p  # type: ignore[arg-type]


def fix_capture(
    src: Union[str, bytes, "os.PathLike[str]", "os.PathLike[bytes]"],
    dst: Union[str, bytes, "os.PathLike[str]", "os.PathLike[bytes]", None] = None,
    *,
    in_place: bool = False,
    all: bool = False,
    udp_zero: bool = False,
    udp6_zero_ok: bool = False,
    reassemble: bool = True,
    unfollowed_ok: bool = False,
    progress: Optional[ProgressCallback] = None,
    only: Optional[Iterable[Union[Layer, str]]] = None,
    skip: Optional[Iterable[Union[Layer, str]]] = None,
) -> FixResult:
    """Writes dst, a copy of the capture src with every bad, partial or illegal checksum
    recomputed, as ``inetcsum fix src dst`` does: innermost first, fragmented datagrams
    reassembled so that a first fragment's checksum is fixed too, every other byte kept, in src's
    format (compressed when dst's name ends in .gz, .zst or .xz).  dst appears whole or not at all.
    With in_place=True (and no dst), src is fixed where it lies, writing only the bytes that
    change.  all, udp_zero and udp6_zero_ok are fill()'s; with unfollowed_ok, frames not followed to
    their end are not problems left (``fix --unfollowed-ok``).  only or skip (Layer members or
    names, as ``fix --only``/``--skip``): the other layers are left as they are and are no problem,
    but one that was right is kept right when a write inside it would break it.

    Raises OSError when a file cannot be read or written, ValueError when src is not a capture;
    nothing is written then.  A src cut short inside its last record is not an error: every record
    before the cut is fixed and the result's input.cut says where.  The GIL is released throughout,
    but for progress, if given: called with a Progress every 0.2 s of work and once at the end; an
    exception it raises stops the fix (nothing written to dst; in place, what was written stays)
    and is raised here."""
    if in_place == (dst is not None):
        raise TypeError("fix_capture: give dst, or in_place=True, not both" if in_place else "fix_capture: give dst (or in_place=True)")
    layers = _layer_choice(only, skip)
    tally, cut = _inetcsum._fix_capture(
        _fs_path(src), None if dst is None else _fs_path(dst), all, udp_zero, udp6_zero_ok, reassemble, unfollowed_ok,
        layers, None if progress is None else (lambda done, total, frames: progress(Progress(done, total, frames))),
    )
    return FixResult(_summary(tally, cut), tally[9], tally[10])
