#!/usr/bin/env python3
"""The Python package's speed (README, "Python"; docs/python.md): inetcsum.checksum against
scapy.utils.checksum (what Python packet tools use today) from 0 B to 64 KiB, verifying a frame
against scapy's way of doing it, the cost of a call, and how threads scale on large buffers.

Each round times every contender once, in a rotating order, so a noisy spell hits them all; the
figure is the median over rounds of the time per call (timeit, many calls per sample).

    bench/python_speed.py [--rounds 15] [--quick]
"""
import argparse
import os
import statistics
import sys
import threading
import time
import timeit
import zlib

import inetcsum

try:
    import scapy.utils
    from scapy.all import IP, TCP, Ether
except ImportError:
    sys.exit("python_speed: needs scapy (pip install scapy)")

SIZES = [0, 20, 40, 64, 256, 576, 1500, 4096, 9000, 65536]


def per_call_ns(stmt, env, budget):
    """Nanoseconds per call of stmt, timing enough calls to fill about `budget` seconds."""
    timer = timeit.Timer(stmt, globals=env)
    n, took = 1, timer.timeit(1)
    while took < budget / 4:
        n *= 4
        took = timer.timeit(n)
    n = max(1, int(n * budget / max(took, 1e-9)))
    return timer.timeit(n) / n * 1e9


def interleaved(contenders, rounds, budget):
    """{name: median ns per call} over rounds, the order rotating each round."""
    samples = {name: [] for name in contenders}
    names = list(contenders)
    for r in range(rounds):
        for name in names[r % len(names) :] + names[: r % len(names)]:
            stmt, env = contenders[name]
            samples[name].append(per_call_ns(stmt, env, budget))
    return {name: statistics.median(s) for name, s in samples.items()}


def sizes_table(rounds, budget):
    print("| size (B) | inetcsum.checksum (ns) | scapy.utils.checksum (ns) | scapy / inetcsum |")
    print("|---:|---:|---:|---:|")
    ratios = {}
    for size in SIZES:
        data = os.urandom(size)
        assert inetcsum.checksum(data) == scapy.utils.checksum(data)
        env = {"ours": inetcsum.checksum, "scapy": scapy.utils.checksum, "d": data}
        t = interleaved({"ours": ("ours(d)", env), "scapy": ("scapy(d)", env)}, rounds, budget)
        ratios[size] = t["scapy"] / t["ours"]
        print(f"| {size} | {t['ours']:.0f} | {t['scapy']:.0f} | {ratios[size]:.0f}x |")
    return ratios


def scapy_verify(wire):
    """How a scapy user checks a frame's checksums: dissect, rebuild with them deleted, compare."""
    p = Ether(wire)
    fresh = p.copy()
    del fresh[IP].chksum
    del fresh[TCP].chksum
    fresh = Ether(bytes(fresh))
    return p[IP].chksum == fresh[IP].chksum and p[TCP].chksum == fresh[TCP].chksum


def frames_table(rounds, budget):
    print("\n| verify one Ethernet/IPv4/TCP frame | inetcsum.verify (ns) | scapy: dissect, rebuild, compare (ns) | ratio |")
    print("|---|---:|---:|---:|")
    for size in (64, 1500):
        eth = Ether(src="02:00:00:00:00:01", dst="02:00:00:00:00:02")  # (no ARP lookup by scapy)
        wire = bytes(eth / IP(src="192.0.2.1", dst="192.0.2.2") / TCP() / bytes(size - 54))
        assert inetcsum.verify(wire).ok and scapy_verify(wire)
        env = {"verify": inetcsum.verify, "scapy_verify": scapy_verify, "w": wire}
        t = interleaved({"ours": ("verify(w)", env), "scapy": ("scapy_verify(w)", env)}, rounds, budget)
        print(f"| {size} B | {t['ours']:.0f} | {t['scapy']:.0f} | {t['scapy'] / t['ours']:.0f}x |")


def overhead_table(rounds, budget):
    env = {
        "checksum": inetcsum.checksum, "partial": inetcsum.partial, "verify": inetcsum.verify,
        "adler32": zlib.adler32, "e": b"", "ba": bytearray(40), "mv": memoryview(bytes(100))[10:50],
    }
    t = interleaved({
        "len(b'')": ("len(e)", env),
        "zlib.adler32(b'')": ("adler32(e)", env),
        "checksum(b'')": ("checksum(e)", env),
        "checksum(bytearray(40))": ("checksum(ba)", env),
        "checksum(memoryview slice, 40 B)": ("checksum(mv)", env),
        "partial(b'', 0)": ("partial(e, 0)", env),
        "partial(b'', seed=0)": ("partial(e, seed=0)", env),
        "verify(b'') (a Report flagged NOT_IP)": ("verify(e)", env),
    }, rounds, budget)
    print("\n| call | ns |")
    print("|---|---:|")
    for name, ns in t.items():
        print(f"| {name} | {ns:.0f} |")


def threads_table(repeats):
    # Buffers that stay in the shared L3 cache, so the threads do not just wait on memory.
    bufs = [os.urandom(1 << 20) for _ in range(2)]

    def work(buf, n):
        for _ in range(n):
            inetcsum.checksum(buf)

    def run(nthreads):
        threads = [threading.Thread(target=work, args=(bufs[i], repeats // nthreads)) for i in range(nthreads)]
        t0 = time.perf_counter()
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        return time.perf_counter() - t0

    one = statistics.median(run(1) for _ in range(5))
    two = statistics.median(run(2) for _ in range(5))
    gb = repeats * (1 << 20) / 1e9
    print(f"\nthreads, {repeats} checksums of 1 MiB: 1 thread {gb / one:.1f} GB/s, 2 threads {gb / two:.1f} GB/s "
          f"({one / two:.2f}x on {os.cpu_count()} CPUs)")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rounds", type=int, default=15)
    ap.add_argument("--quick", action="store_true", help="fewer, shorter samples: a check that it runs")
    args = ap.parse_args()
    rounds, budget = (3, 0.005) if args.quick else (args.rounds, 0.02)
    print(f"inetcsum {inetcsum.__version__} (kernel {inetcsum.impl_name()}), Python {sys.version.split()[0]}, "
          f"scapy {scapy.VERSION}, {os.cpu_count()} CPUs; medians of {rounds} interleaved rounds\n")
    sizes_table(rounds, budget)
    frames_table(rounds, budget)
    overhead_table(rounds, budget)
    threads_table(200 if args.quick else 4000)


if __name__ == "__main__":
    main()
