"""segment() against a reference of Linux's segmentation rules built on scapy, which computes every
length and checksum itself: super-packets of every kind (IPv4/IPv6, options, extension headers,
VLANs, each tunnel, odd sizes, FIN/PSH/CWR/ECE, fixed IDs, UDP payloads whose checksum is 0),
given by gso_size or by a virtio-net header as the kernel hands them over, all computed in
software or left to a device; and every bad input refused."""
import os
import struct

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scapy.contrib.geneve import GENEVE
from scapy.layers.inet import IP, TCP, UDP
from scapy.layers.inet6 import IPv6, IPv6ExtHdrDestOpt, IPv6ExtHdrHopByHop, IPv6ExtHdrRouting
from scapy.layers.l2 import GRE, Dot1AD, Dot1Q, Ether
from scapy.layers.vxlan import VXLAN
from scapy.packet import Raw

import inetcsum
from inetcsum import GsoType, Offload, Status, VnetFlag, VnetHeader, segment

# Both addresses given: for a missing one scapy asks ARP (2 s a frame, answers differ by machine).
ETHER = Ether(src="02:00:00:00:00:01", dst="02:00:00:00:00:02")

TCP_FIN, TCP_PSH, TCP_CWR = 0x01, 0x08, 0x80


# ---- the reference -----------------------------------------------------------------------------------


def ip_layers(pkt):
    out, layer = [], pkt
    while layer:
        if isinstance(layer, (IP, IPv6)):
            out.append(layer)
        layer = layer.payload if not isinstance(layer, Raw) else None
    return out


def innermost_l4(pkt):
    found, layer = None, pkt
    while layer and not isinstance(layer, Raw):
        if isinstance(layer, (TCP, UDP)):
            found = layer
        layer = layer.payload
    return found


def reference(frame, gso_size, fixed_id=False):
    """Linux's rules written out on scapy packets: each segment the super-packet with its payload
    cut, lengths and checksums left for scapy to compute, IDs, sequence numbers and flags set."""
    pkt = Ether(frame)
    target = innermost_l4(pkt)
    payload = bytes(target.payload)
    chunks = [payload[i : i + gso_size] for i in range(0, len(payload), gso_size)] or [b""]
    out = []
    for i, chunk in enumerate(chunks):
        q = Ether(frame)
        t = innermost_l4(q)
        t.remove_payload()
        t.add_payload(Raw(chunk))
        del t.chksum
        if isinstance(t, TCP):
            t.seq = (t.seq + i * gso_size) & 0xFFFFFFFF
            flags = int(t.flags)
            if i + 1 < len(chunks):
                flags &= ~(TCP_FIN | TCP_PSH)
            if i > 0:
                flags &= ~TCP_CWR
            t.flags = flags
        else:
            del t.len
        for ip in ip_layers(q):
            if isinstance(ip, IP):
                del ip.len, ip.chksum
                if not fixed_id:
                    ip.id = (ip.id + i) & 0xFFFF
            else:
                del ip.plen
        layer = q
        while layer is not t:  # tunnel headers: lengths, and checksums where they were set
            if isinstance(layer, UDP):
                del layer.len
                if layer.chksum:
                    del layer.chksum
            if isinstance(layer, GRE) and layer.chksum_present:
                del layer.chksum
            layer = layer.payload
        out.append(bytes(q))
    return out


# ---- super-packets -----------------------------------------------------------------------------------

A4, B4, A6, B6 = "192.0.2.1", "198.51.100.2", "2001:db8::1", "2001:db8:ffff::2"
ETH = Ether(src="02:00:00:00:00:01", dst="02:00:00:00:00:02")  # addresses given: scapy asks ARP otherwise


def payload(n, seed=0):
    return bytes((i * 7 + seed) & 0xFF for i in range(n))


def tcp(flags="A", seq=1000, options=()):
    return TCP(sport=40000, dport=5201, seq=seq, ack=77, flags=flags, window=512, options=list(options))


def udp():
    return UDP(sport=4433, dport=443)


def kinds():
    """(name, scapy packet without payload) for every kind segmented."""
    ts = [("MSS", 1460), ("NOP", None), ("NOP", None), ("Timestamp", (1, 2))]
    return {
        "ipv4-tcp": ETH / IP(src=A4, dst=B4, id=65530, flags="DF") / tcp(),
        "ipv4-options-tcp-options": ETH / IP(src=A4, dst=B4, id=7, options=[b"\x94\x04\x00\x00"]) / tcp(options=ts),
        "ipv6-tcp": ETH / IPv6(src=A6, dst=B6) / tcp(flags="FPA"),  # (CWR: test_tcp_flags_and_sequence_wrap)
        "ipv6-ext-tcp": ETH / IPv6(src=A6, dst=B6) / IPv6ExtHdrHopByHop() / IPv6ExtHdrRouting(addresses=["2001:db8::99"], segleft=1)
        / IPv6ExtHdrDestOpt() / tcp(flags="PAE"),
        "ipv4-source-route-udp": ETH / IP(src=A4, dst=B4, options=[b"\x83\x07\x04\xcb\x00\x71\x09", b"\x00"])
        / udp(),  # LSRR to 203.0.113.9: the pseudo-header's destination
        "vlan-ipv4-tcp": ETH / Dot1Q(vlan=5) / IP(src=A4, dst=B4) / tcp(flags="FA"),
        "qinq-ipv6-udp": ETH / Dot1AD(vlan=6) / Dot1Q(vlan=7) / IPv6(src=A6, dst=B6) / udp(),
        "ipv4-udp": ETH / IP(src=A4, dst=B4, id=1) / udp(),
        "vxlan4-tcp4": ETH / IP(src=A4, dst=B4, id=300) / UDP(sport=50000, dport=4789, chksum=0)
        / VXLAN(vni=42) / ETH / IP(src="10.0.0.1", dst="10.0.0.2", id=9) / tcp(flags="PA"),
        "vxlan4-csum-tcp6": ETH / IP(src=A4, dst=B4) / UDP(sport=50000, dport=4789)
        / VXLAN(vni=42) / ETH / IPv6(src="fd00::1", dst="fd00::2") / tcp(),
        "vxlan6-csum-udp4": ETH / IPv6(src=A6, dst=B6) / UDP(sport=50000, dport=4789)
        / VXLAN(vni=1) / ETH / IP(src="10.0.0.1", dst="10.0.0.2") / udp(),
        "geneve4-options-tcp4": ETH / IP(src=A4, dst=B4) / UDP(sport=50001, dport=6081, chksum=0)
        / GENEVE(vni=5, proto=0x6558, options=b"\x01\x02\x03\x01\xaa\xbb\xcc\xdd")
        / ETH / IP(src="10.0.0.1", dst="10.0.0.2") / tcp(),
        "gre-tcp4": ETH / IP(src=A4, dst=B4) / GRE(proto=0x0800) / IP(src="10.0.0.1", dst="10.0.0.2") / tcp(),
        "gre-csum-key-seq-tcp6": ETH / IP(src=A4, dst=B4)
        / GRE(proto=0x86DD, chksum_present=1, key_present=1, key=5, seqnum_present=1, sequence_number=9)
        / IPv6(src="fd00::1", dst="fd00::2") / tcp(),
        "gre6-teb-udp4": ETH / IPv6(src=A6, dst=B6) / GRE(proto=0x6558, chksum_present=1) / ETH
        / IP(src="10.0.0.1", dst="10.0.0.2") / udp(),
        "ipip-tcp": ETH / IP(src=A4, dst=B4) / IP(src="10.0.0.1", dst="10.0.0.2") / tcp(),
        "sit-tcp": ETH / IP(src=A4, dst=B4) / IPv6(src="fd00::1", dst="fd00::2") / tcp(flags="PA"),
        "ip6ip6-udp": ETH / IPv6(src=A6, dst=B6) / IPv6(src="fd00::1", dst="fd00::2") / udp(),
    }


def build(kind, n, seed=0):
    return bytes(kinds()[kind] / Raw(payload(n, seed)))


@pytest.mark.parametrize("kind", sorted(kinds()))
@pytest.mark.parametrize("n,gso", [(1, 1), (1448 * 3, 1448), (1448 * 3 + 1, 1448), (5000, 999), (65000 // 2, 1200)])
def test_every_kind_against_the_reference(kind, n, gso):
    frame = build(kind, n)
    ours = segment(frame, gso_size=gso)
    theirs = reference(frame, gso)
    assert len(ours) == len(theirs) == max(1, -(-n // gso))
    for i, (a, b) in enumerate(zip(ours, theirs)):
        assert a == b, (kind, i, Ether(a).show2(dump=True), Ether(b).show2(dump=True))
        assert inetcsum.verify(a).ok


# A payload and a segment size giving at most 48 segments (the reference builds each with scapy).
SIZES = st.integers(1, 20000).flatmap(lambda n: st.tuples(st.just(n), st.integers(max(1, -(-n // 48)), 9000)))


@settings(deadline=None)
@given(kind=st.sampled_from(sorted(kinds())), sizes=SIZES, seed=st.integers(0, 255))
def test_any_size_against_the_reference(kind, sizes, seed):
    n, gso = sizes
    frame = build(kind, n, seed)
    if len(frame) - 14 > 0xFFFF:
        return
    assert segment(frame, gso_size=gso) == reference(frame, gso)


def test_tcp_flags_and_sequence_wrap():
    frame = bytes(ETH / IP(src=A4, dst=B4, id=0xFFFF) / tcp(flags="FSRPAUEC", seq=0xFFFFFF00) / Raw(payload(3000)))
    segs = [Ether(s) for s in segment(frame, gso_size=1000)]
    assert [s[TCP].seq for s in segs] == [0xFFFFFF00, (0xFFFFFF00 + 1000) & 0xFFFFFFFF, (0xFFFFFF00 + 2000) & 0xFFFFFFFF]
    assert [s[IP].id for s in segs] == [0xFFFF, 0, 1]
    flags = [int(s[TCP].flags) for s in segs]
    assert flags[0] & TCP_CWR and not any(f & TCP_CWR for f in flags[1:])  # CWR on the first only
    assert not any(f & (TCP_FIN | TCP_PSH) for f in flags[:-1]) and flags[-1] & TCP_FIN and flags[-1] & TCP_PSH
    assert all(f & 0x40 and f & 0x20 for f in flags)  # ECE and URG stay


def test_fixed_id_with_and_without_df():
    """Linux 6.18's inet_gso_segment keeps a fixed ID whether or not DF is set."""
    frame = build("ipv4-tcp", 4000)  # DF set
    segs = segment(frame, gso_size=1000, fixed_id=True)
    assert {Ether(s)[IP].id for s in segs} == {65530} and segs == reference(frame, 1000, fixed_id=True)
    no_df = bytes(ETH / IP(src=A4, dst=B4, id=3) / tcp() / Raw(payload(4000)))
    segs = segment(no_df, gso_size=1000, fixed_id=True)
    assert {Ether(s)[IP].id for s in segs} == {3} and segs == reference(no_df, 1000, fixed_id=True)


def udp_summing_to_zero(version):
    """A UDP datagram of 3 segments whose second one's checksum computes to 0 (sent as 0xFFFF)."""
    ip = IP(src=A4, dst=B4) if version == 4 else IPv6(src=A6, dst=B6)
    body = bytearray(payload(3000))
    frame = bytearray(bytes(ETH / ip / udp() / Raw(bytes(body))))
    # Two bytes at an even offset of the second segment's payload, zero, leave it a checksum C (the
    # complement of its sum S); the same two bytes set to C make the sum S + ~S = 0xFFFF, whose
    # complement is the 0 sent as 0xFFFF.  (C is never 0xFFFF here: the payload is not all zeros.)
    seg_start = len(frame) - 3000 + 1000
    frame[seg_start : seg_start + 2] = b"\0\0"
    value = Ether(segment(bytes(frame), gso_size=1000)[1])[UDP].chksum
    frame[seg_start : seg_start + 2] = struct.pack("!H", value)
    return bytes(frame)


@pytest.mark.parametrize("version", [4, 6])
def test_udp_checksum_zero_is_sent_as_ffff(version):
    frame = udp_summing_to_zero(version)
    segs = segment(frame, gso_size=1000)
    assert Ether(segs[1])[UDP].chksum == 0xFFFF and segs == reference(frame, 1000)
    assert all(inetcsum.verify(s).ok for s in segs)


# ---- from a virtio-net header ---------------------------------------------------------------------------


def partial_frame(kind, n, whole=False):
    """A super-packet as the kernel hands it over with NEEDS_CSUM: the segmented checksum holds
    the pseudo-header sum over the whole L4 length; and its virtio-net header.  whole: kind is
    the super-packet's bytes."""
    pkt = Ether(kind if whole else build(kind, n))
    t = innermost_l4(pkt)
    raw = bytearray(bytes(pkt))
    start = len(raw) - len(bytes(t))
    under = t.underlayer
    while not isinstance(under, (IP, IPv6)):
        under = under.underlayer
    proto = 6 if isinstance(t, TCP) else 17
    pseudo = (inetcsum.pseudo_ipv4 if isinstance(under, IP) else inetcsum.pseudo_ipv6)(
        under.src, under.dst, proto, len(bytes(t))
    )
    off = 16 if proto == 6 else 6
    raw[start + off : start + off + 2] = struct.pack("!H", pseudo)
    if proto == 6:
        gso_type = GsoType.TCPV4 if isinstance(under, IP) else GsoType.TCPV6
        if int(t.flags) & TCP_CWR:
            gso_type |= GsoType.ECN
    else:
        gso_type = GsoType.UDP_L4
    return bytes(raw), start, off, gso_type


@pytest.mark.parametrize("kind", sorted(kinds()))
@pytest.mark.parametrize("size", [10, 12])
def test_from_a_virtio_net_header(kind, size):
    frame, start, off, gso_type = partial_frame(kind, 5000)
    vh = VnetHeader(VnetFlag.NEEDS_CSUM, gso_type, 0, 1448, start, off)  # hdr_len 0: recomputed
    ours = segment(frame, vnet=vh.pack(size))
    assert ours == reference(frame, 1448)
    assert VnetHeader.unpack(vh.pack(12)) == vh


def test_left_for_the_device_completes_to_the_same_bytes():
    # A TAP with TUN_F_CSUM: the TCP checksum left seeded, with a header saying where it is.
    frame, start, off, gso_type = partial_frame("ipv4-tcp", 5000)
    full = segment(frame, gso_size=1448)
    left = segment(frame, gso_size=1448, device=Offload.TCP4, vnet_out=12)
    for a, b in zip(full, left):
        vh = VnetHeader.unpack(b[:12])
        assert vh.flags == VnetFlag.NEEDS_CSUM and (vh.csum_start, vh.csum_offset) == (start, off)
        assert vh.gso_type == GsoType.NONE
        pkt = bytearray(b[12:])
        assert inetcsum.verify(pkt)[1].status == Status.PARTIAL
        inetcsum.complete_partial(pkt, vh.csum_start, vh.csum_offset)
        assert bytes(pkt) == a
    zeroed = segment(frame, gso_size=1448, device=Offload.TCP4 | Offload.IPV4, zero_seed=True)
    assert all(Ether(s)[TCP].chksum == 0 and Ether(s)[IP].chksum == 0 for s in zeroed)
    # A tunnel whose outer UDP checksum is computed here over an inner one the device fills.
    frame = build("vxlan4-csum-tcp6", 5000)
    full = segment(frame, gso_size=1000)
    left = segment(frame, gso_size=1000, device=Offload.inner(Offload.TCP6), vnet_out=10)
    for a, b in zip(full, left):
        vh = VnetHeader.unpack(b[:10])
        pkt = bytearray(b[10:])
        inetcsum.complete_partial(pkt, vh.csum_start, vh.csum_offset)
        assert bytes(pkt) == a


def test_no_gso_when_the_payload_fits():
    frame, start, off, gso_type = partial_frame("ipv6-tcp", 1000)
    segs = segment(frame, vnet=VnetHeader(VnetFlag.NEEDS_CSUM, gso_type, 0, 1448, start, off).pack())
    assert len(segs) == 1 and inetcsum.verify(segs[0]).ok
    segs = segment(frame, vnet=VnetHeader(VnetFlag.NEEDS_CSUM, GsoType.NONE, 0, 0, start, off).pack())
    assert len(segs) == 1 and inetcsum.verify(segs[0]).ok


def test_into_a_buffer():
    frame = build("ipv6-ext-tcp", 7000)
    out = bytearray(20000)
    views = segment(frame, gso_size=1448, out=out)
    assert [bytes(v) for v in views] == segment(frame, gso_size=1448)
    total = sum(len(v) for v in views)
    assert out[total:] == bytearray(20000 - total)
    small = bytearray(total - 1)
    with pytest.raises(ValueError, match="too small"):
        segment(frame, gso_size=1448, out=small)
    assert small == bytearray(total - 1)  # nothing written when it cannot all fit


# ---- bad input -----------------------------------------------------------------------------------------


def test_bad_virtio_net_headers():
    frame, start, off, gso_type = partial_frame("ipv4-tcp", 5000)
    good = VnetHeader(VnetFlag.NEEDS_CSUM, gso_type, 0, 1448, start, off)
    bad = {
        "gso_size 0": good._replace(gso_size=0),
        "csum_start outside": good._replace(csum_start=len(frame)),
        "csum_start + offset + 2 past the end": good._replace(csum_start=len(frame) - 10, csum_offset=9),
        "csum_start not at the TCP header": good._replace(csum_start=start + 4),
        "csum_offset of UDP on TCP": good._replace(csum_offset=6),
        "TCPV6 on IPv4": good._replace(gso_type=GsoType.TCPV6),
        "UDP_L4 on TCP": good._replace(gso_type=GsoType.UDP_L4),
        "UFO": good._replace(gso_type=GsoType.UDP),
        "an unknown type": good._replace(gso_type=2),
        "ECN on UDP": good._replace(gso_type=GsoType.UDP_L4 | GsoType.ECN),
    }
    for why, h in bad.items():
        with pytest.raises(ValueError):
            segment(frame, vnet=h.pack())
            pytest.fail(why)
    udp_frame, ustart, uoff, _ = partial_frame("ipv4-udp", 200 * 129)
    with pytest.raises(ValueError, match="128"):  # more UDP segments than Linux allows
        segment(udp_frame, vnet=VnetHeader(VnetFlag.NEEDS_CSUM, GsoType.UDP_L4, 0, 200, ustart, uoff).pack())
    with pytest.raises(ValueError):  # USO needs NEEDS_CSUM
        segment(udp_frame, vnet=VnetHeader(0, GsoType.UDP_L4, 0, 200, 0, 0).pack())
    with pytest.raises(ValueError):
        segment(frame, vnet=b"\x00" * 11)


def test_bad_packets():
    good = bytearray(build("ipv4-tcp", 3000))
    cases = {
        "IP length too long": (16, b"\xff\xff"),
        "IP length too short": (16, b"\x05\x00"),
        "a fragment": (20, b"\x20\x00"),
        "TCP data offset 4": (46, b"\x40"),
        "IPv6 inside IPv4 ethertype": (14, b"\x60"),
    }
    for why, (at, data) in cases.items():
        frame = bytearray(good)
        frame[at : at + len(data)] = data
        with pytest.raises(ValueError):
            segment(bytes(frame), gso_size=1000)
            pytest.fail(why)
    for cut in (13, 20, 40, 53):
        with pytest.raises(ValueError):
            segment(bytes(good[:cut]), gso_size=1000)
    icmp = bytes(ETH / IP(src=A4, dst=B4, proto=1) / Raw(payload(3000)))
    with pytest.raises(ValueError, match="does not segment"):
        segment(icmp, gso_size=1000)
    with pytest.raises(TypeError, match="vnet and gso_size both given"):
        segment(bytes(good), gso_size=1000, vnet=b"\x00" * 10)
    with pytest.raises(TypeError, match=r"give vnet= .* or gso_size= "):  # (it said "not both" for neither)
        segment(bytes(good))
    with pytest.raises(ValueError):
        segment(bytes(good), gso_size=0)


@settings(deadline=None)
@given(st.binary(max_size=300), st.integers(1, 2000), st.binary(min_size=10, max_size=10))
def test_garbage_is_refused_or_segmented_consistently(data, gso, vnet):
    for kwargs in ({"gso_size": gso}, {"vnet": vnet}):
        try:
            segs = segment(data, **kwargs)
        except ValueError:
            continue
        # Whatever was accepted splits the payload without losing or adding a byte.
        assert sum(len(s) for s in segs) >= len(data)


# ---- coalescing --------------------------------------------------------------------------------------



def filled(frame):
    out = bytearray(frame)
    inetcsum.fill(out, all=True)
    return bytes(out)


def completed(pkt):
    """A coalescer's output: its virtio-net header, and the frame with the checksum completed."""
    vh = VnetHeader.unpack(pkt[:12])
    frame = bytearray(pkt[12:])
    if vh.flags & VnetFlag.NEEDS_CSUM:
        inetcsum.complete_partial(frame, vh.csum_start, vh.csum_offset)
    return vh, bytes(frame)


@pytest.mark.parametrize("kind", sorted(kinds()))
def test_segments_coalesce_back_to_the_super_packet(kind):
    frame, start, off, gso_type = partial_frame(kind, 20000)
    gso = 1448 if "tcp" in kind else 1200
    segs = segment(frame, gso_size=gso)
    c = inetcsum.Coalescer(any_tunnel=True)  # a tunnel's super-packet for segment(), not a kernel
    out = [o for s in segs for o in c.add(s)] + c.flush()
    if "ipv4-options" in kind or "source-route" in kind:
        # Linux's inet_gro_receive merges no IPv4 header but 0x45: each passes alone, as it came
        assert [o[12:] for o in out] == segs
        return
    assert len(out) == 1
    vh, got = completed(out[0])
    assert vh.flags == VnetFlag.NEEDS_CSUM and (vh.csum_start, vh.csum_offset) == (start, off)
    assert vh.gso_type == gso_type and vh.gso_size == gso and vh.hdr_len == len(frame) - 20000
    assert got == filled(frame) or (got[:start + off] == filled(frame)[:start + off])  # TCP 0 vs 0xFFFF aside
    assert inetcsum.verify(got).ok and got[start + off + 2:] == filled(frame)[start + off + 2:]
    # And segmented again from that header, the same segments as before.
    assert segment(out[0][12:], vnet=out[0][:12]) == segs


def test_trains_end_where_linux_ends_them():
    frame = build("ipv4-tcp", 14480)
    segs = segment(frame, gso_size=1448)
    c = inetcsum.Coalescer(vnet_size=10)
    # A bad checksum in the fifth: it passes alone and untouched at once (Linux's tcp4_gro_receive
    # flushes it before looking for its flow); the four before go out merged when the sixth finds
    # the gap, the rest merged again.
    bad = bytearray(segs[4])
    bad[-1] ^= 1
    out = [o for s in segs[:4] + [bytes(bad)] + segs[5:] for o in c.add(s)] + c.flush()
    assert [VnetHeader.unpack(o[:10]).gso_type for o in out] == [0, GsoType.TCPV4, GsoType.TCPV4]
    assert out[0][10:] == bytes(bad)
    assert len(out[1]) - 10 == 14 + 20 + 20 + 4 * 1448
    # A gap in the sequence, a different window, a CWR, PSH: each ends a train.
    def tcp_frame(seq, flags="A", window=512, payload=b"x" * 100):
        return bytes(ETH / IP(src=A4, dst=B4, id=seq // 100, flags="DF") / TCP(sport=1, dport=2, seq=seq, flags=flags,
                                                                                   window=window) / payload)
    c = inetcsum.Coalescer()
    outs = []
    for f in [tcp_frame(0), tcp_frame(100), tcp_frame(300), tcp_frame(400, window=9), tcp_frame(500, window=9),
              tcp_frame(600, flags="AC", window=9), tcp_frame(700, flags="PA", window=9)]:
        outs.append(len(c.add(f)))
    outs.append(len(c.flush()))
    # 0,100 merge; 300 (gap) emits them; 400 (window) emits 300; 500 merges; CWR emits 400+500
    # and is held, but nothing joins it (Linux 6.15): 700 emits it, and PSH ends 700 on its own.
    assert outs == [0, 0, 1, 1, 0, 1, 2, 0]


def _train(n, size=1000, seq=0, ip_id=100, df=True, flags="A", v6=False, seq_step=None):
    """n TCP segments of one flow, `size` payload bytes each, as a sender puts them on the wire."""
    out = []
    for i in range(n):
        ip = IPv6(src=A6, dst=B6) if v6 else IP(src=A4, dst=B4, id=ip_id(i) if callable(ip_id) else ip_id + i,
                                                   flags="DF" if df else 0)
        f = flags(i) if callable(flags) else flags
        out.append(bytes(ETH / ip / TCP(sport=1, dport=2, seq=seq + i * (seq_step or size), flags=f, window=9)
                         / payload(size, i)))
    return out


def _sizes(outs):
    return [len(o) for o in outs]


def test_linux_618_merge_rules():
    """The rules Linux 6.18 merges by, each where the library once differed (issue 26): the
    function and commit each follows are in docs/gso.md."""
    c = inetcsum.Coalescer(vnet_size=0)
    # 1. inet_gro_receive: an IPv4 header checksum that is wrong is never merged nor rewritten;
    #    it goes out at once, what its flow holds stays held.
    segs = _train(5)
    bad = bytearray(segs[2])
    bad[14 + 10] ^= 0x01
    out = [o for s in segs[:2] + [bytes(bad)] + segs[3:] for o in c.add(s)] + c.flush()
    assert out[0] == bytes(bad) and _sizes(out) == [len(bad), 54 + 2000, 54 + 2000]
    assert all(inetcsum.verify(o)[0].status == Status.GOOD for o in out[1:])  # (their IPv4 headers)
    # 2. ... and no IPv4 header with options: each passes as it came.
    opts = [bytes(ETH / IP(src=A4, dst=B4, id=i, flags="DF", options=[b"\x94\x04\x00\x00"])
                  / TCP(sport=1, dport=2, seq=i * 1000, flags="A") / payload(1000)) for i in range(3)]
    assert [o for s in opts for o in c.add(s)] + c.flush() == opts
    # 3. inet_gro_flush (6.18, "net: gro: ... fixed ids"): one fixed ID merges with or without DF.
    for df in (True, False):
        out = [o for s in _train(4, ip_id=lambda i: 77, df=df) for o in c.add(s)] + c.flush()
        assert _sizes(out) == [54 + 4000], df
        assert Ether(out[0])[IP].id == 77
    # 4. tcp_gro_receive (6.15, 4e4f7cefb130, AccECN): a segment with CWR is never merged, before
    #    or after, whatever its place in the train (as the running kernel does, test_gro_kernel).
    out = [o for s in _train(6, flags=lambda i: "AC" if i in (0, 3, 4) else "A") for o in c.add(s)] + c.flush()
    assert _sizes(out) == [1054, 54 + 2000, 1054, 1054, 1054]
    assert [int(Ether(o)[TCP].flags) & TCP_CWR for o in out] == [TCP_CWR, 0, TCP_CWR, TCP_CWR, 0]
    # 5. skb_gro_receive: from the IP header on, a merged packet stays below gro_max_size (65,536),
    #    IPv6's fixed header counted: two of 21,830 bytes (65,550 with three), not three.
    out = [o for s in _train(3, size=21830, v6=True) for o in c.add(s)] + c.flush()
    assert _sizes(out) == [14 + 40 + 20 + 2 * 21830, 14 + 40 + 20 + 21830]
    out = [o for s in _train(3, size=21800, v6=True) for o in c.add(s)] + c.flush()  # 65,460: one
    assert _sizes(out) == [14 + 40 + 20 + 3 * 21800]
    # 6. A frame of the flow with Ethernet padding (a bare ACK) goes after what the flow held, as
    #    Linux's tcp_gro_receive flushes the flow it finds first.
    segs = _train(3)
    ack = bytes(ETH / IP(src=A4, dst=B4, id=103, flags="DF") / TCP(sport=1, dport=2, seq=3000, flags="A", window=9))
    padded = ack + bytes(60 - len(ack))
    out = [o for s in segs + [padded] for o in c.add(s)] + c.flush()
    assert out == [out[0], padded] and len(out[0]) == 54 + 3000


def test_ids_lengths_and_limits():
    c = inetcsum.Coalescer(vnet_size=0)
    udp = [bytes(ETH / IP(src=A4, dst=B4, id=i) / UDP(sport=7, dport=8) / (b"u" * 1000)) for i in range(70)]
    out = [o for u in udp for o in c.add(u)] + c.flush()
    assert [len(o) for o in out] == [14 + 20 + 8 + 64 * 1000, 14 + 20 + 8 + 6 * 1000]  # 64 datagrams at most
    # IDs must count up by one (or stay, with DF); a jump ends the train.
    c = inetcsum.Coalescer(vnet_size=0)
    ids = [bytes(ETH / IP(src=A4, dst=B4, id=i) / UDP(sport=7, dport=8) / (b"u" * 100)) for i in (5, 6, 9, 10)]
    assert len([o for u in ids for o in c.add(u)] + c.flush()) == 2
    # UDP checksums zero and set never mix.
    c = inetcsum.Coalescer(vnet_size=0)
    a = bytes(ETH / IP(src=A4, dst=B4, id=1) / UDP(sport=7, dport=8, chksum=0) / (b"u" * 100))
    b = bytes(ETH / IP(src=A4, dst=B4, id=2) / UDP(sport=7, dport=8) / (b"u" * 100))
    assert len(c.add(a) + c.add(b) + c.flush()) == 2
    # Not TCP or UDP: alone, as it came.
    c = inetcsum.Coalescer(vnet_size=12)
    icmp = bytes(ETH / IP(src=A4, dst=B4, proto=1) / Raw(payload(100)))
    assert c.add(icmp) == [bytes(12) + icmp] and c.flush() == []
    # A tunnel's own checksum wrong: the packet passes alone, untouched, at once.
    c = inetcsum.Coalescer(vnet_size=24)
    segs = segment(build("vxlan4-csum-tcp6", 5000), gso_size=1000)
    bad = bytearray(segs[2])
    bad[40:42] = b"\x00\x01"  # the outer UDP checksum (Ethernet 14 + IPv4 20 + 6)
    out = [o for s in segs[:2] + [bytes(bad)] + segs[3:] for o in c.add(s)] + c.flush()
    tcp6_in_udp4 = GsoType.TCPV6 | GsoType.UDP_TUNNEL_IPV4
    assert [VnetHeader.unpack(o[:24]).gso_type for o in out] == [0, tcp6_in_udp4, tcp6_in_udp4]
    assert out[0][24:] == bytes(bad)


# ---- UDP-tunnel GSO: the 24-byte header of a TAP with TUN_F_UDP_TUNNEL_GSO (Linux 6.17+) -------------------

UDP_TUNNEL_KINDS = ["vxlan4-tcp4", "vxlan4-csum-tcp6", "vxlan6-csum-udp4", "geneve4-options-tcp4"]


def tunnel_frame(frame, gso_size):
    """A UDP-tunnelled super-packet as such a kernel hands it over: the segmented checksum and the
    tunnel's (when it has one, with UDP_TUNNEL_CSUM) hold their pseudo-header sums; and its header."""
    frame, start, off, gso_type = partial_frame(frame, len(innermost_l4(Ether(frame)).payload), whole=True)
    pkt = Ether(frame)
    outer, inner = ip_layers(pkt)[:2]
    tunnel_udp = outer.payload
    while not isinstance(tunnel_udp, UDP):
        tunnel_udp = tunnel_udp.payload
    outer_th, inner_nh = len(frame) - len(bytes(tunnel_udp)), len(frame) - len(bytes(inner))
    raw, flags = bytearray(frame), VnetFlag.NEEDS_CSUM
    if tunnel_udp.chksum:
        pseudo = (inetcsum.pseudo_ipv4 if isinstance(outer, IP) else inetcsum.pseudo_ipv6)(
            outer.src, outer.dst, 17, len(frame) - outer_th
        )
        raw[outer_th + 6 : outer_th + 8] = struct.pack("!H", pseudo)
        flags |= VnetFlag.UDP_TUNNEL_CSUM
    gso_type |= GsoType.UDP_TUNNEL_IPV4 if isinstance(outer, IP) else GsoType.UDP_TUNNEL_IPV6
    return bytes(raw), VnetHeader(flags, gso_type, 0, gso_size, start, off, 0, outer_th, inner_nh)


@pytest.mark.parametrize("kind", UDP_TUNNEL_KINDS)
def test_udp_tunnel_header_segments_as_linux(kind):
    frame, vh = tunnel_frame(build(kind, 9000), 1300)
    assert VnetHeader.unpack(vh.pack(24)) == vh
    assert segment(frame, vnet=vh.pack(24)) == reference(frame, 1300)
    # UDP_TUNNEL_CSUM asks for a tunnel checksum even where the field is 0.
    if not vh.flags & VnetFlag.UDP_TUNNEL_CSUM:
        segs = segment(frame, vnet=vh._replace(flags=vh.flags | VnetFlag.UDP_TUNNEL_CSUM).pack(24))
        assert all(inetcsum.verify(s).ok and Ether(s)[UDP].chksum != 0 for s in segs)


def test_udp_tunnel_header_names_a_tunnel_on_any_port():
    # VXLAN on 8472 (Linux's default without dstport, flannel's): the ports name no tunnel, the
    # header's offsets do.  The same segments as on 4789, the port aside.
    frame, vh = tunnel_frame(build("vxlan4-tcp4", 6000), 1400)
    other = bytearray(frame)
    other[36:38] = struct.pack("!H", 8472)  # the outer UDP destination port
    segs, others = segment(frame, vnet=vh.pack(24)), segment(bytes(other), vnet=vh.pack(24))
    assert [s[:36] + s[38:] for s in segs] == [s[:36] + s[38:] for s in others]
    with pytest.raises(ValueError):  # without the offsets nothing says it is a tunnel
        segment(bytes(other), vnet=vh._replace(gso_type=GsoType.TCPV4).pack(12))


def test_bad_udp_tunnel_headers():
    frame, good = tunnel_frame(build("vxlan4-csum-tcp6", 5000), 1000)
    assert segment(frame, vnet=good.pack(24))
    bad = {
        "both tunnel bits": good._replace(gso_type=good.gso_type | GsoType.UDP_TUNNEL_IPV6),
        "IPv6 tunnel over IPv4": good._replace(gso_type=GsoType.TCPV6 | GsoType.UDP_TUNNEL_IPV6),
        "UFO in a tunnel": good._replace(gso_type=GsoType.UDP | GsoType.UDP_TUNNEL_IPV4),
        "no GSO in a tunnel": good._replace(gso_type=GsoType.UDP_TUNNEL_IPV4),
        "no NEEDS_CSUM": good._replace(flags=VnetFlag.UDP_TUNNEL_CSUM),
        "outer_th not the tunnel's UDP header": good._replace(outer_th_offset=good.outer_th_offset + 2),
        "inner_nh at the inner Ethernet header": good._replace(inner_nh_offset=good.inner_nh_offset - 14),
        "inner_nh before the tunnel's UDP header ends": good._replace(inner_nh_offset=good.outer_th_offset + 4),
        "offsets 0": good._replace(outer_th_offset=0, inner_nh_offset=0),
    }
    for why, h in bad.items():
        with pytest.raises(ValueError):
            segment(frame, vnet=h.pack(24))
            pytest.fail(why)
    # The tunnel bits on packets without a UDP tunnel.
    for kind in ("ipv4-tcp", "gre-tcp4"):
        f, start, off, gso_type = partial_frame(kind, 5000)
        with pytest.raises(ValueError):
            segment(f, vnet=VnetHeader(VnetFlag.NEEDS_CSUM, gso_type | GsoType.UDP_TUNNEL_IPV4, 0, 1000, start, off,
                                       0, 34, 42).pack(24))
            pytest.fail(kind)


@pytest.mark.parametrize("kind", sorted(kinds()))
def test_tunnels_coalesced_as_the_receiver_takes_them(kind):
    frame = build(kind, 12000)
    segs = segment(frame, gso_size=1200)
    in_udp_tunnel = kind in UDP_TUNNEL_KINDS
    tunnelled = len(ip_layers(Ether(frame))) > 1
    for size in (12, 24):
        c = inetcsum.Coalescer(vnet_size=size)
        out = [o for s in segs for o in c.add(s)] + c.flush()
        options = "ipv4-options" in kind or "source-route" in kind  # never merged (inet_gro_receive)
        if options or (tunnelled and not (size == 24 and in_udp_tunnel)):  # a kernel would refuse it: as it came
            assert [o[size:] for o in out] == segs and all(o[:size] == bytes(size) for o in out)
            continue
        assert len(out) == 1
        vh = VnetHeader.unpack(out[0][:size])
        if tunnelled:  # the kernel's own form: what a TAP hands out for such a packet
            want, vh_want = tunnel_frame(frame, 1200)
            assert vh == vh_want._replace(hdr_len=len(frame) - 12000)
            assert out[0][size:] == want
        assert segment(out[0][size:], vnet=out[0][:size]) == segs


def test_api_edges():
    """Issue 26's API items: a packet without GSO that is neither TCP nor UDP comes back as it is
    (the Python README's TAP loop meets ARP and ICMP), a bound on the segment count, any buffer."""
    from scapy.layers.inet import ICMP
    from scapy.layers.l2 import ARP
    arp = bytes(ETH / ARP(psrc=A4, pdst=B4))
    ping = bytes(ETH / IP(src=A4, dst=B4) / ICMP() / Raw(payload(56)))
    for frame in (arp, ping):  # as the README's loop reads them from a TAP: a zeroed header first
        data = bytes(12) + frame
        assert inetcsum.segment(data[12:], vnet=data[:12]) == [frame]
        assert inetcsum.segment(frame, vnet=bytes(12), vnet_out=12) == [bytes(12) + frame]
    # a peer's gso_size of 1: 6,000 segments, refused under a bound of 64, with the count said
    big = build("ipv4-tcp", 6000)
    ask = VnetHeader(flags=VnetFlag.NEEDS_CSUM, gso_type=GsoType.TCPV4, gso_size=1, csum_start=34, csum_offset=16)
    frame, _, _, _ = partial_frame("ipv4-tcp", 6000)
    assert len(inetcsum.segment(frame, vnet=ask.pack(12))) == 6000
    with pytest.raises(ValueError, match="6000 segments, more than allowed"):
        inetcsum.segment(frame, vnet=ask.pack(12), max_segs=64)
    with pytest.raises(ValueError, match="60 segments"):
        inetcsum.segment(big, gso_size=100, max_segs=59)
    # Coalescer.add takes any bytes-like object
    c = inetcsum.Coalescer(vnet_size=0)
    segs = segment(big, gso_size=1000)
    out = c.add(segs[0]) + c.add(bytearray(segs[1])) + c.add(memoryview(segs[2])) + c.flush()
    assert len(out) == 1 and len(out[0]) == len(big) - 3000


@pytest.mark.parametrize("outer_fixed,inner_fixed", [(False, True), (True, False), (True, True), (False, False)])
def test_fixed_ids_per_level_round_trip(outer_fixed, inner_fixed):
    """IPv4 in IPv4 with the outer and inner IDs each fixed or counting up (Linux 6.18 merges every
    such train and keeps the state per level): what Coalescer.fixed_ids() says of the merged
    packet, given to segment(), gives back the packets merged, byte for byte; without it every
    level's IDs count up."""
    frames = []
    for i in range(5):
        inner = IP(src="10.1.0.1", dst="10.1.0.2", id=700 + (0 if inner_fixed else i)) / \
            TCP(sport=4000, dport=80, seq=1000 + 1000 * i, flags="A") / Raw(bytes([i]) * 1000)
        frames.append(bytes(ETHER / IP(src="10.9.0.1", dst="10.9.0.2", id=30 + (0 if outer_fixed else i)) / inner))
    c = inetcsum.Coalescer(vnet_size=12, any_tunnel=True)
    out = [o for f in frames for o in c.add(f)]
    assert out == [] and c.fixed_ids() == []
    out = c.flush()
    assert len(out) == 1 and c.fixed_ids() == [(outer_fixed, inner_fixed)]
    levels = c.fixed_ids()[0]
    assert segment(out[0][12:], vnet=out[0][:12], fixed_id=levels) == frames
    counted = segment(out[0][12:], vnet=out[0][:12])
    assert [IP(f[14:]).id for f in counted] == [30 + i for i in range(5)]
    assert (counted == frames) == (not outer_fixed and not inner_fixed)
    with pytest.raises(ValueError, match="fixed_id names 1 levels; the packet has 2 IP levels"):
        segment(out[0][12:], vnet=out[0][:12], fixed_id=[True])
    alone = inetcsum.Coalescer(vnet_size=12)
    alone.add(bytes(ETHER / IP() / UDP() / Raw(b"x")))
    assert len(alone.flush()) == 1 and alone.fixed_ids() == [()]  # (one packet, as it came)


def test_big_tcp_with_the_jumbo_header_segments_as_without_it():
    """A BIG TCP IPv6 packet over 64 KB with the jumbo hop-by-hop header Linux 5.19-6.2 inserted
    (and captures show) is segmented as Linux segments it, without that header: the same segments
    as the packet Linux 6.3 sends (issue 37: inetcsum_gso_jumbo_remove); a jumbo length that is not
    the packet's is refused by name."""
    body = payload(70000)
    plain = bytearray(bytes(ETH / IPv6(src=A6, dst=B6, plen=0) / TCP(sport=1, dport=2, flags="PA") / Raw(body)))
    ip = len(bytes(ETH))
    jumbo = bytearray(plain[: ip + 40])
    jumbo[ip + 6] = 0  # next header: hop-by-hop
    jumbo += b"\x06\x00\xc2\x04" + (len(plain) - ip - 40 + 8).to_bytes(4, "big") + plain[ip + 40 :]
    want = segment(bytes(plain), gso_size=1440)
    assert len(want) == (70000 + 1439) // 1440
    assert segment(bytes(jumbo), gso_size=1440) == want
    jumbo[ip + 40 + 7] ^= 1
    with pytest.raises(ValueError, match="jumbo payload option whose length"):
        segment(bytes(jumbo), gso_size=1440)
