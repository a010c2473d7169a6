"""What the command's end-to-end tests share (tests/test_cli.py runs them all): the command and
the shared captures' paths (set by the runner), running it, made frames and captures, tshark's
verdicts."""
import concurrent.futures
import hashlib
import json
import os
import random
import re
import resource
import shutil
import signal
import stat
import subprocess
import sys
import tempfile
import time
import unittest
import zlib

import sharkd

CLI = CAPTURES = None
REPO = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
SAMPLE = os.path.join(REPO, "examples", "sample.pcap")
MANPAGE = os.path.join(REPO, "docs", "inetcsum.1")
COMPLETION = os.path.join(REPO, "cli", "completion", "inetcsum.bash")
COMMANDS = ["verify", "fix", "sum", "impls", "gen", "segment", "bench"]


def read_bytes(path):
    with open(path, "rb") as f:
        return f.read()


def write_bytes(path, data):
    with open(path, "wb") as f:
        f.write(data)



def skip_agreement_here(test):
    """An agreement test with tshark runs where it can find something: in the release build and
    under ASan (memory errors in the parsers, over real captures).  Under TSAN and in the no-SIMD
    build it would only repeat the release build's walk (tshark's half does not change, the
    command's half is the same single-threaded parse; the sums are the kernels' tests')."""
    sanitize = os.environ.get("INETCSUM_SANITIZE", "")
    if "thread" in sanitize or (os.environ.get("INETCSUM_TEST_QUICK") and not sanitize):
        test.skipTest("an agreement with tshark: run by the release and ASan builds (TSAN and no-SIMD "
                      "would repeat the release build's walk)")

def run(*args, stdin=None):
    return subprocess.run([CLI, *args], input=stdin, capture_output=True)


def shared(test, *rel):
    """A path in the team's shared captures, or the test skipped by name when they are missing
    (a clone without ../shared beside it): the tests whose data the project makes always run."""
    if not os.path.isdir(CAPTURES):
        test.skipTest(f"needs the shared captures: {CAPTURES} is missing (the team's shared/ folder is not "
                      "beside this checkout)")
    return os.path.join(CAPTURES, *rel)


def made_capture(d, name="made.pcap", frames=40):
    """A capture the command makes itself, with wrong checksums to fix (TCP and UDP, both IPs)."""
    path = os.path.join(d, name)
    res = run("gen", "--quiet", "--frames", str(frames), "--mix", "common", "--bad", "25%", "--seed", "24", path)
    if res.returncode != 0:
        raise AssertionError(f"gen: {res.stderr.decode()}")
    return path


def manifest(test):
    with open(shared(test, "MANIFEST.tsv")) as f:
        head = f.readline().rstrip("\n").split("\t")
        return [dict(zip(head, line.rstrip("\n").split("\t"))) for line in f]


LETTER = {"good": "G", "bad": "B", "partial": "B", "absent": "N", "illegal": "I", "unverifiable": "U"}
COLUMNS = ["ip", "tcp", "udp", "icmp", "icmpv6", "sctp", "igmp", "gre"]
LAYER_COLUMN = {"ipv4": "ip", "udplite": "udp"}  # tshark reports UDP-Lite in udp.checksum.status


def ones_sum(data):
    data = data + b"\0" * (len(data) & 1)
    s = sum((data[i] << 8) | data[i + 1] for i in range(0, len(data), 2))
    while s >> 16:
        s = (s & 0xFFFF) + (s >> 16)
    return s


CHECK_KEYS = ["type", "schema", "file", "frame", "layer", "depth", "status", "stored", "expected", "offset", "length",
              "flags"]


def checks(stdout):
    """The "check" objects of verify --json's output (docs/json.md), every line parsed."""
    objs = [json.loads(line) for line in stdout.decode().splitlines()]
    return [o for o in objs if o["type"] == "check"]


def json_verdicts(test, stdout):
    """verify --json's output as {(file, frame, column): [letters, outermost first]}."""
    ours = {}
    for obj in checks(stdout):
        test.assertEqual(list(obj)[:len(CHECK_KEYS)], CHECK_KEYS)
        test.assertEqual(obj["schema"], 1)
        test.assertRegex(obj["stored"], r"^0x[0-9a-f]{4}([0-9a-f]{4})?$")
        if obj["status"] == "unverifiable":
            test.assertIsNone(obj["expected"])
        col = LAYER_COLUMN.get(obj["layer"], obj["layer"])
        ours.setdefault((obj["file"], obj["frame"], col), []).append(LETTER[obj["status"]])
    return ours


# tshark with every checksum check on, as ../shared/tools/tshark_manifest.py runs it.
TSHARK_OPTS = ["-o", "ip.check_checksum:TRUE", "-o", "tcp.check_checksum:TRUE", "-o", "udp.check_checksum:TRUE",
               "-o", "udplite.check_checksum:TRUE", "-o", "sctp.checksum:CRC 32c"]
TSHARK_STATUS = {"0": "B", "1": "G", "2": "U", "3": "N", "4": "I"}


# tshark's field for each layer's verdict: the manifests' columns, then the checksum protocols the
# manifests do not list.
TSHARK_FIELDS = {**{c: f"{c}.checksum.status" for c in COLUMNS}, "pim": "pim.cksum.status",
                 "vrrp": "vrrp.checksum.status", "carp": "carp.checksum.status", "eigrp": "eigrp.checksum.status",
                 "dccp": "dccp.checksum.status", "nhrp": "nhrp.hdr.chksum.status", "pgm": "pgm.hdr.cksum.status"}
# tshark (4.x) adds PGM's checksum to the tree under its status field too, before the status: only
# the last value of that field is its verdict.
TSHARK_LAST = {"pgm"}
# tshark names CARP apart; inetcsum judges it as VRRP version 2 (the same protocol number and rule).
TSHARK_AS = {"carp": "vrrp"}


def tshark(args, check=False, answer=None):
    """tshark run with ARGS (text output) as subprocess.run would return it.  Where the environment
    names a cache directory (INETCSUM_TSHARK_CACHE: scripts/test-all.sh gives its builds one), a
    run that succeeded is kept there under a hash of tshark's binary, the arguments, and the bytes of
    every argument that is a file: tshark's half of an agreement test is the same in every build
    (it cost a sanitizer build 1-2 minutes again), while the command's half, and every capture the
    command writes, still run and are hashed anew.  ANSWER, where given, gives the same text as
    tshark would faster, or None (tshark then runs)."""
    cache = os.environ.get("INETCSUM_TSHARK_CACHE")
    cmd = ["tshark", *args]
    if not cache:
        return tshark_answer(cmd, check, answer)
    binary = os.stat(shutil.which("tshark"))
    key = hashlib.sha256(f"{binary.st_size} {binary.st_mtime_ns}".encode())
    for arg in args:
        key.update(b"\0")
        key.update(hashlib.sha256(read_bytes(arg)).digest() if os.path.isfile(arg) else arg.encode())
    kept = os.path.join(cache, key.hexdigest())
    if os.path.exists(kept):
        with open(kept) as f:
            return subprocess.CompletedProcess(cmd, 0, f.read(), "")
    res = tshark_answer(cmd, check, answer)
    if res.returncode == 0:
        os.makedirs(cache, exist_ok=True)
        with tempfile.NamedTemporaryFile("w", dir=cache, delete=False) as f:
            f.write(res.stdout)
        os.replace(f.name, kept)  # whole or not at all, for the threads that run tshark together
    return res


def tshark_answer(cmd, check, answer):
    """tshark's output for CMD: ANSWER's (a callable giving the same text, or None when it cannot)
    where there is one, else tshark's own."""
    out = answer() if answer else None
    if out is not None:
        return subprocess.CompletedProcess(cmd, 0, out, "")
    return subprocess.run(cmd, capture_output=True, text=True, check=check)


def tshark_verdicts(path):
    """tshark's verdicts on a capture as {(frame, column): [letters, outermost first]}."""
    args, answer = verdict_query(path)
    return parse_verdicts(tshark(args, check=True, answer=answer).stdout)


def verdict_query(path):
    """The tshark arguments that print PATH's checksum verdicts, and what gives the same text from
    a sharkd that stays up (tests/cli/sharkd.py; None where it cannot)."""
    fields = ["frame.number"] + list(TSHARK_FIELDS.values())
    args = ["-n", "-r", path, *TSHARK_OPTS, "-T", "fields", "-E", "occurrence=a", "-E", "separator=\t",
            "-E", "aggregator=,"]
    for f in fields:
        args += ["-e", f]
    last = [TSHARK_FIELDS[c] for c in TSHARK_LAST]
    return args, lambda: sharkd.fields(path, TSHARK_OPTS[1::2], fields[1:], last)


def parse_verdicts(out):
    """verdict_query's text as {(frame, column): [letters, outermost first]}."""
    verdicts = {}
    for line in out.splitlines():
        cells = line.split("\t")
        for col, cell in zip(TSHARK_FIELDS, cells[1:]):
            values = [v for v in cell.split(",") if v]
            letters = [TSHARK_STATUS[v] for v in (values[-1:] if col in TSHARK_LAST else values)]
            if letters:
                verdicts.setdefault((int(cells[0]), TSHARK_AS.get(col, col)), []).extend(letters)
    return verdicts


def ipv4_udp(payload=b"hello, link types", bad=True, src=b"\x0a\x00\x00\x01", dst=b"\x0a\x00\x00\x02", dport=53):
    """An IPv4/UDP datagram, header checksum right, UDP checksum right or (bad) off by one."""
    udp_len = 8 + len(payload)
    hdr = bytearray(b"\x45\x00" + (20 + udp_len).to_bytes(2, "big") + b"\x12\x34\x00\x00\x40\x11\x00\x00" + src + dst)
    hdr[10:12] = ((~ones_sum(bytes(hdr))) & 0xFFFF).to_bytes(2, "big")
    udp = bytearray(b"\x30\x39" + dport.to_bytes(2, "big") + udp_len.to_bytes(2, "big") + b"\x00\x00" + payload)
    pseudo = src + dst + b"\x00\x11" + udp_len.to_bytes(2, "big")
    csum = (~ones_sum(pseudo + bytes(udp))) & 0xFFFF or 0xFFFF
    udp[6:8] = ((csum + 1) & 0xFFFF if bad else csum).to_bytes(2, "big")
    return bytes(hdr + udp)


def ipv4(proto, payload, src=b"\x0a\x00\x00\x03", dst=b"\x0a\x00\x00\x04"):
    """An IPv4 header (checksum right) carrying `payload` of protocol `proto`."""
    hdr = bytearray(b"\x45\x00" + (20 + len(payload)).to_bytes(2, "big") + b"\x00\x01\x40\x00\x40" + bytes([proto])
                    + b"\x00\x00" + src + dst)
    hdr[10:12] = ((~ones_sum(bytes(hdr))) & 0xFFFF).to_bytes(2, "big")
    return bytes(hdr) + payload


def ipv6(next_header, payload):
    return b"\x60\x00\x00\x00" + len(payload).to_bytes(2, "big") + bytes([next_header, 64]) + bytes(15) + b"\x01" \
        + bytes(15) + b"\x02" + payload


MPLS_BOTTOM = b"\x00\x01\x01\x40"  # label 16, bottom of stack, TTL 64


def pim(ptype, body, v6=False, register_whole=False):
    """A PIMv2 message with its checksum right (a Register's over its first 8 bytes; over the
    whole message with register_whole), over IPv4 or IPv6 (the pseudo-header counts what the
    checksum covers)."""
    msg = bytearray(bytes([0x20 | ptype, 0, 0, 0]) + body)
    covered = 8 if ptype == 1 and not register_whole else len(msg)
    pseudo = (bytes(15) + b"\x01" + bytes(15) + b"\x02" + covered.to_bytes(4, "big") + b"\x00\x00\x00\x67") if v6 else b""
    msg[2:4] = ((~ones_sum(pseudo + bytes(msg[:covered]))) & 0xFFFF).to_bytes(2, "big")
    return ether(ipv6(103, bytes(msg)), ethertype=b"\x86\xdd") if v6 else ether(ipv4(103, bytes(msg)))


# A PGM Source Path Message from 10.0.0.1 (RFC 3208 9.1), checksum field zero.
PGM_SPM = (b"\x34\x08\x15\xbb\x00\x00\x00\x00" + bytes.fromhex("3329041eba74") + b"\x00\x00"
           + b"\x00\x01\x68\x1e\x00\x00\x54\x72\x00\x00\xd6\xa6\x00\x01\x00\x00\x0a\x00\x00\x01")

V6_SRC, V6_DST = bytes(15) + b"\x01", bytes(15) + b"\x02"  # ipv6()'s addresses


def checksummed(msg, at, proto=None, v6=False, cover=None, pseudo_len=None, skip=None):
    """msg with its 16-bit checksum at `at` computed over msg[:cover] (all of it by default),
    bytes [skip[0], skip[1]) left out, and a pseudo-header for protocol `proto` when given
    (IPv4: ipv4()'s addresses; IPv6: ipv6()'s), whose length is pseudo_len or len(msg)."""
    m = bytearray(msg)
    m[at:at + 2] = b"\x00\x00"
    covered = bytearray(m[:len(m) if cover is None else cover])
    if skip:
        covered[skip[0]:skip[1]] = bytes(skip[1] - skip[0])
    length = len(m) if pseudo_len is None else pseudo_len
    pseudo = b""
    if proto is not None:
        pseudo = (V6_SRC + V6_DST + length.to_bytes(4, "big") + b"\x00\x00\x00" + bytes([proto])) if v6 else \
            (b"\x0a\x00\x00\x03\x0a\x00\x00\x04\x00" + bytes([proto]) + length.to_bytes(2, "big"))
    m[at:at + 2] = ((~ones_sum(pseudo + bytes(covered))) & 0xFFFF).to_bytes(2, "big")
    return bytes(m)


def over_ip(proto, msg, v6=False):
    return ether(ipv6(proto, msg), ethertype=b"\x86\xdd") if v6 else ether(ipv4(proto, msg))


def damaged(frame, at):
    """The frame with one byte changed at `at` from its end."""
    b = bytearray(frame)
    b[len(b) - at] ^= 0x01
    return bytes(b)


def pcap(link, frames, caplen=None):
    """A little-endian pcap of `frames` with link type `link`."""
    out = (0xA1B2C3D4).to_bytes(4, "little") + (2).to_bytes(2, "little") + (4).to_bytes(2, "little") + bytes(8)
    out += (65535).to_bytes(4, "little") + link.to_bytes(4, "little")
    for i, f in enumerate(frames):
        out += (i + 1).to_bytes(4, "little") + bytes(4) + len(f).to_bytes(4, "little") + len(f).to_bytes(4, "little")
        out += f
    return out


def nflog(packet, little=True, family=2):
    """An NFLOG frame: a prefix TLV, then the packet in an NFULA_PAYLOAD TLV, padded."""
    order = "little" if little else "big"

    def tlv(kind, value):
        raw = (4 + len(value)).to_bytes(2, order) + kind.to_bytes(2, order) + value
        return raw + bytes(-len(raw) % 4)
    return bytes([family, 0, 0, 1]) + tlv(10, b"inetcsum\0") + tlv(9, packet)


def ether(packet, ethertype=b"\x08\x00"):
    return b"\x02\x00\x00\x00\x00\x02\x02\x00\x00\x00\x00\x01" + ethertype + packet


def pktap(frame, dlt=1):
    """Apple's PKTAP header (108 bytes, little-endian): its length, record type 1, the link type."""
    return (108).to_bytes(4, "little") + (1).to_bytes(4, "little") + dlt.to_bytes(4, "little") + b"en0" + bytes(96 - 3) \
        + frame


def radiotap(frame, fcs=False, qos=False):
    """Radiotap (with a Flags field when the frame ends with its FCS), an 802.11 data frame to the
    DS (QoS data when asked), LLC/SNAP and the packet."""
    rt = b"\x00\x00\x08\x00\x00\x00\x00\x00" if not fcs else b"\x00\x00\x09\x00\x02\x00\x00\x00\x10"
    wlan = (b"\x88\x01" if qos else b"\x08\x01") + b"\x00\x00" + b"\x02\x00\x00\x00\x00\x01" * 3 + b"\x10\x00"
    wlan += b"\x00\x00" if qos else b""
    body = wlan + b"\xaa\xaa\x03\x00\x00\x00\x08\x00" + frame
    return rt + body + (zlib.crc32(body).to_bytes(4, "little") if fcs else b"")


def gtp_header(flags, hlen, packet):
    """A GTP T-PDU's header of hlen bytes (GTPv0's 20, GTP''s 6, GTPv1's 8) before packet."""
    hdr = bytearray(hlen)
    hdr[0], hdr[1] = flags, 0xFF
    hdr[2:4] = len(packet).to_bytes(2, "big")
    return bytes(hdr)


def amsdu(packets, datapad=False):
    """An 802.11 QoS data frame (to the DS) whose payload is an A-MSDU: a subframe per (ethertype,
    packet), each with its addresses, length and LLC/SNAP, all but the last padded to 4 bytes.
    datapad: radiotap's padding of the 802.11 header to 4 bytes is there (28 bytes, not 26)."""
    body = b""
    for i, (ethertype, packet) in enumerate(packets):
        msdu = b"\xaa\xaa\x03\x00\x00\x00" + ethertype + packet
        sub = b"\x02\x00\x00\x00\x00\x0a\x02\x00\x00\x00\x00\x0b" + len(msdu).to_bytes(2, "big") + msdu
        body += sub + (bytes(-len(sub) % 4) if i < len(packets) - 1 else b"")
    hdr = b"\x88\x01\x00\x00" + b"\x02\x00\x00\x00\x00\x01" * 3 + b"\x10\x00" + b"\x80\x00"  # QoS: A-MSDU
    return hdr + (b"\x00\x00" if datapad else b"") + body


def sflow(*samples):
    """An sFlow version 5 datagram from agent 10.0.0.9 carrying `samples` (each format, body)."""
    out = (5).to_bytes(4, "big") + (1).to_bytes(4, "big") + b"\x0a\x00\x00\x09" + bytes(12) \
        + len(samples).to_bytes(4, "big")
    for fmt, body in samples:
        out += fmt.to_bytes(4, "big") + len(body).to_bytes(4, "big") + body
    return out


def sflow_flow_sample(proto, packet, expanded=False, cut=None):
    """A flow sample (compact or expanded) holding one raw packet header record: the first `cut`
    bytes of `packet` (all of it by default), its header protocol `proto` (1 Ethernet, 11 IPv4)."""
    held = packet[:cut]
    record = proto.to_bytes(4, "big") + (len(packet) + 4).to_bytes(4, "big") + (4).to_bytes(4, "big") \
        + len(held).to_bytes(4, "big") + held + bytes(-len(held) % 4)
    records = (1).to_bytes(4, "big") + len(record).to_bytes(4, "big") + record
    head = bytes(40 if expanded else 28)  # sequence, source, rate, pool, drops, interfaces
    return (3 if expanded else 1), head + (1).to_bytes(4, "big") + records


def icmp_unreachable(quoted):
    """An IPv4 ICMP port unreachable (right checksums) quoting `quoted`."""
    icmp = bytearray(b"\x03\x03\x00\x00\x00\x00\x00\x00" + quoted)
    icmp[2:4] = ((~ones_sum(bytes(icmp))) & 0xFFFF).to_bytes(2, "big")
    hdr = bytearray(b"\x45\x00" + (20 + len(icmp)).to_bytes(2, "big") + b"\x00\x01\x00\x00\x40\x01\x00\x00"
                    + b"\x7f\x00\x00\x01\x7f\x00\x00\x01")
    hdr[10:12] = ((~ones_sum(bytes(hdr))) & 0xFFFF).to_bytes(2, "big")
    return bytes(hdr + icmp)


def vxlan_nested_fragments(path, outer_csum, order):
    """VXLAN over fragmented IPv4 carrying a fragmented IPv6/UDP datagram whose UDP checksum is
    wrong (what large pings over Linux VXLAN look like), frames in the order given."""
    from scapy.all import IP, UDP, VXLAN, Ether, IPv6, IPv6ExtHdrFragment, Raw, fragment, wrpcap
    inner = bytes(IPv6(src="2001:db8::1", dst="2001:db8::2") / UDP(sport=1000, dport=2000) / Raw(bytes(range(256)) * 12))
    body = bytearray(inner[40:])
    body[6] ^= 0x12
    frames = []
    for i, off in enumerate(range(0, len(body), 1400)):
        chunk = bytes(body[off:off + 1400])
        more = off + len(chunk) < len(body)
        frag = (IPv6(src="2001:db8::1", dst="2001:db8::2", nh=44) /
                IPv6ExtHdrFragment(nh=17, offset=off // 8, m=int(more), id=77) / Raw(chunk))
        carrier = IP(bytes(IP(src="192.0.2.1", dst="192.0.2.2", id=100 + i) / UDP(sport=5000 + i, dport=4789) /
                           VXLAN(vni=7) / Ether(src="02:00:00:00:00:03", dst="02:00:00:00:00:04") / frag))
        if not outer_csum:
            carrier[UDP].chksum = 0
            carrier = IP(bytes(carrier))
        frames += [Ether(src="02:00:00:00:00:01", dst="02:00:00:00:00:02") / o for o in fragment(carrier, fragsize=800)]
    wrpcap(path, [frames[i] for i in order(len(frames))])


def gen(*args):
    res = run("gen", *args)
    if res.returncode != 0:
        raise AssertionError(f"gen {args}: {res.stderr.decode()}")
    return res


def scapy_or_skip(test):
    try:
        import scapy.all  # noqa: F401
    except ImportError:
        test.skipTest("scapy is not installed (scripts/install-deps.sh installs it)")


def tshark_bad(test, path):
    """Frames tshark calls bad (any checksum), or None without tshark."""
    if not shutil.which("tshark"):
        return None
    return {f for (f, _), letters in tshark_verdicts(path).items() if "B" in letters or "I" in letters}


def tcp_stream(frames, dport):
    """The bytes a TCP stream to dport carried, in sequence order (scapy packets; retransmissions
    and overlaps taken once)."""
    from scapy.layers.inet import TCP
    parts = {}
    for p in frames:
        if TCP in p and p[TCP].dport == dport and len(p[TCP].payload):
            data = bytes(p[TCP].payload)
            if len(data) > len(parts.get(p[TCP].seq, b"")):
                parts[p[TCP].seq] = data
    out, start = bytearray(), None
    for seq in sorted(parts):
        start = seq if start is None else start
        have = start + len(out)
        if seq <= have:
            out += parts[seq][have - seq:]
    return bytes(out)


def tcp_over(v6, payload, seq=1000, jumbo_hbh=False):
    """An Ethernet frame carrying TCP (PSH|ACK, checksum right) with an IP length of 0 as BIG TCP
    and TSO leave it (IPv4 total length 0; IPv6 payload length 0, with the hop-by-hop jumbo
    header of Linux 5.19-6.2 when asked)."""
    tcp = bytearray(b"\x30\x39\x00\x50" + seq.to_bytes(4, "big") + bytes(4) + b"\x50\x18\xff\xff\x00\x00\x00\x00"
                    + payload)
    n = len(tcp)
    if v6:
        pseudo = V6_SRC + V6_DST + n.to_bytes(4, "big") + b"\x00\x00\x00\x06"
    else:
        pseudo = b"\x0a\x00\x00\x03\x0a\x00\x00\x04\x00\x06" + n.to_bytes(4, "big")  # 32-bit length, as Linux sums it
    tcp[16:18] = ((~ones_sum(pseudo + bytes(tcp))) & 0xFFFF).to_bytes(2, "big")
    if not v6:
        hdr = bytearray(b"\x45\x00\x00\x00\x00\x01\x40\x00\x40\x06\x00\x00\x0a\x00\x00\x03\x0a\x00\x00\x04")
        hdr[10:12] = ((~ones_sum(bytes(hdr))) & 0xFFFF).to_bytes(2, "big")
        return ether(bytes(hdr) + bytes(tcp))
    if jumbo_hbh:
        hbh = b"\x06\x00\xc2\x04" + (n + 8).to_bytes(4, "big")
        return ether(b"\x60\x00\x00\x00\x00\x00\x00\x40" + V6_SRC + V6_DST + hbh + bytes(tcp), ethertype=b"\x86\xdd")
    return ether(b"\x60\x00\x00\x00\x00\x00\x06\x40" + V6_SRC + V6_DST + bytes(tcp), ethertype=b"\x86\xdd")


LIVE_SENDER = r"""
import socket, struct, sys
if sys.argv[1] == "udp":  # the kernel's own datagrams, three to port 9999 and one to 7777
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.bind(("10.9.0.1", 0))
    for i in range(3):
        s.sendto(b"x" * (100 + i), ("10.9.0.2", 9999))
    s.sendto(b"z", ("10.9.0.2", 7777))
else:  # one frame with a wrong UDP checksum, through a packet socket (no offload: as given)
    s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
    s.bind((sys.argv[2], 0))
    udp = struct.pack("!HHHH", 1234, 9999, 28, 0x4242) + b"y" * 20
    ip = bytearray(struct.pack("!BBHHHBBH4s4s", 0x45, 0, 48, 1, 0, 64, 17, 0, socket.inet_aton("10.9.0.1"),
                               socket.inet_aton("10.9.0.2")))
    c = sum(struct.unpack("!10H", bytes(ip)))
    c = (c & 0xFFFF) + (c >> 16)
    ip[10:12] = struct.pack("!H", ~((c & 0xFFFF) + (c >> 16)) & 0xFFFF)
    s.send(b"\xff" * 6 + b"\x02\x00\x00\x00\x00\x01\x08\x00" + bytes(ip) + udp)
"""
