"""The protocol and packet layers through the binding: the shared captures against tshark's
verdicts (and, given INETCSUM_CLI, against the C library as the inetcsum command reports it),
fill round trips, packets built by scapy, the offload fallback, and the DPDK and SCTP vectors."""

import csv
import functools
import json
import os
import subprocess
import zlib

import pytest
from scapy.all import GRE, ICMP, IGMP, IP, SCTP, TCP, UDP, VXLAN, Dot1Q, Ether, IPv6, Raw, SCTPChunkData
from scapy.layers.inet import IPOption_NOP
from scapy.layers.inet6 import ICMPv6EchoRequest
from scapy.utils import RawPcapReader

import inetcsum
from inetcsum import CheckFlag, FrameFlag, Layer, Link, Offload, Status

# Both addresses given: for a missing one scapy asks ARP (2 s a frame, answers differ by machine).
ETHER = Ether(src="02:00:00:00:00:01", dst="02:00:00:00:00:02")

# Where each layer's checksum field lies in its header, and how wide it is.
FIELD = {"ipv4": 10, "tcp": 16, "udp": 6, "udplite": 6, "icmp": 2, "icmpv6": 2, "igmp": 2, "gre": 4, "sctp": 8, "mh": 4, "pim": 2, "ospf": 12,
         "vrrp": 6, "eigrp": 2, "dccp": 6, "rsvp": 2, "nhrp": 12, "pgm": 6}


def field_bytes(check):
    start = check.offset + FIELD[check.layer]
    return range(start, start + (4 if check.layer == Layer.SCTP else 2))


# ---- the shared captures ----------------------------------------------------------------------------


@functools.lru_cache(maxsize=None)
def manifest(shared):
    with open(shared / "captures/MANIFEST.tsv", newline="") as f:
        return list(csv.DictReader(f, delimiter="\t"))


@functools.lru_cache(maxsize=None)
def frames_of(path):
    """[(bytes, wirelen, linktype)] read by scapy (a reader independent of the C one)."""
    out = []
    with RawPcapReader(str(path)) as reader:
        for data, meta in reader:
            link = getattr(meta, "linktype", None)
            out.append((data, meta.wirelen, reader.linktype if link is None else link))
    return out


LETTER = {Status.GOOD: "G", Status.BAD: "B", Status.PARTIAL: "B", Status.ABSENT: "N", Status.ILLEGAL: "I"}
COLUMNS = [("ip", Layer.IPV4), ("tcp", Layer.TCP), ("udp", Layer.UDP), ("icmp", Layer.ICMP), ("icmpv6", Layer.ICMPV6),
           ("sctp", Layer.SCTP), ("igmp", Layer.IGMP), ("gre", Layer.GRE)]


def test_captures_against_tshark(shared):
    compared = stored_compared = 0
    for row in manifest(shared):
        data, wirelen, link = frames_of(shared / row["file"])[int(row["frame"]) - 1]
        assert (len(data), wirelen) == (int(row["caplen"]), int(row["len"])), (row["file"], row["frame"])
        report = inetcsum.verify(data, link=link, wirelen=wirelen)
        for column, layer in COLUMNS:
            ours = [c for c in report if c.layer == layer]
            theirs = row[column].replace(",", "")
            if row["ipfrag"] and layer != Layer.IPV4:
                continue  # tshark judges a fragment's upper layer after reassembly
            for k, letter in enumerate(theirs):
                if letter != "U":
                    assert k < len(ours) and LETTER.get(ours[k].status, "U") == letter, (
                        row["file"], row["frame"], column, theirs, [c.status for c in ours])
                    compared += 1
            stored = row.get(f"{column}_csum")
            if stored and len(ours) == len(theirs):
                for value, check in zip(stored.split(","), ours):
                    assert check.stored == int(value, 16), (row["file"], row["frame"], column)
                    stored_compared += 1
    assert compared > 2000 and stored_compared > 1000


def cli_reports(cli, path):
    """{frame: [(layer, depth, status, stored, expected)]} from `inetcsum verify --json`."""
    out = subprocess.run([cli, "verify", "--json", "--no-reassemble", str(path)], capture_output=True, text=True)
    assert out.returncode in (0, 1), out.stderr
    frames = {}
    for line in out.stdout.splitlines():
        r = json.loads(line)
        if r["type"] != "check":
            continue
        frames.setdefault(r["frame"], []).append(
            (r["layer"], r["depth"], r["status"], int(r["stored"], 16),
             None if r["expected"] is None else int(r["expected"], 16)))
    return frames


@pytest.mark.skipif(not os.environ.get("INETCSUM_CLI"), reason="INETCSUM_CLI (the inetcsum command) not given")
def test_captures_against_the_c_library(shared):
    # Every check of every frame, field by field, as the command built on the same library says.
    files = sorted({row["file"] for row in manifest(shared)})
    checks = 0
    for name in files:
        theirs = cli_reports(os.environ["INETCSUM_CLI"], shared / name)
        for i, (data, wirelen, link) in enumerate(frames_of(shared / name), 1):
            ours = [(c.layer.value, c.depth, c.status.value, c.stored, c.expected)
                    for c in inetcsum.verify(data, link=link, wirelen=wirelen)]
            assert ours == theirs.get(i, []), (name, i)
            checks += len(ours)
    assert len(files) > 150 and checks > 3000


FIXABLE = ~(CheckFlag.QUOTED | CheckFlag.FRAGMENT | CheckFlag.TRUNCATED | CheckFlag.MALFORMED)


def test_fill_round_trip_on_captures(shared):
    written = 0
    for name in sorted({row["file"] for row in manifest(shared)}):
        for data, wirelen, link in frames_of(shared / name):
            before = inetcsum.verify(data, link=link, wirelen=wirelen)
            frame = bytearray(data)
            filled = inetcsum.fill(frame, link=link, wirelen=wirelen)
            after = inetcsum.verify(frame, link=link, wirelen=wirelen)
            assert len(filled) == len(before) == len(after)
            for i, (f, b) in enumerate(zip(filled, before)):
                # An outer checksum is judged after the inner ones were written.
                if not any(c.flags & CheckFlag.WRITTEN for c in filled[i + 1 :]):
                    assert f.status == b.status, (name, f, b)
            allowed = {i for c in filled.written for i in field_bytes(c)}
            assert all(frame[i] == data[i] for i in range(len(data)) if i not in allowed), name
            for b, a in zip(before, after):
                if b.problem and not (b.flags & ~FIXABLE) and b.layer != Layer.UDPLITE:
                    assert a.status in (Status.GOOD, Status.ABSENT), (name, b, a)
            written += len(filled.written)
    assert written > 100


# ---- packets built by scapy -------------------------------------------------------------------------

SCAPY_PACKETS = {
    "ipv4 tcp": ETHER / IP(src="192.0.2.1", dst="198.51.100.7") / TCP(sport=40000, dport=80, flags="PA") / (b"GET / " * 50),
    "ipv4 options udp": ETHER / IP(src="10.1.2.3", dst="10.3.2.1", options=[IPOption_NOP()] * 4) / UDP(sport=53, dport=5353) / b"odd",
    "vlan ipv6 tcp": ETHER / Dot1Q(vlan=7) / IPv6(src="2001:db8::1", dst="2001:db8::2") / TCP(sport=1, dport=2) / (b"x" * 1001),
    "ipv6 udp": ETHER / IPv6(src="fe80::1", dst="ff02::1") / UDP(sport=546, dport=547) / b"hello",
    "icmpv6": ETHER / IPv6(src="2001:db8::1", dst="2001:db8::99") / ICMPv6EchoRequest(data=b"ping" * 10),
    "icmp": ETHER / IP(src="192.0.2.9", dst="192.0.2.10") / ICMP() / b"abcdefgh",
    "igmp": ETHER / IP(src="192.0.2.9", dst="224.0.0.1") / IGMP(),
    "gre with checksum": ETHER / IP(src="1.1.1.1", dst="2.2.2.2") / GRE(chksum_present=1) / IP(src="10.0.0.1", dst="10.0.0.2") / UDP(sport=7, dport=9) / b"inner",
    "vxlan": ETHER / IP(src="1.1.1.1", dst="2.2.2.2") / UDP(sport=5555, dport=4789) / VXLAN(vni=42) / ETHER / IP(src="10.0.0.1", dst="10.0.0.2") / TCP(sport=3, dport=4) / b"tunnelled",
    "sctp": ETHER / IP(src="192.0.2.1", dst="192.0.2.2") / SCTP(sport=3868, dport=3868) / SCTPChunkData(data=b"diameter"),
}

SCAPY_LAYERS = {Layer.IPV4: IP, Layer.TCP: TCP, Layer.UDP: UDP, Layer.ICMP: ICMP, Layer.ICMPV6: ICMPv6EchoRequest,
                Layer.IGMP: IGMP, Layer.GRE: GRE, Layer.SCTP: SCTP}


def scapy_checksums(packet):
    """The checksum fields scapy computed, outermost first, per layer."""
    out = []
    layer = packet
    while layer:
        for ours, theirs in SCAPY_LAYERS.items():
            if isinstance(layer, theirs):
                value = getattr(layer, "chksum", None) if hasattr(layer, "chksum") else layer.cksum
                out.append((ours, value or 0))
        layer = layer.payload if not isinstance(layer.payload, Raw) else None
    return out


@pytest.mark.parametrize("name", SCAPY_PACKETS)
def test_scapy_packets_verify_good(name):
    packet = SCAPY_PACKETS[name].__class__(bytes(SCAPY_PACKETS[name]))  # dissected: fields filled in
    wire = bytes(packet)
    report = inetcsum.verify(wire)
    assert report.ok and report.flags == 0, report
    assert [(c.layer, c.status) for c in report] == [(layer, Status.GOOD) for layer, _ in scapy_checksums(packet)]
    for check, (_, value) in zip(report, scapy_checksums(packet)):
        # (for SCTP both are the field's 4 wire bytes read in network order)
        assert check.stored == check.expected == value, (name, check)


@pytest.mark.parametrize("name", SCAPY_PACKETS)
def test_scapy_packets_damaged_then_filled(name):
    wire = bytes(SCAPY_PACKETS[name])
    for check in inetcsum.verify(wire):
        damaged = bytearray(wire)
        first = field_bytes(check)[0]
        damaged[first] ^= 0x5A
        report = inetcsum.verify(damaged)
        hit = [c for c in report if c.offset == check.offset and c.layer == check.layer][0]
        assert hit.status == Status.BAD and hit.expected == check.stored, (name, hit)
        assert not report.ok and hit in report.problems
        filled = inetcsum.fill(damaged)
        assert bytes(damaged) == wire, (name, check.layer)
        assert [c.layer for c in filled.written] == [check.layer]
        # fill reports the frame as verify saw it before; an outer checksum that was wrong only
        # through the inner one is mended by writing that, not written itself.
        assert [(c.layer, c.status, c.stored) for c in filled] == [(c.layer, c.status, c.stored) for c in report]
        for c in filled:
            if c.status == Status.BAD and CheckFlag.WRITTEN not in c.flags:
                assert CheckFlag.MENDED in c.flags, (name, c)


def test_l4_helpers_match_scapy():
    packet = IP(bytes(SCAPY_PACKETS["ipv4 tcp"][IP]))
    segment = bytes(packet[TCP])
    pseudo = inetcsum.pseudo_ipv4(packet.src, packet.dst, 6, len(segment))
    verdict = inetcsum.l4_verify(Layer.TCP, segment, pseudo)
    assert verdict == (Status.GOOD, packet[TCP].chksum, packet[TCP].chksum)
    assert inetcsum.l4_verify("tcp", segment, pseudo).status == "good"  # str names too
    blank = bytearray(segment)
    blank[16:18] = b"\0\0"
    assert inetcsum.l4_fill(Layer.TCP, blank, pseudo).status == Status.BAD
    assert bytes(blank) == segment
    header = bytes(packet)[:20]
    assert inetcsum.ipv4_header(header) == 0
    assert inetcsum.ipv4_header(header[:10] + b"\0\0" + header[12:]) == packet.chksum

    v6 = IPv6(bytes(SCAPY_PACKETS["ipv6 udp"][IPv6]))
    dgram = bytes(v6[UDP])
    pseudo6 = inetcsum.pseudo_ipv6(v6.src, v6.dst, 17, len(dgram))
    assert inetcsum.l4_verify(Layer.UDP, dgram, pseudo6, over_ipv6=True).status == Status.GOOD
    zero = bytearray(dgram)
    zero[6:8] = b"\0\0"
    assert inetcsum.l4_verify(Layer.UDP, zero, pseudo6, over_ipv6=True).status == Status.ILLEGAL
    assert inetcsum.l4_verify(Layer.UDP, zero, pseudo6, over_ipv6=True, udp6_zero_ok=True).status == Status.ABSENT
    assert inetcsum.l4_verify(Layer.UDP, zero, pseudo6).status == Status.ABSENT  # over IPv4: "no checksum"


def test_pseudo_header_address_forms():
    import ipaddress

    a = inetcsum.pseudo_ipv4("192.0.2.1", "198.51.100.7", 17, 1000, 5)
    assert a == inetcsum.pseudo_ipv4(ipaddress.IPv4Address("192.0.2.1"), bytes([198, 51, 100, 7]), 17, 1000, seed=5)
    assert a == inetcsum.fold(0xC000 + 0x0201 + 0xC633 + 0x6407 + 17 + 1000 + 5)
    # 32-bit lengths (jumbograms) are summed as two halves, never truncated
    assert inetcsum.pseudo_ipv6("::1", "::2", 6, 0x12345) == inetcsum.fold(1 + 2 + 6 + 0x1 + 0x2345)


# ---- offload ------------------------------------------------------------------------------------------


def test_offload_leaves_the_device_its_share():
    wire = bytes(SCAPY_PACKETS["ipv4 tcp"])
    ip = IP(wire[14:])
    seg_len = len(wire) - 34
    seed = inetcsum.pseudo_ipv4(ip.src, ip.dst, 6, seg_len)

    frame = bytearray(wire)
    frame[24:26] = frame[50:52] = b"\0\0"  # as a stack leaves them
    report = inetcsum.offload(frame, Offload.IPV4 | Offload.TCP4)
    assert report.software == 0
    assert frame[24:26] == b"\0\0"  # the device fills the IPv4 header
    assert int.from_bytes(frame[50:52], "big") == seed  # and TCP, from the pseudo-header seed
    assert [c.flags & CheckFlag.DEVICE for c in report] == [CheckFlag.DEVICE] * 2
    inetcsum.complete_partial(frame, 34, 16)  # what the device (or skb_checksum_help) does
    assert frame[50:52] == wire[50:52]

    frame = bytearray(wire)
    frame[24:26] = frame[50:52] = b"\0\0"
    report = inetcsum.offload(frame, Offload.TCP4)
    assert report.software == Offload.IPV4 and isinstance(report.software, Offload)
    assert frame[24:26] == wire[24:26]

    frame = bytearray(wire)
    frame[24:26] = frame[50:52] = b"\0\0"
    report = inetcsum.offload(frame, 0)  # a device that does nothing: all in software
    assert report.software == Offload.IPV4 | Offload.TCP4
    assert bytes(frame) == wire
    assert len(report.written) == 2

    frame = bytearray(wire)
    inetcsum.offload(frame, Offload.ALL, zero_seed=True)
    assert frame[50:52] == b"\0\0"


def test_offload_inner_kinds():
    assert Offload.inner(Offload.TCP4 | Offload.UDP6) == Offload.INNER_TCP4 | Offload.INNER_UDP6
    wire = bytes(SCAPY_PACKETS["vxlan"])
    frame = bytearray(wire)
    # A device that does the outer kinds only: the inner IPv4 and TCP are computed here, the outer
    # IPv4 header is zeroed for the device and the outer UDP seeded.
    report = inetcsum.offload(frame, Offload.ALL & ~Offload.inner(Offload.ALL))
    assert report.software == Offload.INNER_IPV4 | Offload.INNER_TCP4
    inner = 14 + 20 + 8 + 8
    assert frame[inner:] == wire[inner:]
    assert frame[24:26] == b"\0\0"
    ip = IP(wire[14:])
    assert int.from_bytes(frame[40:42], "big") == inetcsum.pseudo_ipv4(ip.src, ip.dst, 17, len(wire) - 34)
    inetcsum.complete_partial(frame, 34, 6)
    assert frame[34:] == wire[34:]


def test_complete_partial_sctp():
    wire = bytes(SCAPY_PACKETS["sctp"])
    frame = bytearray(wire)
    frame[34 + 8 : 34 + 12] = b"\0\0\0\0"
    inetcsum.complete_partial(frame, 34, 8, crc32c=True)
    assert bytes(frame) == wire


# ---- frames that are not what they seem -------------------------------------------------------------


def test_report_flags():
    arp = bytes.fromhex("ffffffffffff02000000000108060001080006040001020000000001c0000201000000000000c0000202")
    report = inetcsum.verify(arp)
    assert report == [] and report.flags == FrameFlag.NOT_IP and report.ok
    wire = bytes(SCAPY_PACKETS["ipv4 tcp"])
    cut = inetcsum.verify(wire[:60], wirelen=len(wire))
    assert FrameFlag.TRUNCATED in cut.flags
    assert [c.status for c in cut] == [Status.GOOD, Status.UNVERIFIABLE]
    assert CheckFlag.TRUNCATED in cut[1].flags
    raw = inetcsum.verify(wire[14:], link=Link.RAW)
    assert [c.status for c in raw] == [Status.GOOD, Status.GOOD]
    unknown = inetcsum.verify(wire, link=12345)  # a link type inetcsum does not decode: said so
    assert unknown.flags == FrameFlag.NOT_IP | FrameFlag.UNKNOWN_LINK | FrameFlag.NOT_FOLLOWED
    assert unknown.why == "link type 12345 not decoded"
    # A number the walk does not follow is said so; one known to carry nothing checkable is not.
    unfollowed = inetcsum.verify(wire[:12] + b"\x88\xb5" + wire[14:])
    assert unfollowed.flags == FrameFlag.NOT_IP | FrameFlag.NOT_FOLLOWED and unfollowed.why == "EtherType 0x88b5 not followed"
    lldp = inetcsum.verify(wire[:12] + b"\x88\xcc" + wire[14:])
    assert lldp.flags == FrameFlag.NOT_IP and lldp.why == ""
    # Link names as strings, in any case, as l4_verify takes layer names.
    assert [c.status for c in inetcsum.verify(wire, link="ethernet")] == [Status.GOOD, Status.GOOD]
    assert [c.status for c in inetcsum.verify(wire[14:], link="RAW")] == [Status.GOOD, Status.GOOD]
    with pytest.raises(ValueError, match="unknown link type"):
        inetcsum.verify(wire, link="token-ring")
    # The link types tcpdump writes on BSDs, for PPP and Cisco HDLC, and for nflog:N.
    ip = wire[14:]
    for link, head in [(Link.BSD_RAW, b""), (Link.OPENBSD_RAW, b""), (Link.PPP_HDLC, b"\xff\x03\x00\x21"),
                       (Link.C_HDLC, b"\x0f\x00\x08\x00"), (Link.PPP_HDLC, b"\x8f\x00\x08\x00")]:
        assert [c.status for c in inetcsum.verify(head + ip, link=link)] == [Status.GOOD, Status.GOOD], link
    tlv = (4 + len(ip)).to_bytes(2, "little") + (9).to_bytes(2, "little") + ip
    nflog = bytes([2, 0, 0, 0]) + tlv + bytes(-len(tlv) % 4)
    assert [c.status for c in inetcsum.verify(nflog, link=Link.NFLOG)] == [Status.GOOD, Status.GOOD]
    # The link types of InfiniBand, Solaris, ARCNET, Frame Relay, Juniper and Apple, by member and
    # by name (the command's tests hold each to tshark).
    for link, head in [(Link.IPOIB, bytes(40) + b"\x08\x00\x00\x00"), ("ipnet", b"\x02\x02" + bytes(22)),
                       (Link.ARCNET_LINUX, b"\x01\x02\x00\x00\xd4\x00\x00\x00"), (Link.FRELAY, b"\x18\x41\x03\xcc"),
                       (Link.JUNIPER_ETHER, b"MGC\x00" + wire[:14]),
                       (Link.PKTAP, (108).to_bytes(4, "little") + (1).to_bytes(4, "little") + (101).to_bytes(4, "little")
                        + bytes(96))]:
        assert [c.status for c in inetcsum.verify(head + ip, link=link)] == [Status.GOOD, Status.GOOD], link
    # A link type whose pcap field says each frame ends with a 4-byte FCS: the FCS is no part of IP,
    # and is checked first (Ethernet's CRC-32, little-endian on the wire).
    fcs_link = 0x24000001
    with_fcs = inetcsum.verify(wire + zlib.crc32(wire).to_bytes(4, "little"), link=fcs_link)
    assert [(c.layer, c.status) for c in with_fcs] == [(Layer.FCS, Status.GOOD), (Layer.IPV4, Status.GOOD),
                                                       (Layer.TCP, Status.GOOD)]
    assert [c.status for c in inetcsum.verify(wire + bytes(4), link=fcs_link)] == [Status.BAD, Status.GOOD, Status.GOOD]
    assert "Report(" in repr(report)


def test_udp_first_fragment_is_not_malformed():
    """A UDP first fragment's length is the datagram's, longer than the fragment: `fragment`, as a TCP
    first fragment is, never `malformed` (issue 36), over IPv4 and IPv6."""
    from scapy.layers.inet6 import IPv6ExtHdrFragment

    v4 = IP(src="10.0.0.1", dst="10.0.0.2", flags="MF") / UDP(sport=1000, dport=2000, len=3008) / Raw(b"x" * 1000)
    v6 = IPv6(src="::1", dst="::2") / IPv6ExtHdrFragment(id=9, m=1) / UDP(sport=1, dport=2, len=3008) / Raw(b"y" * 1000)
    for packet in (ETHER / v4, ETHER / v6):
        report = inetcsum.verify(bytes(packet))
        udp = report[-1]
        assert udp.layer == Layer.UDP and udp.status == Status.UNVERIFIABLE and udp.flags == CheckFlag.FRAGMENT, udp
        assert udp.expected is None and "expected=None" in repr(udp)  # JSON's null, not 0 (issue 36)
        assert FrameFlag.MALFORMED not in report.flags and FrameFlag.FRAGMENT in report.flags, report.flags


def test_pppoe_length_named_wrong():
    """A PPPoE length shorter than the IP packet the frame holds: malformed, the PPPoE header named
    in `why`, and the checksums judged by the IP length (issue 36); a right one with padding: clean."""
    from scapy.layers.ppp import PPP, PPPoE

    frame = bytearray(bytes(ETHER / PPPoE(sessionid=1) / PPP(proto=0x21) / IP(src="10.0.0.1", dst="10.0.0.2")
                            / TCP(sport=1, dport=2) / Raw(b"hello world, data")))
    assert inetcsum.verify(bytes(frame)).flags == FrameFlag(0)
    frame[18:20] = (30).to_bytes(2, "big")
    report = inetcsum.verify(bytes(frame))
    assert FrameFlag.MALFORMED in report.flags and report.why.startswith("PPPoE length 30 disagrees"), report.why
    assert [(c.layer, c.status) for c in report] == [(Layer.IPV4, Status.GOOD), (Layer.TCP, Status.GOOD)]


def test_unknowable_expected_is_none():
    """An unverifiable check's or verdict's expected value is None, as JSON's null (it was 0, typed
    int, indistinguishable from a real 0x0000)."""
    v = inetcsum.l4_verify(Layer.TCP, b"\x00" * 10)  # shorter than a TCP header
    assert v.status == Status.UNVERIFIABLE and v.expected is None, v
    good = inetcsum.l4_verify(Layer.ICMP, bytes.fromhex("0800f7ff00000000"))
    assert good.status == Status.GOOD and good.expected == 0xF7FF, good


def test_reprs_show_checksums_in_hex():
    """Checksums as Wireshark and tcpdump show them: hex, the field's width; offsets stay decimal."""
    frame = bytes.fromhex("ffffffffffff00000000000008004500001d0001000040117ccd7f0000017f000001003500350009896f78")
    report = inetcsum.verify(frame)
    text = repr(report)
    assert "stored=0x7ccd, expected=0x7ccd, offset=14, length=20" in text, text
    assert "stored=0x896f, expected=0x896f, offset=34, length=9" in text, text
    assert eval(repr(report[0]).split("stored=")[1].split(",")[0]) == report[0].stored
    fcs = inetcsum.verify(frame + bytes(4), link=0x24000001)[0]
    assert fcs.layer == Layer.FCS and "stored=0x00000000" in repr(fcs)
    assert "stored=0x" in repr(inetcsum.l4_verify("udp", frame[34:], 0))


def test_reports_are_plain_python_values():
    report = inetcsum.verify(bytes(SCAPY_PACKETS["ipv4 tcp"]))
    check = report[1]
    assert isinstance(report, list) and isinstance(check, tuple)
    assert check._asdict()["layer"] == "tcp" and str(check.layer) == "tcp"
    layer, depth, status, stored, expected = check[:5]
    assert (layer, depth, status) == (Layer.TCP, 0, Status.GOOD) and stored == expected
    assert check == inetcsum.Check(*check)


# ---- external vectors ---------------------------------------------------------------------------------


def test_dpdk_vectors(shared):
    n = 0
    for line in (shared / "vectors/dpdk_cksum_vectors.txt").read_text().splitlines():
        f = line.split()
        if not f or f[0] != "pkt":
            continue
        name, l3, l3off, l3len, l4, l4off, l4len = f[1], f[3], int(f[4]), int(f[5]), f[6], int(f[7]), int(f[8])
        l4csum, segs, frame = int(f[12], 16), f[14], bytes.fromhex(f[15])
        header = frame[l3off : l3off + l3len]
        if l3 == "ipv4":
            assert inetcsum.ipv4_header(header) == 0 and int.from_bytes(header[10:12], "big") == int(f[10], 16)
            pseudo = inetcsum.pseudo_ipv4(header[12:16], header[16:20], header[9], l4len)
        else:
            pseudo = inetcsum.pseudo_ipv6(header[8:24], header[24:40], header[6], l4len)
        verdict = inetcsum.l4_verify(l4, frame[l4off : l4off + l4len], pseudo, over_ipv6=l3 == "ipv6")
        assert verdict == (Status.GOOD, l4csum, l4csum), name
        if segs != "-":  # the mbuf chain: sums of segments combined at their offsets
            total, pos = 0, 0
            for length in map(int, segs.split(",")):
                total = inetcsum.combine(total, inetcsum.partial(frame[pos : pos + length]), pos)
                pos += length
            assert pos == len(frame) and total == inetcsum.partial(frame), name
        n += 1
    assert n == 6


def test_sctp_vectors(shared):
    verdicts = []
    for line in (shared / "vectors/crc32c_vectors.txt").read_text().splitlines():
        f = line.split()
        if f and f[0] == "sctp":
            packet = bytes.fromhex(f[5])
            verdict = inetcsum.l4_verify(Layer.SCTP, packet)
            assert verdict.status == f[3], (f[1], f[2])
            assert verdict.stored.to_bytes(4, "big") == bytes.fromhex(f[4])
            verdicts.append(verdict.status)
    assert verdicts.count(Status.GOOD) >= 100 and verdicts.count(Status.BAD) >= 10
