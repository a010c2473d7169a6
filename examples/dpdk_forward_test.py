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
    print(f"{len(passed)} passed, {len(failed)} failed")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
