"""inetcsum.distributed: many captures verified through Dask, each read through fsspec.  On a
LocalCluster of two worker processes, every file's report and the table's totals are those of
verifying each capture here, one after another; through fsspec's memory filesystem (the path s3://
and gs:// URLs take) the streamed captures give the same summaries as the files."""
import gzip
import os

import pytest

pytest.importorskip("dask", reason="needs dask (pip install 'inetcsum[dask]')")
pytest.importorskip("pandas", reason="needs pandas (pip install 'inetcsum[dask]')")
fsspec = pytest.importorskip("fsspec", reason="needs fsspec (pip install 'inetcsum[dask]')")
from scapy.layers.inet import IP, TCP, UDP  # noqa: E402
from scapy.layers.l2 import Ether  # noqa: E402
from scapy.utils import wrpcap  # noqa: E402

from inetcsum import Capture  # noqa: E402
from inetcsum.distributed import expand, verify_files  # noqa: E402

# Both addresses given: for a missing one scapy asks ARP (2 s a frame, answers differ by machine).
ETHER = Ether(src="02:00:00:00:00:01", dst="02:00:00:00:00:02")


def made_captures(d):
    """Captures of every outcome: good, with wrong checksums, cut inside its last record, gzip,
    not a capture at all."""
    paths = []
    for i in range(12):
        frames = [ETHER / IP(src="10.0.0.1", dst=f"10.0.1.{i}") / TCP(sport=1000 + k, dport=80,
                                                                        chksum=0x1234 if (k + i) % 5 == 0 else None)
                  / (b"x" * (10 + k)) for k in range(20 + i)]
        frames.append(ETHER / IP(src="10.0.0.1", dst="10.0.0.2") / UDP(sport=9999, dport=8888) / b"hello")
        p = d / f"c{i:02d}.pcap"
        wrpcap(str(p), frames)
        paths.append(p)
    raw = paths[3].read_bytes()
    paths[3].write_bytes(raw[:-7])  # cut
    gz = d / "c99.pcap.gz"
    gz.write_bytes(gzip.compress(paths[5].read_bytes()))
    paths.append(gz)
    junk = d / "junk.pcap"
    junk.write_bytes(b"this is not a capture")
    paths.append(junk)
    return paths


def here(path):
    """The summary verify gives in this process, or None when the file is not a capture."""
    try:
        cap = Capture(path)
    except ValueError:
        return None
    for _ in cap.verify():
        pass
    return cap.summary


def test_local_cluster_agrees_with_one_process(tmp_path):
    distributed = pytest.importorskip("distributed", reason="needs dask.distributed (pip install 'inetcsum[dask]')")
    paths = made_captures(tmp_path)
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as cluster, \
            distributed.Client(cluster) as client:
        result = verify_files([str(p) for p in paths], client=client)
    assert [r.path for r in result.reports] == [str(p) for p in paths]
    for p, r in zip(paths, result.reports):
        mine = here(p)
        assert r.summary == mine, p
        if mine is None:
            assert r.status == 2 and "not a pcap or pcapng file" in (r.error or "")
        else:
            assert r.status == (3 if mine.cut else 1 if mine.problems else 0), p
            assert r.problems_total == mine.problems and len(r.problems) == r.problems_total
            assert all(x.problem for x in r.problems)
    t = result.table
    assert list(t.path) == [str(p) for p in paths] and len(t) == len(paths)
    sums = [here(p) for p in paths]
    assert int(t.frames.sum()) == sum(s.frames for s in sums if s)
    assert int(t.problems.sum()) == sum(s.problems for s in sums if s)
    assert int(t.checksums.sum()) == sum(s.checksums for s in sums if s)
    assert int(t.cut.sum()) == 1 and result.status == 2  # the junk file: 2 over the cut's 3


def test_streamed_through_fsspec(tmp_path):
    """memory:// stands for any remote store: the bytes come through fsspec and a pipe."""
    paths = [p for p in made_captures(tmp_path) if p.name != "junk.pcap"]
    mem = fsspec.filesystem("memory")
    for p in paths:
        mem.pipe(f"/inetcsum-test/{p.name}", p.read_bytes())
    urls = expand("memory://inetcsum-test/*")
    assert urls == [f"memory:///inetcsum-test/{p.name}" for p in sorted(paths)]
    result = verify_files(urls)  # no client: this process's threads
    by_name = {os.path.basename(r.path): r for r in result.reports}
    for p in paths:
        assert by_name[p.name].summary == here(p), p.name
    missing = verify_files(["memory:///inetcsum-test/absent.pcap"]).reports
    assert [(r.status, r.error) for r in missing] == [(2, "No such file or directory")]


def test_errors_name_nothing_twice_and_empty_globs_raise(tmp_path):
    """A report's error never repeats its path (the path column holds it: it read
    '/x/notcap.pcap: /x/notcap.pcap: not a pcap or pcapng file'), and a glob that matches nothing
    raises, naming it, where it gave an empty table (issue 37, item 7)."""
    junk = tmp_path / "notcap.pcap"
    junk.write_bytes(b"not a capture\n")
    (report,) = verify_files([str(junk)]).reports
    assert (report.status, report.error) == (2, "not a pcap or pcapng file")
    (report,) = verify_files([str(tmp_path / "absent.pcap")]).reports
    assert (report.status, report.error) == (2, "No such file or directory")
    with pytest.raises(FileNotFoundError, match="no file matches"):
        verify_files([str(tmp_path / "nonexist" / "**" / "*.pcap")])
    with pytest.raises(FileNotFoundError, match="no file matches"):
        expand("memory://inetcsum-no-such-bucket/*.pcap")
