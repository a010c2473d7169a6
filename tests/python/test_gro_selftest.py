"""Linux's GRO selftest (tools/testing/selftests/net/gro.c, mainline as of 6.18), ported: the same trains
of frames, each ended by a FIN as there, and the same expected payload sizes of what comes out,
for the Coalescer instead of a veth device's GRO.  Written from the selftest's descriptions (its
code is not copied): every case of its matrix, "data", "ack", "flags", "tcp", "ip" and "large",
over IPv4, IPv6 and IPIP as 6.18 runs them, and IP6IP6 by analogy (an outer IPv6 header whose
next header is IPv6; the IP-level cases changed on the outer header, as IPIP's are).  Each case
runs without a virtio-net header (a capture) and with the 12-byte one (a TAP; tunnels then with
any_tunnel=True, as a kernel takes no IPIP super-packet from a TAP).

tests/python/test_gro_kernel.py sends such trains through a veth pair with the running kernel's
GRO and compares."""
from __future__ import annotations

from typing import Callable, List, Optional

import pytest
from scapy.layers.inet import IP, TCP, IPOption
from scapy.layers.inet6 import IPv6, IPv6ExtHdrDestOpt, IPv6ExtHdrFragment, PadN
from scapy.layers.l2 import Ether
from scapy.packet import Packet, Raw

import inetcsum

SPORT, DPORT, START_SEQ, START_ACK, PAYLOAD_LEN = 1500, 8000, 100, 100, 100
A4, B4, A6, B6 = "192.168.1.200", "192.168.1.100", "fdaa::2", "fdaa::1"
ETH = Ether(src="aa:00:00:00:00:02", dst="aa:00:00:00:00:01")
MSS = 4096 - 20 - 40  # the selftest's: 4096 less the larger IP header and TCP's
LARGE_PACKETS = (65535 - 20 - 40) // MSS
VARIANTS = ["ipv4", "ipv6", "ipip", "ip6ip6"]

# A change to the outer IP header (the one at the Ethernet header's end, which is what the
# selftest changes: the only one, or the tunnel's).
Outer = Callable[[Packet], None]


def frame(variant: str, seq: int, size: int, ack: int = 0, flags: str = "A", options: bytes = b"",
          outer: Optional[Outer] = None, ext: Optional[Packet] = None, csum_delta: int = 0) -> bytes:
    """A frame of the selftest: TCP from 1500 to 8000, sequence START_SEQ + seq, size bytes of 'a';
    TTL/hop limit 8, DF, IPv4 ID 0 (every IP header); options: TCP option bytes; ext: an IPv6
    extension header before TCP (or before the inner header, in IP6IP6)."""
    # (options given as bytes: the data offset says they are the header's)
    tcp = TCP(sport=SPORT, dport=DPORT, seq=START_SEQ + seq, ack=START_ACK + ack, flags=flags, window=65535,
              dataofs=5 + len(options) // 4) / Raw(options + b"a" * size)

    def v4(proto: int) -> IP:
        return IP(src=A4, dst=B4, ttl=8, flags="DF", id=0, proto=proto)

    def v6() -> IPv6:  # (scapy names what follows it)
        return IPv6(src=A6, dst=B6, hlim=8)
    inner = ext / tcp if ext else tcp
    if variant == "ipv4":
        pkt = ETH / v4(6) / tcp
    elif variant == "ipv6":
        pkt = ETH / v6() / inner
    elif variant == "ipip":
        pkt = ETH / v4(4) / v4(6) / tcp
    else:
        pkt = ETH / v6() / (ext / v6() if ext else v6()) / tcp
    if outer:
        outer(pkt[1])
    b = bytearray(bytes(pkt))
    if csum_delta:
        at = len(b) - len(tcp) + 16
        b[at:at + 2] = ((int.from_bytes(b[at:at + 2], "big") + csum_delta) & 0xFFFF).to_bytes(2, "big")
    return bytes(b)


def fin(variant: str) -> bytes:
    """The frame each train ends with: a FIN at START_SEQ + 200, no payload."""
    return frame(variant, 2 * PAYLOAD_LEN, 0, flags="FA")


def payload_sizes(out: List[bytes], vnet: int) -> List[int]:
    """The TCP payload sizes of what came out, up to the FIN (the selftest's check_recv_pkts)."""
    sizes = []
    for o in out:
        pkt = Ether(o[vnet:])
        tcp = pkt[TCP]
        if int(tcp.flags) & 0x01:
            break
        sizes.append(len(bytes(tcp.payload)))
    return sizes


# Where the selftest sleeps inside a case, the receiver's GRO has flushed what it held: here, a
# flush.  It pauses so before most FINs (a FIN of another flow, as the extension header cases'
# is, would otherwise overtake what is held); the port pauses before every one.
PAUSE = b""


def coalesce(frames: List[bytes], variant: str, vnet: int) -> List[int]:
    c = inetcsum.Coalescer(vnet_size=vnet, any_tunnel=variant in ("ipip", "ip6ip6"))
    out = [o for f in frames for o in (c.flush() if f is PAUSE else c.add(f))] + c.flush()
    return payload_sizes(out, vnet)


def set_outer(**fields) -> Outer:
    def change(ip: Packet) -> None:
        for k, v in fields.items():
            setattr(ip, k, v)
        if isinstance(ip, IP):
            ip.chksum = None
    return change


def ts_options(ts: int, order: int) -> bytes:
    """TCP timestamps (tsval ts) with two NOPs, in one of three orders."""
    t = b"\x08\x0a" + ts.to_bytes(4, "little") + bytes(4)
    return [b"\x01\x01" + t, b"\x01" + t + b"\x01", t + b"\x01\x01"][order]


def cases(variant: str):
    """(name, frames, expected payload sizes) for every case of the selftest's matrix."""
    v4 = variant in ("ipv4", "ipip")
    P = PAYLOAD_LEN

    def data(a: int, b: int) -> List[bytes]:
        return [frame(variant, 0, a), frame(variant, a, b)]
    yield "data: same size", data(P, P), [2 * P]
    yield "data: large then small", data(P, P // 2), [P + P // 2]
    yield "data: small then large", data(P // 2, P), [P // 2, P]
    yield "ack: duplicate and pure acks", [frame(variant, 0, 0), frame(variant, 0, 0), frame(variant, 0, 0, ack=1)], \
        [0, 0, 0]

    def with_flag(flag: str, size: int) -> List[bytes]:
        """Five frames, the middle ones (2, and 1 for CWR) with the flag; SYN, RST and URG ones
        carry nothing."""
        frames = []
        for i in range(5):
            flagged = i == 2 or (i == 1 and flag == "C")
            frames.append(frame(variant, (i if not flagged or size else 0) * P, size if flagged else P,
                                flags="A" + flag if flagged else "A"))
        return frames
    yield "flags: psh ends coalescing", with_flag("P", P), [3 * P, 2 * P]
    for flag, name in (("S", "syn"), ("R", "rst"), ("U", "urg")):
        yield f"flags: {name} ends coalescing", with_flag(flag, 0), [2 * P, 0, 2 * P]
    # (not in mainline's gro.c; an AccECN development tree's expects [P, 2P, 2P], CWR segments
    # merging with each other; mainline 6.18 merges none, as the running kernel shows)
    yield "flags: cwr ends coalescing", with_flag("C", P), [P, P, P, 2 * P]
    yield "tcp: changed checksum", [frame(variant, 0, P), frame(variant, P, P, csum_delta=-1)], [P, P]
    yield "tcp: wrong sequence number", [frame(variant, 0, P), frame(variant, P + 1, P)], [P, P]
    yield "tcp: different timestamps", [frame(variant, i * P, P, options=ts_options(ts, order))
                                        for i, (ts, order) in enumerate([(0, 0), (0, 0), (100, 0), (100, 1), (100, 2)])], \
        [2 * P, P, P, P]
    yield "tcp: different options", [frame(variant, 0, P, options=ts_options(0, 0)),
                                     frame(variant, P, P, options=ts_options(0, 0)),
                                     frame(variant, 2 * P, P, options=b"\x01\x03\x03\x00")], [2 * P, P]
    if v4:
        yield "ip: different ECN", [frame(variant, 0, P), frame(variant, P, P, outer=set_outer(tos=0x02))], [P, P]
        yield "ip: different tos", [frame(variant, 0, P), frame(variant, P, P, outer=set_outer(tos=1))], [P, P]
        yield "ip: different ttl", [frame(variant, 0, P), frame(variant, P, P, outer=set_outer(ttl=7))], [P, P]
        ts_option = IPOption(b"\x44\x28\x05\x00" + bytes(36))
        yield "ip: options", [frame(variant, 0, P), frame(variant, P, P, outer=set_outer(options=[ts_option])),
                              frame(variant, 2 * P, P)], [P, P, P]
        yield "ip: fragment", [frame(variant, 0, P), frame(variant, P, P, outer=set_outer(flags="DF+MF"))], [P, P]
        # The IPv4 ID cases (inet_gro_flush): incrementing or fixed, DF or not, then a change.
        for name, ids, dfs, want in [("DF=1, incrementing", (8, 9), "DD", [2 * P]), ("DF=1, fixed", (8, 8), "DD", [2 * P]),
                                     ("DF=0, incrementing", (8, 9), "..", [2 * P]), ("DF=0, fixed", (8, 8), "..", [2 * P]),
                                     ("DF=1, two incrementing then fixed", (8, 9, 9), "DDD", [2 * P, P]),
                                     ("DF=1, two fixed then incrementing", (8, 8, 9), "DDD", [2 * P, P])]:
            yield f"ip: {name}", [frame(variant, i * P, P, outer=set_outer(id=ids[i], flags="DF" if dfs[i] == "D" else 0))
                                  for i in range(len(ids))], want
    else:
        yield "ip: different ECN", [frame(variant, 0, P), frame(variant, P, P, outer=set_outer(tc=0x02))], [P, P]
        yield "ip: different traffic class", [frame(variant, 0, P), frame(variant, P, P, outer=set_outer(tc=0xF0))], [P, P]
        yield "ip: fragment header", [frame(variant, 0, P), frame(variant, P, P), PAUSE,
                                      frame(variant, 2 * P, P, ext=IPv6ExtHdrFragment(offset=0, m=0)),
                                      frame(variant, 3 * P, P)], [2 * P, P, P]
        # destination options of 8 bytes: a PadN of 4 bytes, zeros or not
        same = [frame(variant, i * P, P, ext=IPv6ExtHdrDestOpt(options=[PadN(optdata=bytes(4))])) for i in range(2)]
        yield "ip: extension headers alike", same, [2 * P]
        yield "ip: extension headers different", [same[0], frame(variant, P, P, ext=IPv6ExtHdrDestOpt(
            options=[PadN(optdata=b"\x11" * 4)]))], [P, P]
    # large: a merged packet's IP length stays within 65,535 (gro_max_size 65,536, from the outer
    # IP header); the largest payload fits exactly, one byte more does not.
    ip_headers = {"ipv4": 20, "ipv6": 40, "ipip": 40, "ip6ip6": 80}[variant] + 20
    biggest = 65535 - ip_headers
    for extra in (0, 1):
        rest = biggest - LARGE_PACKETS * MSS + extra
        frames = [frame(variant, i * MSS, MSS) for i in range(LARGE_PACKETS)]
        frames += [frame(variant, LARGE_PACKETS * MSS, rest), frame(variant, (LARGE_PACKETS + 1) * MSS, rest)]
        want = [biggest, rest] if not extra else [LARGE_PACKETS * MSS, rest, rest]
        yield f"large: {'the largest' if not extra else 'one byte over'}", frames, want


def all_cases():
    return [(variant, name, frames, want) for variant in VARIANTS for name, frames, want in cases(variant)]


CASES = all_cases()


@pytest.mark.parametrize("vnet", [0, 12])
@pytest.mark.parametrize("variant,name,frames,want", CASES, ids=[f"{v}: {n}" for v, n, _, _ in CASES])
def test_gro_selftest_case(variant, name, frames, want, vnet):
    assert coalesce(frames + [PAUSE, fin(variant)], variant, vnet) == want


def test_every_case_is_here():
    """The selftest's matrix: 4 data/ack, 4 flags (and CWR), 4 tcp, the ip cases of each family,
    2 large."""
    counts = {v: sum(1 for c in CASES if c[0] == v) for v in VARIANTS}
    assert counts == {"ipv4": 26, "ipv6": 20, "ipip": 26, "ip6ip6": 20}
