#!/usr/bin/env python3
"""The inetcsum command's speed against cp and tcprewrite --fixcsum (README, "The inetcsum command").

Generates a capture with `inetcsum gen` in a tmpfs directory, then runs the contenders in
interleaved rounds (each round runs every contender once, in a rotating order, so a noisy spell
hits them all), every output written to a fresh file.  Prints the median wall time of each, its
spread, its ratios to cp and to tcprewrite, and its peak memory; then the peak memory of verify
and fix on a capture 16 times smaller, to show it does not grow with the file.  `fix --in-place`
and `verify` (the pair compared) each run on a fresh copy of the capture (the copy is not timed).

    bench/cli_speed.py --cli build/cli/inetcsum [--size 256M] [--bad 1%] [--rounds 9] [--dir /dev/shm]
                       [--fragment P%] [--mtu N] [--frame-size N]
"""
import argparse
import os
import shutil
import statistics
import subprocess
import sys
import time

TIME = "/usr/bin/time"  # GNU time (Debian package "time")


def run(argv, rss_file):
    """Wall seconds and peak resident KiB of one command; its output discarded.  The peak comes
    from GNU time: a child of this Python would count the Python's own pages until its exec."""
    quiet = [(os.POSIX_SPAWN_OPEN, 1, os.devnull, os.O_WRONLY, 0),
             (os.POSIX_SPAWN_OPEN, 2, os.devnull, os.O_WRONLY, 0)]
    timed = [TIME, "-f", "%M", "-o", rss_file] + argv
    t0 = time.perf_counter()
    pid = os.posix_spawn(timed[0], timed, os.environ, file_actions=quiet)
    _, status, _ = os.wait4(pid, 0)
    elapsed = time.perf_counter() - t0
    code = os.waitstatus_to_exitcode(status)
    if code not in (0, 1):
        sys.exit(f"cli_speed: {' '.join(argv)} exited {code}")
    with open(rss_file) as f:
        return elapsed, int(f.read().split()[-1])


def contenders(cli, capture, out):
    c = {
        "cp": [shutil.which("cp"), capture, out],
        "inetcsum verify": [cli, "verify", "--quiet", out],  # out: a fresh copy, as fix --in-place gets
        "inetcsum fix": [cli, "fix", "--quiet", capture, out],
        "inetcsum fix --in-place": [cli, "fix", "--in-place", "--quiet", out],  # out: a fresh copy
    }
    tcprewrite = shutil.which("tcprewrite")
    if tcprewrite:
        c["tcprewrite --fixcsum"] = [tcprewrite, "--fixcsum", "-i", capture, "-o", out]
    return c


def measure(cli, capture, out, rounds):
    rss_file = out + ".rss"
    runs = contenders(cli, capture, out)
    names = list(runs)
    times = {n: [] for n in names}
    rss = {n: 0 for n in names}
    for r in range(rounds):
        order = names[r % len(names):] + names[:r % len(names)]
        for n in order:
            if os.path.exists(out):
                os.unlink(out)
            # fix --in-place and verify, the pair compared, each read a copy just made (not timed):
            # on the Zen 5 guest the first process to read a freshly written 256 MiB tmpfs file took
            # 60 ms to verify it and the next 50, so verify reading the original while in place got
            # a fresh copy made in place look 1.59x verify where it was 1.09x.
            if "--in-place" in runs[n] or runs[n][1] == "verify":
                shutil.copyfile(capture, out)
            t, m = run(runs[n], rss_file)
            times[n].append(t)
            rss[n] = max(rss[n], m)
    if os.path.exists(out):
        os.unlink(out)
    return times, rss


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--cli", required=True, help="the inetcsum command")
    ap.add_argument("--size", default="256M", help="capture size for `inetcsum gen --size` (default 256M)")
    ap.add_argument("--rounds", type=int, default=9)
    ap.add_argument("--dir", default="/dev/shm", help="a tmpfs directory (default /dev/shm)")
    ap.add_argument("--bad", default="1%", help="frames with a wrong checksum, as `inetcsum gen --bad` (default 1%%)")
    ap.add_argument("--fragment", default="0%",
                    help="share of datagrams sent as IP fragments, as `inetcsum gen --fragment` (default 0%%)")
    ap.add_argument("--mtu", type=int, default=0,
                    help="cut datagrams longer at it, as a host does (`inetcsum gen --mtu`; default: none)")
    ap.add_argument("--frame-size", type=int, default=0,
                    help="every frame this long, as `inetcsum gen --frame-size` (default: 60, 590 and 1514 as 7:4:1)")
    args = ap.parse_args()
    if not os.access(TIME, os.X_OK):
        sys.exit(f"cli_speed: needs GNU time at {TIME} (apt-get install time)")

    work = os.path.join(args.dir, f"inetcsum-cli-speed-{os.getpid()}")
    os.makedirs(work)
    try:
        capture = os.path.join(work, "in.pcap")
        small = os.path.join(work, "small.pcap")
        out = os.path.join(work, "out.pcap")
        gen = [args.cli, "gen", "--quiet", "--mix", "common", "--bad", args.bad, "--fragment", args.fragment]
        gen += ["--mtu", str(args.mtu)] if args.mtu else []
        gen += ["--frame-size", str(args.frame_size)] if args.frame_size else []
        subprocess.run(gen + ["--size", args.size, capture], check=True)
        size = os.path.getsize(capture)
        subprocess.run(gen + ["--size", str(size // 16), small], check=True)

        times, rss = measure(args.cli, capture, out, args.rounds)
        med = {n: statistics.median(t) for n, t in times.items()}
        impls = subprocess.run([args.cli, "impls"], capture_output=True, text=True).stdout
        active = [line.split()[0] for line in impls.splitlines() if line.endswith("in use")]
        shape = (f"{args.frame_size}-byte frames" if args.frame_size else "60, 590 and 1514-byte frames") + \
            (f" cut at an MTU of {args.mtu}" if args.mtu else "")
        print(f"capture: {size / 2**20:.0f} MiB of {shape} ({args.bad} of frames with a wrong checksum, "
              f"{args.fragment} of datagrams fragmented at random), {args.rounds} "
              f"interleaved rounds, in {args.dir}; "
              f"checksum kernel {active[0] if active else '?'}")
        print(f"{'':22} {'median s':>9} {'min':>7} {'max':>7} {'MB/s':>7} {'x cp':>6} {'x tcprewrite':>13} {'peak RSS':>9}")
        for n in times:
            ratio_tr = f"{med[n] / med['tcprewrite --fixcsum']:.2f}" if "tcprewrite --fixcsum" in med else "-"
            print(f"{n:22} {med[n]:9.3f} {min(times[n]):7.3f} {max(times[n]):7.3f} {size / med[n] / 1e6:7.0f} "
                  f"{med[n] / med['cp']:6.2f} {ratio_tr:>13} {rss[n]:>6} KiB")
        spread = max((max(t) - min(t)) / statistics.median(t) for t in times.values())
        if spread > 1.0:
            print(f"note: the machine was noisy (a contender's times spread over {spread:.0%} of its median)")

        _, small_rss = measure(args.cli, small, out, 1)
        print(f"peak RSS on a {size // 16 / 2**20:.0f} MiB capture: verify {small_rss['inetcsum verify']} KiB, "
              f"fix {small_rss['inetcsum fix']} KiB (on {size / 2**20:.0f} MiB: {rss['inetcsum verify']}, "
              f"{rss['inetcsum fix']})")
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
