"""Verifying many captures at once with Dask: a list of paths or URLs, spread over a dask.distributed
cluster (or this machine's threads), each capture read through fsspec so that ``s3://``, ``gs://``,
``az://`` or ``https://`` work once their filesystem package is installed (s3fs, gcsfs, adlfs).

    pip install "inetcsum[dask]"

    from dask.distributed import Client
    from inetcsum.distributed import verify_files

    client = Client("tcp://scheduler:8786")           # or LocalCluster(), or none: local threads
    result = verify_files(["s3://captures/2026/**/*.pcap.gz"], storage_options={"anon": False})
    print(result.table.sum(numeric_only=True))         # every file's counts, then the totals
    bad = result.table[result.table.problems > 0]

Each capture is streamed from its store into the C reader through a pipe (nothing is written to
the worker's disk, whatever the capture's size) and judged exactly as ``inetcsum verify`` and
``Capture.verify()`` judge it.  Requires dask (with distributed for a cluster), pandas and fsspec:
the ``dask`` extra."""
from __future__ import annotations

import errno
import os
import threading
from typing import Any, Dict, List, NamedTuple, Optional, Sequence, Tuple, Union

from .capture import Capture, CaptureCheck, Summary, Undecoded

__all__ = ["FileReport", "DistributedResult", "verify_files", "expand"]

# The columns of the table, in order (every Status and the Summary's counts).
COLUMNS = ["path", "status", "error", "frames", "checksums", "good", "bad", "partial", "absent", "illegal",
           "unverifiable", "problems", "truncated", "reassembled", "incomplete", "undecoded", "unfollowed", "quoted",
           "cut"]


class FileReport(NamedTuple):
    """One capture's verdict: its Summary (None when it could not be read: error says why), the
    problems found (at most max_problems of them, in verify()'s order; problems_total counts all),
    and the exit status ``inetcsum verify`` would give it alone (0, 1, 2 or 3)."""

    path: str
    summary: Optional[Summary]
    problems: List[Union[CaptureCheck, Undecoded]]
    problems_total: int
    status: int
    error: Optional[str] = None


class DistributedResult(NamedTuple):
    """Every file's report, in the order given, and the table: a row per file (pandas)."""

    reports: List[FileReport]
    table: Any  # pandas.DataFrame, one row per file, COLUMNS

    @property
    def status(self) -> int:
        """The run's exit status by the command's rule: 2 over 3 over 1 over 0."""
        rank = {0: 0, 1: 1, 3: 2, 2: 3}
        return max((r.status for r in self.reports), key=lambda s: rank[s], default=0)


def expand(paths: Union[str, Sequence[str]], storage_options: Optional[Dict[str, Any]] = None) -> List[str]:
    """The captures a list of paths, URLs and glob patterns ("s3://bucket/**/*.pcap") names, as
    fsspec expands them, each with its protocol ("file" paths stay local paths).  A pattern that
    matches nothing raises FileNotFoundError naming it: a mistyped bucket or glob is not "nothing
    to check".  (A plain path is kept as given: reading it says whether it is there.)"""
    return [url for url, _ in _expand_sized(paths, storage_options)]


def _expand_sized(paths: Union[str, Sequence[str]], storage_options: Optional[Dict[str, Any]]) -> List[Tuple[str, int]]:
    """expand(), each with its size (from the listing: no extra request per file)."""
    import fsspec  # type: ignore[import-untyped, unused-ignore]

    if isinstance(paths, str):
        paths = [paths]
    out: List[Tuple[str, int]] = []
    for p in paths:
        fs, _, found = fsspec.get_fs_token_paths(p, storage_options=storage_options or {})
        if not found:
            raise FileNotFoundError(errno.ENOENT, "no file matches this pattern", p)
        protocol = fs.protocol if isinstance(fs.protocol, str) else fs.protocol[0]
        for f in sorted(found):
            try:
                size = int(fs.size(f) or 0) if protocol in ("file", "local", "memory") else 0
            except OSError:
                size = 0  # said when it is read
            out.append((f if protocol in ("file", "local") else f"{protocol}://{f}", size))
    return out


def _chunks(sized: List[Tuple[str, int]], slots: int) -> List[List[str]]:
    """The files in runs of about equal bytes, four runs per slot (a task costs a scheduler about a
    millisecond: a task per small capture would cost more than verifying it); sizes unknown (0)
    count as one run each."""
    if not sized:
        return []
    total = sum(size for _, size in sized)
    if total == 0:
        per = max(1, len(sized) // (4 * slots))
        return [[u for u, _ in sized[i:i + per]] for i in range(0, len(sized), per)]
    target = max(1, total // (4 * slots))
    runs: List[List[str]] = []
    run: List[str] = []
    have = 0
    for url, size in sized:
        if run and have + size > target:
            runs.append(run)
            run, have = [], 0
        run.append(url)
        have += size
    runs.append(run)
    return runs


def _verify_run(urls: List[str], storage_options: Optional[Dict[str, Any]], udp6_zero_ok: bool, reassemble: bool,
                unfollowed_ok: bool, max_problems: int) -> List[FileReport]:
    """A task: several captures, one after another."""
    return [verify_one(u, storage_options, udp6_zero_ok, reassemble, unfollowed_ok, max_problems) for u in urls]


def _stream_into_pipe(url: str, storage_options: Optional[Dict[str, Any]], write_fd: int,
                      failure: List[BaseException]) -> None:
    """Copies the object at url into the pipe, then closes it (run on a thread of its own)."""
    import fsspec  # type: ignore[import-untyped, unused-ignore]

    try:
        with fsspec.open(url, "rb", compression=None, **(storage_options or {})) as src, \
                os.fdopen(write_fd, "wb", closefd=True) as dst:
            while True:
                chunk = src.read(1 << 20)
                if not chunk:
                    break
                dst.write(chunk)
    except BrokenPipeError:
        pass  # the reader stopped (a corrupt capture): its error says why
    except BaseException as e:  # noqa: BLE001 - reported with the file
        failure.append(e)
        try:
            os.close(write_fd)
        except OSError:
            pass


def _why(e: BaseException, url: str) -> str:
    """An error as a person reads it, without the file's name (the report's path column holds
    it; the C reader's messages start with the name it was opened by): the OS's words where there
    are some ("No such file or directory"), else the exception's name and text."""
    if isinstance(e, FileNotFoundError):
        return "No such file or directory"
    if isinstance(e, OSError) and e.strerror:
        return e.strerror
    text = str(e)
    for name in (url, url[len("file://"):] if url.startswith("file://") else url):
        if text.startswith(name + ": "):
            text = text[len(name) + 2:]
            break
    else:
        if text.startswith("/dev/fd/") and ": " in text:  # (a streamed file, read through a pipe)
            text = text.split(": ", 1)[1]
    return f"{type(e).__name__}: {text}" if not isinstance(e, ValueError) else text


def verify_one(url: str, storage_options: Optional[Dict[str, Any]] = None, udp6_zero_ok: bool = False,
               reassemble: bool = True, unfollowed_ok: bool = False, max_problems: int = 1000) -> FileReport:
    """One capture, as a task runs it: a local path is read directly, anything else streamed."""
    local = "://" not in url or url.startswith("file://")
    failure: List[BaseException] = []
    thread = None
    try:
        if local:
            cap = Capture(url[len("file://"):] if url.startswith("file://") else url)
        else:
            r, w = os.pipe()
            thread = threading.Thread(target=_stream_into_pipe, args=(url, storage_options, w, failure), daemon=True)
            thread.start()
            try:
                cap = Capture(f"/dev/fd/{r}")
            finally:
                os.close(r)  # the reader holds its own descriptor now (or failed)
        problems: List[Union[CaptureCheck, Undecoded]] = []
        total = 0
        try:
            with cap:
                for item in cap.verify(udp6_zero_ok=udp6_zero_ok, reassemble=reassemble, unfollowed_ok=unfollowed_ok,
                                       problems_only=True):
                    total += 1
                    if len(problems) < max_problems:
                        problems.append(item)
        except ValueError as e:  # a corrupt record: the frames before it were judged
            return FileReport(url, cap.summary, problems, total, 2, _why(e, url))
        if thread is not None:
            thread.join()
        if failure:
            return FileReport(url, None, problems, total, 2, _why(failure[0], url))
        s = cap.summary
        assert s is not None
        status = 3 if s.cut is not None else 1 if s.problems else 0
        return FileReport(url, s, problems, total, status)
    except (OSError, ValueError) as e:
        if thread is not None:
            thread.join(timeout=5)
        why = failure[0] if failure else e
        return FileReport(url, None, [], 0, 2, _why(why, url))


def _row(r: FileReport) -> Dict[str, Any]:
    s = r.summary
    row: Dict[str, Any] = {"path": r.path, "status": r.status, "error": r.error}
    if s is None:
        row.update({c: 0 for c in COLUMNS if c not in row})
        row["cut"] = False
        return row
    statuses = {k.value: v for k, v in s.statuses.items()}
    row.update(frames=s.frames, checksums=s.checksums, problems=s.problems, truncated=s.truncated,
               reassembled=s.reassembled, incomplete=s.incomplete, undecoded=s.undecoded,
               unfollowed=s.unfollowed, quoted=s.quoted, cut=s.cut is not None)
    for name in ("good", "bad", "partial", "absent", "illegal", "unverifiable"):
        row[name] = statuses.get(name, 0)
    return row


def table(reports: Sequence[FileReport]) -> Any:
    """The reports as a pandas DataFrame: a row per file, COLUMNS."""
    import pandas as pd  # type: ignore[import-untyped, unused-ignore]  # (without pandas-stubs)

    return pd.DataFrame([_row(r) for r in reports], columns=COLUMNS)


def verify_files(
    paths: Union[str, Sequence[str]],
    *,
    client: Any = None,
    storage_options: Optional[Dict[str, Any]] = None,
    udp6_zero_ok: bool = False,
    reassemble: bool = True,
    unfollowed_ok: bool = False,
    max_problems: int = 1000,
) -> DistributedResult:
    """Verifies every capture paths names (paths, URLs, glob patterns: expand()), a Dask task each:
    on client's cluster when given (a dask.distributed Client), else on the Client already active,
    else on dask's local scheduler in this process (its threads share the interpreter: for several
    CPUs at once, start a Client).  Returns every file's FileReport, in order, and the table."""
    from dask.base import compute
    from dask.delayed import delayed

    sized = _expand_sized(paths, storage_options)
    slots = os.cpu_count() or 1
    active = client
    if active is None:
        try:
            from distributed import get_client

            active = get_client()
        except (ImportError, ValueError):
            active = None
    if active is not None:
        slots = max(1, sum(active.nthreads().values()))
    tasks = [delayed(_verify_run, pure=False)(run, storage_options, udp6_zero_ok, reassemble, unfollowed_ok,
                                                   max_problems) for run in _chunks(sized, slots)]
    if client is not None:
        runs = client.gather(client.compute(tasks))
    else:
        runs = compute(*tasks)  # type: ignore[no-untyped-call]
    reports = [r for run in runs for r in run]
    return DistributedResult(reports, table(reports))
