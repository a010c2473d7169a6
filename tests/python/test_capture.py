"""inetcsum.Capture, the C reader from Python, against scapy's readers on every shared capture
(frames, link types, lengths and timestamps), compressed forms against their plain ones, and cut
and broken files."""
import gzip
import lzma
import pathlib
import shutil
import subprocess

import pytest
from scapy.utils import RawPcapNgReader, RawPcapReader

import inetcsum
from inetcsum import Capture, Cut, Frame, Link


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
