"""Wireshark's field values from long-lived sharkd processes instead of one tshark per capture.

tshark spends 0.35-0.4 s of CPU starting (registering every dissector) whatever the capture; the
command's tests ask it about 400 captures a run, most of a release build's test_cli.  sharkd (the
same dissectors, in wireshark-common beside tshark) starts once and loads capture after capture,
each load a new dissection session (reassembly and conversation state start empty, as in a new
tshark).  Its answers were compared with tshark's on every shared capture and corpus file (989
files, 4.0.17): the same verdicts in all, tshark's refusals refused alike.  test_verify's
SharkdAgrees keeps checking that on a sample.

Anything sharkd cannot answer as tshark would (missing, a refused file, a crash, a value it names
in a way not known here) returns None: the caller runs tshark itself.  INETCSUM_TSHARK_ONLY=1 runs
tshark for everything."""
import atexit
import json
import os
import queue
import shutil
import subprocess

# The checksum status fields' values as sharkd's columns name them (Wireshark's
# proto_checksum_vals) and as tshark -T fields prints them.
STATUS_NUMBER = {"Bad": "0", "Good": "1", "Unverified": "2", "Not present": "3", "Illegal": "4"}

_idle = {}  # prefs -> queue of sessions no thread is using
_started = []


class Session:
    """One sharkd process (JSON-RPC on its stdin and stdout) with PREFS set, as tshark's -o."""

    def __init__(self, prefs):
        self.proc = subprocess.Popen(["sharkd", "-"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.DEVNULL, text=True)
        self.next_id = 0
        _started.append(self)
        for pref in prefs:
            name, value = pref.split(":", 1)
            if "result" not in self.call("setconf", {"name": name, "value": value}):
                raise OSError(f"sharkd refused the preference {pref}")

    def call(self, method, params):
        self.next_id += 1  # (sharkd wants ids from 1)
        self.proc.stdin.write(json.dumps({"jsonrpc": "2.0", "id": self.next_id, "method": method,
                                          "params": params}) + "\n")
        self.proc.stdin.flush()
        while True:  # (a line per answer; none is sent unasked in this mode, but ids are checked)
            line = self.proc.stdout.readline()
            if not line:
                raise OSError(f"sharkd ended (exit status {self.proc.wait()})")
            answer = json.loads(line)
            if answer.get("id") == self.next_id:
                return answer

    def close(self):
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait()
        for f in (self.proc.stdin, self.proc.stdout):
            try:
                f.close()
            except OSError:
                pass


@atexit.register
def _close_all():
    for s in _started:
        s.close()


def fields(path, prefs, names, last=()):
    """What `tshark -n -r PATH -o PREF... -T fields -E occurrence=a -E separator=<tab>
    -E aggregator=, -e frame.number -e NAME...` prints, for checksum status fields (NAMES), or None
    where sharkd cannot say (the caller runs tshark).  A field in LAST gives its last occurrence
    only, where tshark prints them all (PGM's status field, which Wireshark also puts the checksum
    itself under: asking sharkd 4.0 for every occurrence aborts it)."""
    if os.environ.get("INETCSUM_TSHARK_ONLY") or not shutil.which("sharkd"):
        return None
    pool = _idle.setdefault(tuple(prefs), queue.SimpleQueue())
    try:
        session = pool.get_nowait()
    except queue.Empty:
        try:
            session = Session(prefs)
        except OSError:
            return None
    try:
        if "result" not in session.call("load", {"file": os.path.abspath(path)}):
            pool.put(session)
            return None  # (tshark says why)
        columns = {f"column{i}": f"{name}:{-1 if name in last else 0}" for i, name in enumerate(names)}
        answer = session.call("frames", columns)
    except (OSError, ValueError):
        session.close()  # (a crash on this capture: a new session for the next)
        return None
    pool.put(session)
    if "result" not in answer:
        return None
    lines = []
    for frame in answer["result"]:
        cells = [str(frame["num"])]
        for cell in frame["c"]:
            values = [v for v in cell.split(",") if v]
            if any(v not in STATUS_NUMBER for v in values):
                return None
            cells.append(",".join(STATUS_NUMBER[v] for v in values))
        lines.append("\t".join(cells) + "\n")
    return "".join(lines)
