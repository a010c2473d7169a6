"""The command's recorded behaviour: what verify, fix and segment print and write, held byte for byte.

For every input capture the command is run in several ways (verify as text and as JSON with its
options, fix with its options and in place, segment at two MTUs), and the SHA-256 of each run's exit
status, standard output, standard error and written file is compared with the one recorded in
tests/golden/<set>.tsv.  A restructuring of the code must leave every one of them as it was; a change
of behaviour on purpose records them again (--update) in the same commit, which then shows it.

Input sets:
  gen       captures `inetcsum gen` writes (every kind of frame, fragments, jumbo frames, both
            formats, several seeds): always run, the project makes them itself
  fuzz      the capture reader's fuzz corpus (fuzz/corpus/capture): always run
  captures  ../shared/captures (the team's real captures): skipped by name when absent
  corpora   ../shared/corpora/tcpdump (tcpdump's regression captures): skipped by name when absent

Usage: golden.py INETCSUM [--shared DIR] [--sets a,b] [--runs a,b] [--update] [--save DIR] [--jobs N]
  --runs A,B  only these runs of each input (RUNS below; TSAN's build: the ones with a writer thread)
  --save DIR  also write every run's outputs under DIR, so that two trees' runs can be diffed
Exit status 0 all equal (or recorded), 1 some differ, 77 every set skipped."""
import argparse
import concurrent.futures
import hashlib
import os
import shutil
import subprocess
import sys
import tempfile

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
GOLDEN = os.path.join(REPO, "tests", "golden")

# The generated inputs: name -> `inetcsum gen` arguments (the seed fixes the bytes).
GEN = {
    "all-1.pcap": ["--frames", "1500", "--mix", "all", "--bad", "10%", "--seed", "1"],
    "all-2.pcapng": ["--frames", "1500", "--mix", "all", "--bad", "10%", "--seed", "2"],
    "frag-3.pcap": ["--frames", "800", "--mix", "all", "--bad", "5%", "--fragment", "30%", "--seed", "3"],
    "frag-4.pcapng": ["--frames", "800", "--mix", "all", "--bad", "20%", "--fragment", "50%", "--seed", "4"],
    "common-5.pcap": ["--frames", "600", "--mix", "common", "--bad", "50%", "--seed", "5"],
    "jumbo-6.pcap": ["--frames", "300", "--mix", "all", "--frame-size", "9018", "--bad", "10%", "--seed", "6"],
    "jumbo-7.pcapng": ["--frames", "300", "--mix", "common", "--frame-size", "4000", "--bad", "10%",
                       "--fragment", "10%", "--seed", "7"],
    "small-8.pcap": ["--frames", "400", "--mix", "all", "--frame-size", "60", "--bad", "30%", "--seed", "8"],
}

# The runs per input: variant name -> (arguments with IN/OUT placeholders, whether OUT is kept).
RUNS = {
    "verify": (["verify", "IN"], False),
    "verify-json": (["verify", "--json", "IN"], False),
    "verify-json-opts": (["verify", "--json", "--no-reassemble", "--udp6-zero-ok", "IN"], False),
    "fix": (["fix", "IN", "OUT"], True),
    "fix-all-verbose": (["fix", "--all", "--udp-zero=fill", "--verbose", "IN", "OUT"], True),
    "fix-in-place": (["fix", "--in-place", "COPY"], True),
    "segment": (["segment", "IN", "OUT"], True),
    "segment-576": (["segment", "--mtu", "576", "--udp-size", "500", "IN", "OUT"], True),
}


def digest(parts):
    h = hashlib.sha256()
    for p in parts:
        h.update(len(p).to_bytes(8, "little"))
        h.update(p)
    return h.hexdigest()[:24]  # 96 bits: ample to tell runs apart, a third of the file


def run_one(cli, src, name, variant, save):
    """Runs one variant on one input in a directory of its own; returns its digest."""
    args, keeps = RUNS[variant]
    with tempfile.TemporaryDirectory(prefix="golden-") as work:
        # The input under its own name, so that messages naming it read the same in every run.
        os.symlink(os.path.abspath(src), os.path.join(work, name))
        out = "out." + name
        argv = []
        for a in args:
            if a == "IN":
                argv.append(name)
            elif a == "OUT":
                argv.append(out)
            elif a == "COPY":
                out = "copy." + name
                shutil.copyfile(src, os.path.join(work, out))
                argv.append(out)
            else:
                argv.append(a)
        p = subprocess.run([cli, *argv], cwd=work, capture_output=True, stdin=subprocess.DEVNULL)
        written = b""
        if keeps:
            path = os.path.join(work, out)
            written = open(path, "rb").read() if os.path.exists(path) else b"(none)"
        parts = [str(p.returncode).encode(), p.stdout, p.stderr, written]
        if save:
            base = os.path.join(save, name + "." + variant)
            for suffix, data in zip(("rc", "stdout", "stderr", "out"), parts):
                with open(base + "." + suffix, "wb") as f:
                    f.write(data)
        return digest(parts)


def inputs(cli, set_name, shared, work):
    """(name, path) of a set's inputs, or a string saying why the set is skipped."""
    if set_name == "gen":
        found = []
        for name, args in GEN.items():
            path = os.path.join(work, name)
            subprocess.run([cli, "gen", "--quiet", *args, path], check=True)
            found.append((name, path))
        return found
    if set_name == "fuzz":
        d = os.path.join(REPO, "fuzz", "corpus", "capture")
    elif set_name == "captures":
        d = os.path.join(shared, "captures")
    else:
        d = os.path.join(shared, "corpora", "tcpdump")
    if not os.path.isdir(d):
        return f"{d} is missing (the team's shared/ folder is not beside the checkout)"
    found = []
    for root, _, files in os.walk(d):
        for f in files:
            if set_name in ("fuzz",) or f.endswith((".pcap", ".pcapng", ".cap", ".gz", ".zst", ".xz")):
                path = os.path.join(root, f)
                found.append((os.path.relpath(path, d).replace(os.sep, "__"), path))
    return sorted(found)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("cli")
    ap.add_argument("--shared", default=os.environ.get("INETCSUM_SHARED_DIR", os.path.join(REPO, "..", "shared")))
    ap.add_argument("--sets", default="gen,fuzz,captures,corpora")
    ap.add_argument("--runs", default=",".join(RUNS))
    ap.add_argument("--update", action="store_true")
    ap.add_argument("--save")
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    a = ap.parse_args()
    a.cli = os.path.abspath(a.cli)
    variants = a.runs.split(",")
    unknown = [v for v in variants if v not in RUNS]
    if unknown:
        ap.error(f"--runs: no run named {', '.join(unknown)} (there are {', '.join(RUNS)})")
    if a.update and len(variants) < len(RUNS):
        ap.error("--update records every run: leave out --runs")
    if a.save:
        os.makedirs(a.save, exist_ok=True)
    failed = ran = 0
    with tempfile.TemporaryDirectory(prefix="golden-in-") as work:
        for set_name in a.sets.split(","):
            found = inputs(a.cli, set_name, a.shared, work)
            if isinstance(found, str):
                print(f"golden {set_name}: skipped: {found}")
                continue
            ran += 1
            jobs = [(name, path, variant) for name, path in found for variant in variants]
            with concurrent.futures.ThreadPoolExecutor(a.jobs) as pool:
                got = list(pool.map(lambda j: run_one(a.cli, j[1], j[0], j[2], a.save), jobs))
            now = {(name, variant): h for (name, _, variant), h in zip(jobs, got)}
            record = os.path.join(GOLDEN, set_name + ".tsv")
            if a.update:
                os.makedirs(GOLDEN, exist_ok=True)
                with open(record, "w") as f:
                    f.write("# input\trun\tsha256 of exit status, stdout, stderr, written file (tests/golden.py)\n")
                    for (name, variant), h in sorted(now.items()):
                        f.write(f"{name}\t{variant}\t{h}\n")
                print(f"golden {set_name}: recorded {len(now)} runs of {len(found)} inputs")
                continue
            if not os.path.exists(record):
                print(f"golden {set_name}: FAILED: {record} was never recorded (--update)")
                failed += 1
                continue
            want = {}
            with open(record) as f:
                for line in f:
                    if not line.startswith("#"):
                        name, variant, h = line.rstrip("\n").split("\t")
                        if variant in variants or variant not in RUNS:  # (a run no longer made: said)
                            want[(name, variant)] = h
            diff = sorted(k for k in set(want) | set(now) if want.get(k) != now.get(k))
            for name, variant in diff[:40]:
                why = "not recorded" if (name, variant) not in want else \
                      "no longer an input" if (name, variant) not in now else "differs"
                print(f"golden {set_name}: {name} {variant}: {why}")
            if diff:
                print(f"golden {set_name}: FAILED: {len(diff)} of {len(want)} runs differ "
                      f"(--save DIR on both trees, then diff -r, shows how)")
                failed += 1
            else:
                print(f"golden {set_name}: {len(now)} runs of {len(found)} inputs identical")
    if ran == 0:
        return 77
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
