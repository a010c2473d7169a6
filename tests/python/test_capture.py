"""inetcsum.Capture, the C reader from Python, against scapy's readers on every shared capture
(frames, link types, lengths and timestamps), compressed forms against their plain ones, and cut
and broken files; Capture.verify and fix_capture against the inetcsum command on every shared
capture (given INETCSUM_CLI), and on fragmented datagrams built with scapy."""
import gzip
import io
import json
import lzma
import os
import pathlib
import shutil
import stat
import subprocess

import pytest
from scapy.layers.inet import IP, UDP, fragment
from scapy.layers.l2 import Ether
from scapy.utils import RawPcapNgReader, RawPcapReader, wrpcap

import inetcsum
from inetcsum import Capture, CaptureCheck, CaptureWriter, Cut, FixResult, Frame, Layer, Link, Status, Summary, Undecoded, fix_capture

# Both addresses given: for a missing one scapy asks ARP (2 s a frame, answers differ by machine).
ETHER = Ether(src="02:00:00:00:00:01", dst="02:00:00:00:00:02")


def scapy_frames(path):
    """[(data, wirelen, link, time_ns)] by scapy's own readers."""
    out = []
    with open(path, "rb") as f:
        magic = f.read(4)
    if magic == b"\x0a\x0d\x0d\x0a":
        with RawPcapNgReader(str(path)) as reader:
            for data, meta in reader:
                if meta.tshigh is None:  # a simple packet block: no timestamp
                    ns = None
                else:
                    ticks = (meta.tshigh << 32) | meta.tslow
                    ns = ticks * 10**9 // meta.tsresol
                out.append((data, meta.wirelen, meta.linktype, ns))
    else:
        with RawPcapReader(str(path)) as reader:
            nano = reader.nano
            for data, meta in reader:
                ns = meta.sec * 10**9 + meta.usec * (1 if nano else 1000)
                out.append((data, meta.wirelen, reader.linktype, ns))
    return out


def captures(shared):
    return sorted(p for p in (shared / "captures").rglob("*") if p.suffix in (".pcap", ".pcapng", ".cap"))


def test_every_shared_capture_as_scapy_reads_it(shared):
    files = frames = 0
    for path in captures(shared):
        try:
            theirs = scapy_frames(path)
        except Exception:  # scapy refuses some files the C reader takes: nothing to compare
            continue
        cap = Capture(path)
        ours = list(cap)
        assert [f.number for f in ours] == list(range(1, len(ours) + 1))
        assert [(f.data, f.wirelen, int(f.link)) for f in ours] == [t[:3] for t in theirs], path
        for f, t in zip(ours, theirs):
            if t[3] is not None:
                assert f.time_ns == t[3], (path, f.number)
        assert cap.cut is None
        assert cap.format == ("pcapng" if path.read_bytes()[:4] == b"\x0a\x0d\x0d\x0a" else "pcap")
        files += 1
        frames += len(ours)
    assert files > 150 and frames > 2000


def test_frames_and_links(shared):
    path = pathlib.Path(inetcsum.__file__).resolve().parents[2] / "examples" / "sample.pcap"
    if not path.exists():
        pytest.skip("examples/sample.pcap is not beside this copy of the package")
    with Capture(path) as cap:
        frames = list(cap)
    assert len(frames) == 40 and all(isinstance(f, Frame) for f in frames)
    assert frames[0].link is Link.ETHERNET and frames[0].time == frames[0].time_ns / 1e9
    # What verify says of each frame read this way is what it says of the bytes themselves.
    bad = [f.number for f in frames if not inetcsum.verify(f.data, link=f.link, wirelen=f.wirelen).ok]
    assert bad  # sample.pcap holds wrong checksums


def test_compressed_and_cut(tmp_path, shared):
    plain = shared / "captures" / "zeek" / "chksums__localhost-bad-chksum.pcap"
    raw = plain.read_bytes()
    want = list(Capture(plain))
    packed = {"gz": gzip.compress(raw), "xz": lzma.compress(raw)}
    if shutil.which("zstd"):
        packed["zst"] = subprocess.run(["zstd", "-q", "-c"], input=raw, capture_output=True, check=True).stdout
    for ext, data in packed.items():
        p = tmp_path / f"c.{ext}"
        p.write_bytes(data)
        cap = Capture(p)
        assert list(cap) == want, ext
        assert cap.compression == {"gz": "gzip", "xz": "xz", "zst": "zstd"}[ext]
    cut = tmp_path / "cut.pcap"
    cut.write_bytes(raw[:-5])
    cap = Capture(cut)
    assert list(cap) == want[:-1]
    assert cap.cut == Cut(len(want) - 1, cap.cut.offset, cap.cut.have, cap.cut.need)
    assert cap.cut.have < cap.cut.need
    junk = tmp_path / "junk.pcap"
    junk.write_bytes(b"not a capture at all")
    with pytest.raises(ValueError, match="not a pcap or pcapng file"):
        Capture(junk)
    with pytest.raises(OSError):
        Capture(tmp_path / "missing.pcap")


# ---- verify and fix of whole captures ----------------------------------------------------------------


def as_json(item):
    """A Capture.verify item as the command's JSON Lines object (without type, schema, file)."""
    if isinstance(item, Undecoded):
        out = {"frame": item.frame, "reason": item.reason}
        if item.reason == "unknown link type":
            out["link"] = int(item.link)
        if item.why is not None:
            out["why"] = item.why
            out["offset"] = item.offset
        return out
    c = item.check
    width = 2 * c.layer.width
    out = {
        "frame": item.frame,
        "layer": c.layer.value,
        "depth": c.depth,
        "status": c.status.value,
        "stored": f"0x{c.stored:0{width}x}",
        "expected": None if c.status == Status.UNVERIFIABLE else f"0x{c.expected:0{width}x}",
        "offset": c.offset,
        "length": c.length,
        "flags": [f.name.lower() for f in type(c.flags) if f & c.flags and f.name in ("QUOTED", "FRAGMENT", "TRUNCATED", "MALFORMED")],
    }
    if item.datagram is not None:
        out["datagram"] = {"frames": list(item.datagram)}
    return out


def summary_json(s):
    return {
        "frames": s.frames,
        "checksums": s.checksums,
        "statuses": {k.value: v for k, v in s.statuses.items()},
        "layers": {k.value: {st.value: n for st, n in v.items()} for k, v in s.layers.items()},
        "problems": s.problems,
        "truncated": s.truncated,
        "reassembled": s.reassembled,
        "incomplete": s.incomplete,
        "undecoded": s.undecoded,
        "quoted": s.quoted,
        "unfollowed": s.unfollowed,
        "unfollowed_why": s.unfollowed_why,
        "cut": None if s.cut is None else s.cut._asdict(),
    }


def cli_json(cli, path):
    run = subprocess.run([cli, "verify", "--json", str(path)], capture_output=True, check=False)
    assert run.returncode in (0, 1, 3), run.stderr
    items, summary = [], None
    for line in run.stdout.splitlines():
        obj = json.loads(line)
        kind = obj.pop("type")
        for key in ("schema", "file"):
            obj.pop(key)
        if kind == "summary":
            obj.pop("error")
            summary = obj
        else:
            items.append(obj)
    return items, summary


needs_cli = pytest.mark.skipif(not os.environ.get("INETCSUM_CLI"), reason="INETCSUM_CLI (the inetcsum command) not given")


@needs_cli
def test_verify_is_the_commands_verify_on_every_shared_capture(shared):
    cli = os.environ["INETCSUM_CLI"]
    files = checks = reassembled = 0
    for path in captures(shared):
        theirs, their_summary = cli_json(cli, path)
        cap = Capture(path)
        ours = [as_json(x) for x in cap.verify()]
        assert ours == theirs, path
        assert summary_json(cap.summary) == their_summary, path
        assert isinstance(cap.summary, Summary)
        assert cap.summary.ok == (their_summary["problems"] == 0 and their_summary["cut"] is None)
        files += 1
        checks += cap.summary.checksums
        reassembled += cap.summary.reassembled
    assert files > 150 and checks > 4000 and reassembled >= 10


def fixable_captures(shared):
    """The shared captures verify finds problems in (and some without)."""
    out = []
    for path in captures(shared):
        try:
            cap = Capture(path)
        except ValueError:
            continue
        for _ in cap.verify():
            pass
        if cap.summary.problems or len(out) % 10 == 0:
            out.append(path)
    return out


@needs_cli
def test_fix_capture_writes_what_the_command_writes(shared, tmp_path):
    cli = os.environ["INETCSUM_CLI"]
    files = written = 0
    for path in fixable_captures(shared):
        theirs = tmp_path / ("cli" + path.suffix)
        run = subprocess.run([cli, "fix", "--quiet", str(path), str(theirs)], capture_output=True, check=False)
        ours = tmp_path / ("py" + path.suffix)
        result = fix_capture(path, ours)
        assert isinstance(result, FixResult)
        assert ours.read_bytes() == theirs.read_bytes(), path
        assert run.returncode == (3 if result.input.cut else 0 if result.ok else 1), (path, run.stderr)
        assert not (result.ok and result.input.cut), path
        # The result's input summary is verify's of the same file.
        cap = Capture(path)
        for _ in cap.verify():
            pass
        assert result.input == cap.summary, path
        # In place: the same bytes, only the changed ones written.
        copy = tmp_path / ("copy" + path.suffix)
        shutil.copyfile(path, copy)
        again = fix_capture(copy, in_place=True)
        assert copy.read_bytes() == theirs.read_bytes() and again == result, path
        files += 1
        written += result.written
    assert files > 20 and written > 100


def fragmented_capture(path, bad_udp):
    """Three frames: a 3000-byte UDP datagram in fragments (the last first), its UDP checksum wrong
    when bad_udp, then a whole datagram with a wrong IPv4 header checksum."""
    dgram = IP(src="192.0.2.1", dst="198.51.100.7", id=4242) / UDP(sport=5000, dport=6000) / (b"x" * 3000)
    dgram = IP(bytes(dgram))
    if bad_udp:
        dgram[UDP].chksum ^= 0x1234
    frags = fragment(dgram, fragsize=1480)
    frames = [ETHER / f for f in reversed(frags)]
    whole = ETHER / IP(src="192.0.2.9", dst="198.51.100.7", chksum=0x0BAD) / UDP(sport=1, dport=2) / b"hi"
    wrpcap(str(path), frames + [whole])
    return len(frags)


def test_verify_reassembles_and_fix_capture_fixes_fragments(tmp_path):
    src = tmp_path / "frag.pcap"
    n = fragmented_capture(src, bad_udp=True)
    cap = Capture(src)
    items = list(cap.verify())
    problems = [x for x in items if x.problem]
    assert [(x.frame, x.check.layer, x.datagram) for x in problems] == [
        (n, "udp", tuple(range(1, n + 1))),  # on the frame that completed it, with its fragments
        (n + 1, "ipv4", None),
    ]
    assert cap.summary.reassembled == 1 and cap.summary.problems == 2 and not cap.summary.ok
    with pytest.raises(ValueError, match="used once"):
        next(iter(cap))
    used = Capture(src)
    next(iter(used))
    with pytest.raises(ValueError, match="used once"):
        next(used.verify())
    assert cap.summary.statuses[Status.BAD] == 2

    dst = tmp_path / "fixed.pcap.gz"
    result = fix_capture(src, dst)
    assert result.input == cap.summary and result.written == 2 and result.left == 0 and result.ok
    assert dst.read_bytes()[:2] == b"\x1f\x8b"  # compressed as its name asks
    fixed = Capture(dst)
    assert not [x for x in fixed.verify() if x.problem] and fixed.summary.reassembled == 1
    # Only checksum fields changed: the fixed frames equal those of a capture built right.
    good = tmp_path / "good.pcap"
    fragmented_capture(good, bad_udp=False)
    assert [f.data for f in Capture(dst)][:n] == [f.data for f in Capture(good)][:n]

    # Without reassembly, the first fragment's UDP checksum cannot be judged, nor fixed.
    plain = Capture(src)
    unverifiable = [x for x in plain.verify(reassemble=False) if x.check.layer == "udp" and x.frame <= n]
    assert [x.check.status for x in unverifiable] == [Status.UNVERIFIABLE] and plain.summary.reassembled == 0
    kept = fix_capture(src, tmp_path / "kept.pcap", reassemble=False)
    assert kept.written == 1


def test_verify_reports_datagrams_never_completed_and_undecoded_frames(tmp_path):
    src = tmp_path / "frag.pcap"
    n = fragmented_capture(src, bad_udp=True)
    frames = [f.data for f in Capture(src)]
    lost = tmp_path / "lost.pcap"
    wrpcap(str(lost), [Ether(d) for d in frames[1:n]])  # without the datagram's last fragment
    cap = Capture(lost)
    items = list(cap.verify())
    assert cap.summary.incomplete == 1 and cap.summary.reassembled == 0
    # The first fragment's UDP checksum waited for the whole datagram; at the end it is given up:
    # unverifiable, on the first fragment's frame, after every frame's own checks.
    udp = CaptureCheck(n - 1, items[-1].check)
    assert items[-1] == udp and udp.check.layer == "udp" and udp.check.status == Status.UNVERIFIABLE
    assert udp.check.flags & inetcsum.CheckFlag.FRAGMENT and not udp.problem
    assert [x.check.layer for x in items[:-1]] == ["ipv4"] * (n - 1)
    # An unknown link type: an Undecoded item, counted as a problem.
    odd = tmp_path / "odd.pcap"
    wrpcap(str(odd), [Ether(frames[-1])], linktype=147)
    cap = Capture(odd)
    items = list(cap.verify())
    assert items == [Undecoded(1, "unknown link type", 147, "link type 147 not decoded")] and items[0].problem
    assert cap.summary.undecoded == 1 and cap.summary.problems == 1


def made_capture(path, frames=10):
    """A capture made here: TCP over IPv4, every TCP checksum wrong (the tests' own data, always there)."""
    from scapy.layers.inet import TCP
    wrpcap(str(path), [ETHER / IP(src="10.0.0.1", dst="10.0.0.2") / TCP(sport=1000 + i, dport=80, chksum=0x1234)
                       / (b"x" * (20 + i)) for i in range(frames)])
    return path


def test_fix_capture_errors_write_nothing(tmp_path, monkeypatch):
    junk = tmp_path / "junk.pcap"
    junk.write_bytes(b"not a capture at all")
    out = tmp_path / "out.pcap"
    with pytest.raises(ValueError, match="not a pcap or pcapng file"):
        fix_capture(junk, out)
    with pytest.raises(FileNotFoundError):
        fix_capture(tmp_path / "missing.pcap", out)
    with pytest.raises(TypeError):
        fix_capture(junk)
    with pytest.raises(TypeError):
        fix_capture(junk, out, in_place=True)
    made = made_capture(tmp_path / "made.pcap")
    with pytest.raises(OSError):
        fix_capture(made, tmp_path / "no" / "such.pcap")
    # A directory as dst: said as such (it was an OSError with EIO).
    with pytest.raises(IsADirectoryError, match="is a directory: not replaced"):
        fix_capture(made, tmp_path)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["junk.pcap", "made.pcap"]
    # A file named "-" is a file, not standard output.
    monkeypatch.chdir(tmp_path)
    fix_capture(made, "-")
    assert (tmp_path / "-").stat().st_size > 0


def test_fix_capture_in_place_keeps_the_file_or_refuses(tmp_path):
    """In place means the same file (inode): what cannot be fixed where it lies is refused by name
    and left as it was, never replaced by a new file of the same name."""
    made = made_capture(tmp_path / "made.pcap")
    before = made.read_bytes()
    ino = made.stat().st_ino
    link = tmp_path / "link.pcap"
    os.link(made, link)
    result = fix_capture(made, in_place=True)
    assert result.written == 10 and made.stat().st_ino == ino and link.read_bytes() == made.read_bytes() != before
    # Not a regular file: refused (a FIFO was opened without blocking, and is still a FIFO).
    fifo = tmp_path / "fifo.pcap"
    os.mkfifo(fifo)
    with pytest.raises(OSError, match="fifo.pcap: cannot fix in place: not a regular file"):
        fix_capture(fifo, in_place=True)
    assert stat.S_ISFIFO(os.stat(fifo).st_mode)
    # A compressed capture is rewritten whole as a new file: refused when other links would keep
    # the old one, done when it has one.
    gz = tmp_path / "made.pcap.gz"
    gz.write_bytes(gzip.compress(before))
    other = tmp_path / "other.pcap.gz"
    os.link(gz, other)
    with pytest.raises(OSError, match="has 2 links"):
        fix_capture(gz, in_place=True)
    assert gz.read_bytes() == other.read_bytes() and gzip.decompress(gz.read_bytes()) == before
    other.unlink()
    assert fix_capture(gz, in_place=True).written == 10 and gzip.decompress(gz.read_bytes()) != before


def test_fix_capture_of_a_cut_capture(tmp_path):
    raw = made_capture(tmp_path / "made.pcap").read_bytes()
    cut = tmp_path / "cut.pcap"
    cut.write_bytes(raw[:-5])
    out = tmp_path / "out.pcap"
    result = fix_capture(cut, out)
    assert result.input.cut is not None and result.input.cut.after_frame == result.input.frames == 9
    assert len(list(Capture(out))) == 9 and Capture(out).cut is None
    # Every record before the cut is fixed and written, but the output lacks the cut one: not ok,
    # as the command exits 3 for it.
    assert not result.ok and result.left == 0 and result.written == 9
    # Verify: a capture with nothing wrong but cut inside its last record is not ok either.
    cut_good = tmp_path / "cut-good.pcap"
    cut_good.write_bytes(out.read_bytes()[:-5])
    cap = Capture(cut_good)
    for _ in cap.verify():
        pass
    assert cap.summary.problems == 0 and cap.summary.cut is not None and not cap.summary.ok


def test_progress_callbacks(tmp_path, monkeypatch):
    """verify() and fix_capture() call progress with how far they are (bytes of the file, its
    size, frames) every 0.2 s and once at the end; an exception it raises stops the work there."""
    from inetcsum import Progress
    import inetcsum.capture as capture_module
    monkeypatch.setattr(capture_module, "PROGRESS_EVERY", 0.0)  # every frame, for the test
    made = made_capture(tmp_path / "made.pcap", frames=30)
    size = made.stat().st_size
    seen = []
    cap = Capture(made)
    items = list(cap.verify(progress=seen.append))
    assert items and seen and all(isinstance(p, Progress) for p in seen)
    assert seen[-1] == Progress(size, size, 30) and seen[-1].fraction == 1.0
    assert [p.frames for p in seen] == sorted(p.frames for p in seen)
    calls = []
    result = fix_capture(made, tmp_path / "out.pcap", progress=calls.append)
    assert result.written == 30 and calls[-1] == Progress(size, size, 30)

    class Enough(Exception):
        pass

    def stop(p):
        raise Enough(p)

    with pytest.raises(Enough):
        fix_capture(made, tmp_path / "never.pcap", progress=stop)
    assert not (tmp_path / "never.pcap").exists()
    with pytest.raises(Enough):
        list(Capture(made).verify(progress=stop))
    with pytest.raises(TypeError, match="progress must be callable"):
        capture_module._inetcsum._fix_capture(str(made), str(tmp_path / "x.pcap"), False, False, False, True, False, 0, 3)


def test_problems_only_gives_the_problems_at_engine_speed(shared):
    """verify(problems_only=True): the same problem items, in the same order, and the same summary
    as filtering every item; frames without a problem never reach Python."""
    compared = 0
    for path in captures(shared):
        try:
            full, fast = Capture(path), Capture(path)
        except ValueError:
            continue
        want = [x for x in full.verify() if x.problem]
        got = list(fast.verify(problems_only=True))
        assert got == want, path
        assert fast.summary == full.summary, path
        compared += len(got)
    assert compared > 100


def test_a_closed_or_finished_capture_raises(tmp_path):
    """Reading a Capture after close(), or after it was read to its end, raises ValueError as a
    closed file does: it gave nothing, and a loop over it reported a clean file (issue 37, item 6)."""
    path = tmp_path / "two.pcap"
    wrpcap(str(path), [ETHER / IP(dst="10.0.0.2") / UDP(dport=9) / b"x", ETHER / IP() / UDP() / b"y"])
    cap = Capture(path)
    cap.close()
    with pytest.raises(ValueError, match="closed capture"):
        list(cap)
    with pytest.raises(ValueError, match="closed capture"):
        list(cap.verify())
    cap = Capture(path)
    assert len(list(cap)) == 2
    with pytest.raises(ValueError, match="read to its end already"):
        list(cap)
    with pytest.raises(ValueError, match="read to its end already"):
        cap.verify()
    with Capture(path) as cap:
        checks = list(cap.verify())
    assert checks and cap.summary is not None and cap.summary.frames == 2
    cap = Capture(path)  # closed midway through verify: the next step says so
    it = cap.verify()
    next(it)
    cap.close()
    with pytest.raises(ValueError, match="closed capture"):
        list(it)


def test_a_capture_from_a_stream_or_bytes(tmp_path):
    """Capture over a binary file object (io.BytesIO, a pipe, a gzip stream) and over a capture's
    bytes (bytearray, memoryview): the same frames and verdicts as from its file; a text file, a
    stream that fails midway and junk say so, naming the source, never a clean end (issue 37)."""
    path = tmp_path / "made.pcap"
    wrpcap(str(path), [ETHER / IP(dst="10.0.0.2") / UDP(dport=9, chksum=0x1234) / (b"x" * n) for n in range(1, 40)])
    data = path.read_bytes()
    want = [(f.number, f.data, f.wirelen) for f in Capture(path)]
    sources = [io.BytesIO(data), io.BytesIO(gzip.compress(data)), bytearray(data), memoryview(data)]
    cat = subprocess.Popen(["cat", str(path)], stdout=subprocess.PIPE)
    sources.append(cat.stdout)
    for source in sources:
        assert [(f.number, f.data, f.wirelen) for f in Capture(source)] == want, type(source)
    cat.wait()
    with path.open("rb") as f:
        cap = Capture(f)
        assert cap.path == str(path)  # (a file object's name)
        assert sum(1 for x in cap.verify() if x.problem) == 39
    with pytest.raises(TypeError, match="binary file object"):
        Capture(io.StringIO("not bytes"))
    with pytest.raises(ValueError, match="^<stream>: not a pcap or pcapng file"):
        Capture(io.BytesIO(b"junk" * 16))

    class Failing(io.RawIOBase):
        def __init__(self) -> None:
            self.calls = 0

        def readable(self) -> bool:
            return True

        def read(self, n: int = -1) -> bytes:
            self.calls += 1
            if self.calls == 1:
                return data[:2000]
            raise OSError(5, "Input/output error")

    with pytest.raises(OSError, match="Input/output error"):
        list(Capture(Failing()))


def test_only_and_skip_as_the_command(tmp_path):
    """verify(only=..., skip=...) and fix_capture(only=..., skip=...) judge and write the layers
    chosen, as verify and fix --only/--skip do (issue 37): the checks given, the summary's counts
    and what fix writes."""
    path = tmp_path / "mixed.pcap"
    wrpcap(str(path), [ETHER / IP(dst="10.0.0.2", chksum=0x1111) / UDP(dport=9, chksum=0x2222) / (b"x" * n)
                       for n in (1, 2, 3)])
    every = list(Capture(path).verify())
    assert sorted({c.check.layer for c in every}) == [Layer.IPV4, Layer.UDP]
    cap = Capture(path)
    udp = list(cap.verify(only=["udp"]))
    assert {c.check.layer for c in udp} == {Layer.UDP} and len(udp) == 3
    assert cap.summary.checksums == 3 and cap.summary.problems == 3
    cap = Capture(path)
    assert {c.check.layer for c in cap.verify(skip=[Layer.UDP], problems_only=True)} == {Layer.IPV4}
    out = tmp_path / "out.pcap"
    result = fix_capture(path, out, only=["ipv4"])
    assert result.written == 3 and result.left == 0
    assert [(c.check.layer, c.check.status) for c in Capture(out).verify() if c.problem] == [(Layer.UDP, Status.BAD)] * 3
    with pytest.raises(ValueError):
        Capture(path).verify(only=["nope"])
    with pytest.raises(TypeError, match="do not go together"):
        Capture(path).verify(only=["udp"], skip=["ipv4"])


def test_capture_writer_round_trips(tmp_path):
    """CaptureWriter (issue 37): frames written one at a time come back byte for byte with their
    wire lengths and times, in pcap and pcapng, compressed by name; fixed in a pipeline they verify
    clean; an exception inside the with block leaves nothing; the errors say why."""
    src = tmp_path / "src.pcap"
    wrpcap(str(src), [ETHER / IP(dst="10.0.0.2") / UDP(dport=9, chksum=0x1234) / (b"x" * n) for n in range(1, 20)])
    frames = list(Capture(src))
    for name in ("out.pcap", "out.pcapng", "out.pcap.xz", "out.pcapng.gz"):
        out = tmp_path / name
        with CaptureWriter(out) as w:
            for f in frames:
                w.write(f)
            w.write(b"\x00" * 20, wirelen=60, time_ns=1_700_000_000_123_456_000)  # cut short, as a snaplen would
        back = list(Capture(out))
        assert [(f.data, f.wirelen, f.time_ns // 1000) for f in back[:-1]] == \
            [(f.data, f.wirelen, f.time_ns // 1000) for f in frames], name
        assert (back[-1].data, back[-1].wirelen, back[-1].time_ns) == (b"\x00" * 20, 60, 1_700_000_000_123_456_000)
        assert Capture(out).format == ("pcapng" if ".pcapng" in name else "pcap")
    fixed = tmp_path / "fixed.pcap"  # a pipeline: read, fill, write
    with CaptureWriter(fixed) as w:
        for f in Capture(src):
            data = bytearray(f.data)
            inetcsum.fill(data, link=f.link)
            w.write(bytes(data))
    assert not [x for x in Capture(fixed).verify() if x.problem]
    with pytest.raises(RuntimeError):
        with CaptureWriter(tmp_path / "never.pcap") as w:
            w.write(frames[0])
            raise RuntimeError("stop")
    assert not (tmp_path / "never.pcap").exists()
    w = CaptureWriter(tmp_path / "closed.pcap")
    w.close()
    with pytest.raises(ValueError, match="closed CaptureWriter"):
        w.write(b"x")
    with pytest.raises(ValueError, match="link type"):
        with CaptureWriter(tmp_path / "raw.pcap", link=Link.RAW) as w:
            w.write(frames[0])
    with pytest.raises(OSError):
        CaptureWriter(tmp_path / "no" / "such" / "dir.pcap")
