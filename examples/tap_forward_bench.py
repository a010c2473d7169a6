#!/usr/bin/env python3
"""iperf3 through examples/tap_forward between two network namespaces, in each of its modes: what
segmentation and coalescing in user space are worth to a VPN or virtual switch author.

    sudo examples/tap_forward_bench.py build/examples/tap_forward [--seconds 10] [--udp] [--vxlan]

Namespace "a" (10.88.0.1, TAP_A) runs the iperf3 client, "b" (10.88.0.2, TAP_B) the server; every
packet crosses tap_forward.  With --vxlan, iperf3 runs through a VXLAN device in each namespace
(10.89.0.1 to 10.89.0.2) over the TAPs: whole VXLAN super-packets cross the program where the
kernel has UDP-tunnel GSO (Linux 6.17+), wire-sized VXLAN frames where it has not.  Needs root,
/dev/net/tun, iproute2 and iperf3 (Debian: iperf3)."""
import argparse
import json
import os
import shutil
import subprocess
import sys
import time
import uuid

MODES = {
    "plain": "no offloads: a read and a write per 1500-byte packet",
    "segment": "TSO/USO super-packets from the sender split in user space, written one by one",
    "gso": "split, then coalesced again: super-packets both ways of the program",
}


def sh(*args, check=True):
    return subprocess.run(args, capture_output=True, text=True, check=check)


def run_mode(forward, mode, seconds, udp, vxlan):
    tag = uuid.uuid4().hex[:5]
    ns = {"a": f"tfa{tag}", "b": f"tfb{tag}"}
    taps = {"a": f"tfa{tag}", "b": f"tfb{tag}"}
    proc = server = None
    try:
        for n in ns.values():
            sh("ip", "netns", "add", n)
        proc = subprocess.Popen([forward, mode, taps["a"], taps["b"]], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                text=True)
        if proc.stdout.readline().strip() != "ready":
            raise RuntimeError(f"tap_forward did not start: {proc.stderr.read()}")
        for side, addr in (("a", "10.88.0.1"), ("b", "10.88.0.2")):
            sh("ip", "link", "set", taps[side], "netns", ns[side])
            sh("ip", "-n", ns[side], "addr", "add", f"{addr}/24", "dev", taps[side])
            sh("ip", "-n", ns[side], "link", "set", taps[side], "up")
            sh("ip", "-n", ns[side], "link", "set", "lo", "up")
        server_addr = "10.88.0.2"
        if vxlan:  # VXLAN over the TAPs, with its UDP checksum
            for side, remote, addr in (("a", "10.88.0.2", "10.89.0.1"), ("b", "10.88.0.1", "10.89.0.2")):
                sh("ip", "-n", ns[side], "link", "add", "vx0", "type", "vxlan", "id", "7", "dstport", "4789",
                   "remote", remote, "udpcsum")
                sh("ip", "-n", ns[side], "addr", "add", f"{addr}/24", "dev", "vx0")
                sh("ip", "-n", ns[side], "link", "set", "vx0", "up")
            server_addr = "10.89.0.2"
        server = subprocess.Popen(["ip", "netns", "exec", ns["b"], "iperf3", "-s", "-1", "-B", server_addr],
                                  stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        time.sleep(0.5)
        client = ["ip", "netns", "exec", ns["a"], "iperf3", "-c", server_addr, "-t", str(seconds), "-J"]
        if udp:
            client += ["-u", "-b", "0", "-l", "1400"]
        out = json.loads(sh(*client).stdout)
        end = out["end"]
        bps = (end["sum_received"] if "sum_received" in end else end["sum"])["bits_per_second"]
        return bps / 1e9
    finally:
        if server:
            server.kill()
        if proc:
            proc.terminate()
            try:
                _, err = proc.communicate(timeout=5)
                sys.stderr.write(err)
            except subprocess.TimeoutExpired:
                proc.kill()
        for n in ns.values():
            sh("ip", "netns", "del", n, check=False)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("forward", help="the tap_forward program")
    ap.add_argument("--seconds", type=int, default=10)
    ap.add_argument("--udp", action="store_true", help="UDP (iperf3 -u) instead of TCP")
    ap.add_argument("--vxlan", action="store_true", help="through a VXLAN device in each namespace")
    ap.add_argument("--modes", default=",".join(MODES))
    args = ap.parse_args()
    if os.geteuid() != 0 or not os.path.exists("/dev/net/tun") or not shutil.which("iperf3"):
        print("tap_forward_bench: needs root, /dev/net/tun and iperf3", file=sys.stderr)
        return 77
    rows = []
    for mode in args.modes.split(","):
        gbps = run_mode(args.forward, mode, args.seconds, args.udp, args.vxlan)
        rows.append((mode, gbps))
    base = rows[0][1]
    what = ("UDP" if args.udp else "TCP") + (" in VXLAN" if args.vxlan else "")
    print(f"\n| mode | {what} Gbit/s | x {rows[0][0]} | what crosses the program |")
    print("|---|---|---|---|")
    for mode, gbps in rows:
        print(f"| {mode} | {gbps:.2f} | {gbps / base:.2f} | {MODES[mode]} |")
    return 0 if all(g > 0 for _, g in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
