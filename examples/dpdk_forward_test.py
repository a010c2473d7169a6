#!/usr/bin/env python3
"""The DPDK forwarder between net_pcap ports: a capture with checksums made wrong (inetcsum gen)
goes in through one port's rx_pcap, through dpdk_forward (TTL down by one, every checksum asked of
the egress port, TCP segmentation with --tso), and out through the other's tx_pcap.  net_pcap
offers no checksum or segmentation offload, so all of it is libinetcsum_dpdk's: what comes out must
verify clean by inetcsum verify and by tshark, every packet forwarded, every TCP segment at most
the MSS.  Jumbo frames arrive as mbuf chains (net_pcap chains what does not fit one mbuf).

usage: dpdk_forward_test.py DPDK_FORWARD INETCSUM
Exit 77 (skipped) when the EAL cannot start here; tshark's half is skipped by name without tshark."""
import os
import re
import shutil
import struct
import subprocess
import sys
import tempfile

EAL = ["--no-huge", "--no-pci", "--no-shconf", "-m", "512", "--log-level=3"]
failed = []
passed = []


def check(cond, what):
    print(("ok   " if cond else "FAIL ") + what)
    (passed if cond else failed).append(what)


def tshark_bad(path):
    """(bad checksums, good TCP checksums) by tshark, or None without tshark."""
    if not shutil.which("tshark"):
        return None
    prefs = ["-o", "ip.check_checksum:TRUE", "-o", "tcp.check_checksum:TRUE", "-o", "udp.check_checksum:TRUE"]

    def count(flt):
        out = subprocess.run(["tshark", "-r", path, *prefs, "-Y", flt], capture_output=True, text=True, check=False)
        return len(out.stdout.splitlines())

    return (count("ip.checksum.status==0 || tcp.checksum.status==0 || udp.checksum.status==0"),
            count("tcp.checksum.status==1"))


def run(fwd, cli, work, name, gen_args, fwd_args):
    src, out = os.path.join(work, name + ".in.pcap"), os.path.join(work, name + ".out.pcap")
    subprocess.run([cli, "gen", "--quiet", *gen_args, src], check=True)
    frames = int(re.search(r"(\d+) frames", subprocess.run([cli, "verify", src], capture_output=True, text=True,
                                                          check=False).stdout).group(1))
    p = subprocess.run([fwd, *EAL, f"--vdev=net_pcap0,rx_pcap={src},tx_pcap=/dev/null",
                        f"--vdev=net_pcap1,rx_pcap={os.path.join(work, 'empty.pcap')},tx_pcap={out}",
                        "--", "--idle-exit", "400", "--seconds", "30", "--keep-bad", *fwd_args],
                       capture_output=True, text=True, check=False)
    if p.returncode == 77:
        print("skipped example_dpdk_forward: the EAL did not start here:", p.stderr.strip())
        sys.exit(77)
    check(p.returncode == 0, f"{name}: dpdk_forward exit {p.returncode} {p.stderr.strip()}")
    print(p.stdout.strip())
    m = re.search(r"port 1: .*sent out: packets (\d+), .*segmented (\d+) into (\d+), refused (\d+), unsent (\d+), "
                  r"sent (\d+)", p.stdout)
    check(m is not None, f"{name}: the counters line")
    if not m:
        return
    packets, segmented, segments, refused, unsent, sent = map(int, m.groups())
    check(packets == frames and refused == 0 and unsent == 0,
          f"{name}: every frame forwarded ({packets} of {frames}, {refused} refused, {unsent} unsent)")
    check(sent == packets - segmented + segments, f"{name}: {sent} sent, {packets} packets, {segments} segments")
    v = subprocess.run([cli, "verify", out], capture_output=True, text=True, check=False)
    check(v.returncode == 0, f"{name}: inetcsum verify of what the port sent: {v.stdout.strip()}")
    if "--tso" in fwd_args:
        mss = int(fwd_args[fwd_args.index("--tso") + 1])
        check(segmented > 0, f"{name}: packets segmented ({segmented} into {segments})")
        # Every TCP payload at most the MSS (the frames' own lengths, read from the capture).
        with open(out, "rb") as f:
            data = f.read()
        at, biggest = 24, 0
        while at + 16 <= len(data):
            caplen = struct.unpack_from("<I", data, at + 8)[0]
            frame = data[at + 16:at + 16 + caplen]
            at += 16 + caplen
            ip = 14 if frame[12:14] in (b"\x08\x00", b"\x86\xdd") else 18
            v6 = frame[ip] >> 4 == 6
            proto = frame[ip + 6] if v6 else frame[ip + 9]
            if proto == 6:
                ihl = 40 if v6 else (frame[ip] & 15) * 4
                ip_len = (40 + struct.unpack_from(">H", frame, ip + 4)[0]) if v6 else struct.unpack_from(">H", frame, ip + 2)[0]
                biggest = max(biggest, ip_len - ihl - (frame[ip + ihl + 12] >> 4) * 4)
        check(0 < biggest <= mss, f"{name}: the longest TCP payload sent is {biggest} bytes (MSS {mss})")
    t = tshark_bad(out)
    if t is None:
        print(f"skipped {name} tshark: tshark is not installed")
    else:
        check(t[0] == 0 and t[1] > 0, f"{name}: tshark finds {t[0]} bad checksums, {t[1]} good TCP ones")


def kernel_case(fwd, work, port, capa, what, extra=()):
    """The kernel as the receiver: the forwarder's egress port is a net_tap device moved into a
    network namespace of its own (port "tap"), or a net_af_packet port on one end of a veth pair
    whose other end is there ("af_packet"; its receive checksum offload off, or veth would mark
    every packet verified); the namespace's stack receives TCP and UDP over IPv4 and IPv6 (made
    with wrong checksums, some as 8,000-byte TCP packets the forwarder segments): its checksum error
    counters stay 0, it counts every segment, and a UDP socket there receives every payload as
    sent."""
    name = f"{port} ({what})"
    if os.geteuid() != 0 or not shutil.which("ip") or not shutil.which("nstat"):
        print(f"skipped {name}: needs root, ip and nstat (network namespaces, a TAP device)")
        return
    try:
        from scapy.all import IP, IPv6, TCP, UDP, Ether, Raw, wrpcap  # noqa: F401
    except ImportError:
        print(f"skipped {name}: scapy is not installed")
        return
    ns, mac, peer_mac = "ics_dpdk_ns", "02:00:00:00:00:01", "02:00:00:00:00:02"
    tap, veth_a, veth_b = "ics_dtap0", "ics_veth_a", "ics_veth_b"
    dev = tap if port == "tap" else veth_b  # the device the namespace receives on
    src = os.path.join(work, "tap.in.pcap")
    pkts, payloads = [], []
    for i in range(300):
        v6 = i % 3 == 2
        ip = (IPv6(src="fd00:99::2", dst="fd00:99::1", hlim=64) if v6 else
              IP(src="10.99.0.2", dst="10.99.0.1", ttl=64, id=i, flags="DF"))
        if i % 2:
            data = bytes((i + k) & 0xFF for k in range(200 + i))
            payloads.append(data)
            l4 = UDP(sport=40000 + i, dport=9999, chksum=0x1234) / Raw(data)
        else:
            size = 8000 if i % 10 == 0 else 100 + i  # jumbo TCP: segmented by the forwarder
            l4 = TCP(sport=50000 + i, dport=9, flags="PA", seq=1000 * i, chksum=0x4321) / Raw(bytes(size))
        p = Ether(src=peer_mac, dst=mac) / ip / l4
        if not v6:
            p[IP].chksum = 0xBEEF
        pkts.append(p)
    wrpcap(src, pkts)
    # An MSS whose segments fit a 1,500-byte MTU over IPv6 too (40 + 20 + 1,440): veth drops longer.
    mss = 1440
    tcp_segments = sum(((len(p[TCP].payload) + mss - 1) // mss) for p in pkts if TCP in p)

    def sh(*cmd, ns_=None):
        full = (["ip", "netns", "exec", ns_] if ns_ else []) + list(cmd)
        return subprocess.run(full, capture_output=True, text=True, check=False)

    sh("ip", "netns", "del", ns)
    if sh("ip", "netns", "add", ns).returncode != 0:
        print(f"skipped {name}: no network namespace can be made here")
        return
    receiver = None
    try:
        if port == "af_packet":
            for cmd in (("ip", "link", "add", veth_a, "type", "veth", "peer", "name", veth_b),
                        ("ip", "link", "set", veth_b, "netns", ns), ("ip", "link", "set", veth_a, "up")):
                r = sh(*cmd)
                if r.returncode != 0:
                    print(f"skipped {name}: {' '.join(cmd)}: {r.stderr.strip()}")
                    return
            sh("ip", "link", "set", "dev", veth_b, "address", mac, ns_=ns)
            r = sh("ethtool", "-K", veth_b, "rx", "off", ns_=ns)
            if r.returncode != 0:
                print(f"skipped {name}: ethtool -K {veth_b} rx off: {r.stderr.strip()} (veth would mark packets verified)")
                return
            egress = f"--vdev=net_af_packet0,iface={veth_a}"
        else:
            egress = f"--vdev=net_tap0,iface={tap},mac={mac}"
        ready, go = os.path.join(work, f"ready.{port}.{capa}"), os.path.join(work, f"go.{port}.{capa}")
        fwd_proc = subprocess.Popen(
            [fwd, *EAL, f"--vdev=net_pcap0,rx_pcap={src},tx_pcap=/dev/null", egress,
             "--", "--seconds", "20", "--idle-exit", "1500", "--keep-bad", "--tso", str(mss), "--ready-file", ready,
             "--start-file", go, "--capa", capa, *extra],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        # The TAP device is made and started by the forwarder: then into the namespace with it.
        for _ in range(200):
            if os.path.exists(ready) or fwd_proc.poll() is not None:
                break
            subprocess.run(["sleep", "0.05"], check=False)
        if not os.path.exists(ready):
            fwd_proc.kill()
            out, err = fwd_proc.communicate()
            print(f"skipped {name}: the forwarder did not bring up a net_{port} port here: {err.strip()[-300:]}")
            return
        steps = [("ip", "link", "set", tap, "netns", ns)] if port == "tap" else []
        for cmd in steps:
            r = sh(*cmd)
            if r.returncode != 0:
                fwd_proc.kill()
                print(f"skipped {name}: {' '.join(cmd)}: {r.stderr.strip()}")
                return
        for cmd in (("ip", "link", "set", "lo", "up"), ("ip", "addr", "add", "10.99.0.1/24", "dev", dev),
                    ("ip", "-6", "addr", "add", "fd00:99::1/64", "dev", dev, "nodad"),
                    ("ip", "link", "set", dev, "up"),
                    ("ip", "neigh", "add", "10.99.0.2", "lladdr", peer_mac, "dev", dev),
                    ("ip", "-6", "neigh", "add", "fd00:99::2", "lladdr", peer_mac, "dev", dev)):
            r = sh(*cmd, ns_=ns)
            check(r.returncode == 0, f"{name}: {' '.join(cmd)} {r.stderr.strip()}")
        receiver = subprocess.Popen(
            ["ip", "netns", "exec", ns, sys.executable, "-c", RECEIVER], stdout=subprocess.PIPE, text=True)
        sh("nstat", "-n", ns_=ns)  # the counters from here
        subprocess.run(["sleep", "0.3"], check=False)
        # The forwarder starts sending once told (the link is up and the receiver listens).
        open(go, "w").close()
        out, err = fwd_proc.communicate(timeout=60)
        print(out.strip())
        if "zero-copy" in extra:  # the segments were chains attached to the packets' own data
            zc = re.search(r"port 1: .*\(zero-copy (\d+),", out)
            check(zc is not None and int(zc.group(1)) > 0,
                  f"{name}: segmented zero-copy ({zc.group(1) if zc else 'no counters line'})")
        check(fwd_proc.returncode == 0, f"{name}: dpdk_forward exit {fwd_proc.returncode} {err.strip()[-300:]}")
        subprocess.run(["sleep", "0.3"], check=False)
        counters = {}
        for line in sh("nstat", "-az", ns_=ns).stdout.splitlines():
            f = line.split()
            if len(f) >= 2 and f[1].isdigit():
                counters[f[0]] = int(f[1])
        got = receiver.communicate(timeout=10)[0] if receiver else ""
    finally:
        if receiver and receiver.poll() is None:
            receiver.kill()
        sh("ip", "netns", "del", ns)  # (a veth pair goes with its end there)
        sh("ip", "link", "del", veth_a)
    for c in ("TcpInCsumErrors", "UdpInCsumErrors", "Udp6InCsumErrors", "IpInHdrErrors", "Ip6InHdrErrors"):
        check(counters.get(c, 0) == 0, f"{name}: {c} {counters.get(c, 0)}")
    if os.environ.get("DPDK_FORWARD_TEST_VERBOSE"):
        print({k: v for k, v in counters.items() if v})
    tcp_in = counters.get("TcpInSegs", 0)
    check(tcp_in == tcp_segments, f"{name}: the kernel took {tcp_in} TCP segments, {tcp_segments} sent")
    received = [bytes.fromhex(h) for h in got.split()]
    check(sorted(received) == sorted(payloads),
          f"{name}: the UDP socket received {len(received)} datagrams of {len(payloads)}, "
          f"{sum(1 for d in received if d in payloads)} intact")


# Runs in the namespace: every datagram to port 9999 on both IP versions, printed in hex, until 2 s
# pass without one.
RECEIVER = """
import select, socket, sys
s = socket.socket(socket.AF_INET6, socket.SOCK_DGRAM)
s.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 0)
s.bind(("::", 9999))
out = []
while True:
    r, _, _ = select.select([s], [], [], 4 if not out else 2)
    if not r:
        break
    out.append(s.recv(65536).hex())
print(" ".join(out))
"""


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: dpdk_forward_test.py DPDK_FORWARD INETCSUM")
    fwd, cli = sys.argv[1:3]
    with tempfile.TemporaryDirectory() as work:
        with open(os.path.join(work, "empty.pcap"), "wb") as f:  # a port needs something to read
            f.write(struct.pack("<IHHiIII", 0xA1B2C3D4, 2, 4, 0, 0, 65535, 1))
        run(fwd, cli, work, "checksums", ["--frames", "3000", "--bad", "20%", "--mix", "common"], [])
        run(fwd, cli, work, "tso", ["--frames", "400", "--bad", "20%", "--mix", "common", "--frame-size", "9018"],
            ["--tso", "1448"])
        # (net_tap's own TSO refuses a segment whose Ethernet, IP and TCP headers and MSS pass the MTU,
        # 1440 + 74 > 1500 over IPv6, so the port is trusted with checksums at most.)
        kernel_case(fwd, work, "tap", "8000", "everything by inetcsum")
        kernel_case(fwd, work, "tap", "800e", "checksums by the port, segmentation by inetcsum")
        kernel_case(fwd, work, "af_packet", "0", "as the port says: nothing but multi-segment and VLAN insertion")
        # The same with every segment zero-copy: header mbufs, then indirect mbufs attached to the
        # packets' own data, which net_af_packet takes as chains (it advertises multi-segment).
        kernel_case(fwd, work, "af_packet", "0", "zero-copy segments", ["--segments", "zero-copy"])
    print(f"{len(passed)} passed, {len(failed)} failed")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
