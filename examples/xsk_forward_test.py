#!/usr/bin/env python3
"""The AF_XDP forwarder between two veth pairs, the kernel's stack at both ends: hosts A and B in
network namespaces of their own, xsk_forward in a third between them.  A and B send with checksum
offload on (veth's default), so what reaches the forwarder's sockets holds only the pseudo-header
seed: nobody fills it unless the forwarder does.  ping, UDP datagrams of many sizes (their
payloads read back) and a TCP transfer (iperf3) cross it; B's and A's counters must show no
checksum error.  Twice: --software (every checksum computed by libinetcsum_xsk), and through the
TX metadata with the egress veth's TX checksum offload off, so that the kernel's generic path
completes what the metadata asks before the peer checks it.

usage: xsk_forward_test.py XSK_FORWARD
Exit 77 (skipped) without root, namespaces, veth or AF_XDP."""
import os
import random
import re
import shutil
import subprocess
import sys
import time

failed, passed = [], []
NS = {"a": "ics-xa", "f": "ics-xf", "b": "ics-xb"}


def check(cond, what):
    print(("ok   " if cond else "FAIL ") + what)
    (passed if cond else failed).append(what)


def sh(cmd, ns=None, check_rc=True, **kw):
    args = (["ip", "netns", "exec", NS[ns]] if ns else []) + cmd
    p = subprocess.run(args, capture_output=True, text=True, check=False, **kw)
    if check_rc and p.returncode != 0:
        raise RuntimeError(f"{' '.join(args)}: {p.stderr.strip()}")
    return p


def counters(ns):
    """{'TcpInCsumErrors': n, 'UdpInCsumErrors': n, 'Udp6InCsumErrors': n, ...} of a namespace."""
    out = {}
    snmp = sh(["cat", "/proc/net/snmp"], ns).stdout.splitlines()
    for head, vals in zip(snmp[0::2], snmp[1::2]):
        proto = head.split(":")[0]
        for k, v in zip(head.split()[1:], vals.split()[1:]):
            out[proto + k] = int(v)
    for line in sh(["cat", "/proc/net/snmp6"], ns).stdout.splitlines():
        k, v = line.split()
        out[k] = int(v)
    return out


def setup():
    teardown()
    for ns in NS.values():
        sh(["ip", "netns", "add", ns])
    sh(["ip", "link", "add", "a0", "netns", NS["a"], "type", "veth", "peer", "name", "a1", "netns", NS["f"]])
    sh(["ip", "link", "add", "b0", "netns", NS["b"], "type", "veth", "peer", "name", "b1", "netns", NS["f"]])
    for ns, dev, v4, v6 in (("a", "a0", "10.88.0.1/24", "fd88::1/64"), ("b", "b0", "10.88.0.2/24", "fd88::2/64")):
        sh(["ip", "link", "set", "lo", "up"], ns)
        sh(["ip", "link", "set", dev, "up"], ns)
        sh(["ip", "addr", "add", v4, "dev", dev], ns)
        sh(["ip", "-6", "addr", "add", v6, "dev", dev, "nodad"], ns)
    for dev in ("a1", "b1"):
        sh(["ip", "link", "set", dev, "up"], "f")


def teardown():
    for ns in NS.values():
        subprocess.run(["ip", "netns", "del", ns], capture_output=True, check=False)


UDP_SERVER = r"""
import socket, sys
s = socket.socket(socket.AF_INET6 if ':' in sys.argv[1] else socket.AF_INET, socket.SOCK_DGRAM)
s.bind((sys.argv[1], 9000)); s.settimeout(3)
got = []
try:
    while True:
        got.append(s.recv(65536))
except socket.timeout:
    pass
sys.stdout.write(" ".join(str(len(g)) + ":" + str(sum(g) % 65521) for g in got))
"""

UDP_CLIENT = r"""
import socket, sys, random
r = random.Random(int(sys.argv[2]))
s = socket.socket(socket.AF_INET6 if ':' in sys.argv[1] else socket.AF_INET, socket.SOCK_DGRAM)
sent = []
for i in range(int(sys.argv[3])):
    data = r.randbytes(r.choice([0, 1, 17, 100, 511, 1000, r.randrange(1, 1400)]))
    s.sendto(data, (sys.argv[1], 9000)); sent.append(data)
sys.stdout.write(" ".join(str(len(g)) + ":" + str(sum(g) % 65521) for g in sent))
"""


def traffic(label):
    """ping, UDP over IPv4 and IPv6, a TCP transfer, A to B; what B and A counted."""
    before = {ns: counters(ns) for ns in ("a", "b")}
    if shutil.which("ping"):
        p = sh(["ping", "-c", "3", "-i", "0.2", "-W", "2", "10.88.0.2"], "a", check_rc=False)
        check(p.returncode == 0, f"{label}: ping A to B through the forwarder")
    else:
        print(f"skipped {label}: ping: no ping here (Debian: iputils-ping)")
    for dst in ("10.88.0.2", "fd88::2"):
        server = subprocess.Popen(["ip", "netns", "exec", NS["b"], sys.executable, "-c", UDP_SERVER, dst],
                                  stdout=subprocess.PIPE, text=True)
        time.sleep(0.5)
        sent = sh([sys.executable, "-c", UDP_CLIENT, dst, "38", "150"], "a").stdout
        got = server.communicate(timeout=30)[0]
        # (in any order: UDP keeps none, and the first datagrams wait for neighbour discovery)
        check(sorted(got.split()) == sorted(sent.split()),
              f"{label}: UDP to {dst}: {len(got.split())} of {len(sent.split())} datagrams, payloads as sent")
    if shutil.which("iperf3"):
        server = subprocess.Popen(["ip", "netns", "exec", NS["b"], "iperf3", "-s", "-1"],
                                  stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        time.sleep(0.5)
        p = sh(["iperf3", "-c", "10.88.0.2", "-t", "2", "-J"], "a", check_rc=False)
        server.wait(timeout=30)
        m = re.search(r'"sum_received":\s*{[^}]*"bytes":\s*(\d+)', p.stdout)
        check(p.returncode == 0 and m and int(m.group(1)) > 100000,
              f"{label}: TCP (iperf3, 2 s): {m.group(1) if m else '?'} bytes received")
    else:
        print(f"skipped {label}: TCP: no iperf3")
    for ns in ("a", "b"):
        after = counters(ns)
        errs = {k: after[k] - before[ns][k] for k in ("TcpInCsumErrors", "UdpInCsumErrors", "Udp6InCsumErrors",
                                                      "IcmpInCsumErrors")}
        check(not any(errs.values()), f"{label}: host {ns.upper()} counted no checksum error {errs}")


def main():
    if len(sys.argv) != 2:
        print(__doc__)
        return 2
    fwd = sys.argv[1]
    if os.geteuid() != 0:
        print("skipped example_xsk_forward: needs root (namespaces, veth, AF_XDP)")
        return 77
    try:
        setup()
    except (RuntimeError, FileNotFoundError) as e:
        print(f"skipped example_xsk_forward: no namespaces or veth here ({e})")
        teardown()
        return 77
    try:
        for label, args, tx_off in (("software", ["--software"], False), ("metadata", [], True)):
            for dev in ("a1", "b1"):
                sh(["ethtool", "-K", dev, "tx", "off" if tx_off else "on"], "f", check_rc=False)
            proc = subprocess.Popen(["ip", "netns", "exec", NS["f"], fwd, "a1", "b1", "--seconds", "60", *args],
                                    stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
            line = proc.stdout.readline()
            if "ready" not in line:
                out, err = proc.communicate(timeout=10)
                if proc.returncode == 77:
                    print(f"skipped example_xsk_forward: {err.strip()}")
                    return 77
                check(False, f"{label}: xsk_forward started ({line}{out}{err.strip()})")
                continue
            traffic(label)
            proc.terminate()
            out, err = proc.communicate(timeout=10)
            print(out.strip())
            check(proc.returncode == 0, f"{label}: xsk_forward exit {proc.returncode} {err.strip()}")
            by_device = [int(x) for x in re.findall(r"by device (\d+)", out)]
            if label == "software":
                check(by_device == [0, 0], f"{label}: nothing through the metadata")
            else:
                check(sum(by_device) > 0 and "copy mode" in out, f"{label}: checksums through the metadata "
                                                                 f"({by_device})")
    finally:
        teardown()
    print(f"{len(passed)} passed, {len(failed)} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
