"""Linux's UDP GSO selftest (tools/testing/selftests/net/udpgso.c), ported: each of its cases, a
send of tlen bytes with a segment size of gso_len over a 1,500-byte MTU, is here a UDP packet of
tlen bytes with the virtio-net header a kernel would hand a TAP for it (GSO_UDP_L4 and gso_size,
or GSO_NONE), and segment() must give the datagrams the selftest's receiver expects: r_num_mss
of gso_len bytes (or of the MSS without GSO), then one of r_len_last.  Where the kernel refuses
the send, the port names the refusal that stands for it here: a datagram over the MTU without
GSO is not segmentation's to refuse (no MTU is given to it; the caller's link is), a packet past
IP's 65,535-byte length cannot be written at all, and more than UDP_MAX_SEGMENTS (128) segments
is -E2BIG (ValueError).  Written from the selftest's table, not its code."""
from __future__ import annotations

import pytest
from scapy.layers.inet import IP, UDP
from scapy.layers.inet6 import IPv6, IPv6ExtHdrHopByHop
from scapy.layers.l2 import Ether
from scapy.packet import Raw

import inetcsum
from inetcsum import GsoType, VnetFlag, VnetHeader

MTU = 1500
ETH = Ether(src="02:00:00:00:00:01", dst="02:00:00:00:00:02")
UDP_MAX_SEGMENTS = 128
ETH_MAX_MTU = 0xFFFF


def table(v6: bool):
    """The selftest's cases for one family: (name, tlen, gso_len, fails, r_num_mss, r_len_last, ext_hdr)."""
    hdr = (40 if v6 else 20) + 8
    mss = MTU - hdr
    max_mtu = ETH_MAX_MTU + (40 if v6 else 0)  # IP6_MAX_MTU: a payload length of 65,535 plus the header
    max_segs = max_mtu // mss
    cases = [
        ("no GSO: a single byte", 1, 0, False, 0, 1, False),
        ("no GSO: a single MSS", mss, 0, False, 1, 0, False),
        ("no GSO: a single MSS + 1B: fails", mss + 1, 0, True, 0, 0, False),
        ("a single MSS: falls back to no GSO", mss, mss, False, 1, 0, False),
        ("datalen <= MSS < gso_len: falls back to no GSO", mss, mss + 1, False, 0, mss, False),
        ("a single MSS + 1B", mss + 1, mss, False, 1, 1, False),
        ("exactly 2 MSS", 2 * mss, mss, False, 2, 0, False),
        ("2 MSS + 1B", 2 * mss + 1, mss, False, 2, 1, False),
        ("MAX segs", max_segs * mss, mss, False, max_segs, 0, False),
        ("MAX bytes", max_mtu - hdr, mss, False, max_segs, max_mtu - hdr - max_segs * mss, False),
        ("MAX + 1: fails", max_mtu - hdr + 1, mss, True, 0, 0, False),
        ("a single 1B MSS: falls back to no GSO", 1, 1, False, 1, 0, False),
        ("2 1B segments", 2, 1, False, 2, 0, False),
        ("2B + 2B + 1B segments", 5, 2, False, 2, 1, False),
        ("max number of min sized segments", UDP_MAX_SEGMENTS, 1, False, UDP_MAX_SEGMENTS, 0, False),
        ("max number + 1 of min sized segments: fails", UDP_MAX_SEGMENTS + 1, 1, True, 0, 0, False),
    ]
    if v6:
        cases.insert(13, ("2 1B segments with extension headers", 2, 1, False, 2, 0, True))
    return cases


CASES = [(v6, *c) for v6 in (False, True) for c in table(v6)]


def datagram(v6: bool, tlen: int, ext: bool) -> bytes:
    body = UDP(sport=9000, dport=9000) / Raw(bytes(i & 0xFF for i in range(tlen)))
    if v6:
        ip = IPv6(src="fd00::1", dst="fd00::1") / (IPv6ExtHdrHopByHop() if ext else body)
        return bytes(ETH / (ip / body if ext else ip))
    return bytes(ETH / IP(src="10.0.0.1", dst="10.0.0.1") / body)


@pytest.mark.parametrize("v6,name,tlen,gso_len,fails,r_num_mss,r_len_last,ext", CASES,
                         ids=[f"ipv{6 if c[0] else 4}: {c[1]}" for c in CASES])
def test_udpgso_case(v6, name, tlen, gso_len, fails, r_num_mss, r_len_last, ext):
    hdr = (40 if v6 else 20) + 8
    mss = MTU - hdr
    if tlen + hdr > ETH_MAX_MTU + (40 if v6 else 0):
        # past IP's own length field: no such packet can be written (the kernel's EMSGSIZE)
        assert fails
        with pytest.raises(Exception):
            datagram(v6, tlen, ext)
        return
    frame = datagram(v6, tlen, ext)
    l4 = len(frame) - tlen - 8
    vnet = VnetHeader(flags=VnetFlag.NEEDS_CSUM, gso_type=GsoType.UDP_L4 if gso_len else GsoType.NONE,
                      gso_size=gso_len, csum_start=l4, csum_offset=6).pack(12)
    if fails and gso_len == 0:
        # too big for the link without GSO: segmentation leaves it whole, and the caller's MTU
        # (inetcsum segment --mtu, a device) refuses it, as the kernel's send does
        out = inetcsum.segment(frame, vnet=vnet)
        assert len(out) == 1 and len(out[0]) - 14 - hdr > mss
        return
    if fails:
        with pytest.raises(ValueError, match="more than allowed"):
            inetcsum.segment(frame, vnet=vnet)
        return
    sizes = [len(s) - (len(frame) - tlen) for s in inetcsum.segment(frame, vnet=vnet)]
    full = gso_len or mss
    assert sizes == [full] * r_num_mss + ([r_len_last] if r_len_last else []), name


def test_every_case_is_here():
    assert len(CASES) == 16 + 17
