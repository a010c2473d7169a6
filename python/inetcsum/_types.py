"""The types inetcsum's results are made of: enums for layers, statuses, link types and flags, and
the Check / Verdict / Report containers.  The C extension builds its results from these classes
(inetcsum/__init__.py registers them), so they are defined, documented and typed once, here."""

import enum
from typing import List, NamedTuple, Optional


class Layer(str, enum.Enum):
    """A kind of checksum, by the protocol that carries it.  Members are also their names as
    strings: ``Layer.TCP == "tcp"``."""

    IPV4 = "ipv4"  # the IPv4 header checksum
    TCP = "tcp"
    UDP = "udp"
    UDPLITE = "udplite"  # RFC 3828: covers the first `coverage` bytes
    ICMP = "icmp"  # ICMPv4: no pseudo-header
    ICMPV6 = "icmpv6"  # with the IPv6 pseudo-header (RFC 4443)
    IGMP = "igmp"
    GRE = "gre"  # RFC 2784: only with the C bit
    SCTP = "sctp"  # CRC32c, little-endian on the wire
    MH = "mh"  # Mobile IPv6 Mobility Header (RFC 6275 6.1)
    PIM = "pim"  # PIM (RFC 7761 4.9): a Register's checksum covers its first 8 bytes only
    OSPF = "ospf"  # OSPFv2 (all but its authentication field), OSPFv3 (IPv6 pseudo-header)
    VRRP = "vrrp"  # VRRPv2 and CARP (no pseudo-header), VRRPv3 (pseudo-header)
    EIGRP = "eigrp"
    DCCP = "dccp"  # RFC 4340: pseudo-header, its Checksum Coverage
    RSVP = "rsvp"  # 0 means none was sent (absent)
    NHRP = "nhrp"
    PGM = "pgm"  # 0 means none was sent (absent)
    FCS = "fcs"  # an Ethernet FCS (CRC-32) where the capture's link type says frames carry one

    def __str__(self) -> str:
        return self.value

    @property
    def display(self) -> str:
        """The layer as people read it and the command prints it (``"UDP-Lite"``, ``"ICMPv6"``): the
        C library's table of layers names both."""
        from ._inetcsum import _layer_row

        return _layer_row(self.value)[1]

    @property
    def width(self) -> int:
        """The checksum field's width in bytes: 2, or 4 for the CRCs (SCTP's CRC32c, an FCS)."""
        from ._inetcsum import _layer_row

        return _layer_row(self.value)[2]


class Status(str, enum.Enum):
    """What a checksum field holds.  Members are also their names as strings."""

    GOOD = "good"  # correct (0x0000 and 0xFFFF both accepted where they are equivalent)
    BAD = "bad"
    PARTIAL = "partial"  # holds just the pseudo-header sum: left for TX offload (captured on the sender)
    ABSENT = "absent"  # UDP over IPv4 with 0: no checksum was sent (RFC 768); not a problem
    ILLEGAL = "illegal"  # forbidden: UDP over IPv6 with 0 (RFC 8200 8.1), UDP-Lite coverage out of range
    UNVERIFIABLE = "unverifiable"  # truncated capture, first fragment, malformed header

    @property
    def problem(self) -> bool:
        """True for bad, partial and illegal: what `inetcsum verify` reports and `fill` fixes."""
        return self in _PROBLEMS

    def __str__(self) -> str:
        return self.value


_PROBLEMS = frozenset((Status.BAD, Status.PARTIAL, Status.ILLEGAL))


class Link(enum.IntEnum):
    """Link types, numbered as pcap's LINKTYPE_ values: a capture header's number may be passed
    as it is (one inetcsum does not decode gives a report flagged FrameFlag.UNKNOWN_LINK), and
    functions taking a link also take a member's name as a string, in any case ("ethernet")."""

    NULL = 0  # BSD loopback, address family in the capturing host's order
    ETHERNET = 1
    PPP = 9
    FDDI = 10  # FDDI, LLC/SNAP
    BSD_RAW = 12  # raw IP as some BSDs number it
    OPENBSD_RAW = 14
    PPP_HDLC = 50  # PPP in HDLC-like framing (RFC 1662), or Cisco HDLC
    RAW = 101  # IPv4 or IPv6, by the version nibble
    C_HDLC = 104  # Cisco HDLC
    IEEE802_11 = 105  # 802.11 data frames with LLC/SNAP, no radiotap
    FRELAY = 107  # Frame Relay (RFC 2427 NLPID or SNAP, or Cisco's EtherType)
    LOOP = 108  # OpenBSD loopback
    LINUX_SLL = 113
    IEEE802_11_RADIOTAP = 127  # 802.11 data frames with LLC/SNAP, after radiotap
    ARCNET_LINUX = 129
    USER2_PKTAP = 149  # LINKTYPE_USER2, which Apple's own captures use for PKTAP
    JUNIPER_ETHER = 178
    PPI = 192  # Per-Packet Information, then a packet of the link type it names
    IPNET = 226  # Solaris IPNET
    IPV4 = 228
    IPV6 = 229
    NFLOG = 239  # Linux NFLOG (tcpdump -i nflog:N)
    IPOIB = 242  # IP over InfiniBand
    PKTAP = 258  # Apple's PKTAP
    LINUX_SLL2 = 276


class CheckFlag(enum.IntFlag):
    """Why a check is what it is (Check.flags)."""

    QUOTED = 0x01  # inside a quoted packet (ICMP errors, sFlow, OpenFlow, NHRP): verified, never written
    FRAGMENT = 0x02  # a first fragment's: covers bytes not in this frame
    TRUNCATED = 0x04  # covers bytes beyond the captured length
    MALFORMED = 0x08  # its header's lengths contradict each other
    WRITTEN = 0x10  # fill / offload wrote the field
    DEVICE = 0x20  # offload: left for the device (seeded or zeroed)
    MENDED = 0x40  # fill: wrong only through inner checksums it wrote, right once they were


class FrameFlag(enum.IntFlag):
    """Flags on a whole frame (Report.flags)."""

    NOT_IP = 0x01  # no IP header found (ARP, LLDP, an unknown link type, ...)
    TRUNCATED = 0x02  # captured length below the wire length, or a header runs past it
    MALFORMED = 0x04  # a header contradicts itself or its carrier: parsing stopped there
    TOO_DEEP = 0x08  # too many nested IP headers (MAX_DEPTH) or checks (MAX_CHECKS)
    FRAGMENT = 0x10  # an IPv4 or IPv6 fragment
    UNKNOWN_LINK = 0x20  # a link type inetcsum does not decode (NOT_IP is set too)
    NOT_FOLLOWED = 0x40  # the walk stopped at a header it does not follow, which may carry checksums


class Offload(enum.IntFlag):
    """Checksum kinds a frame needs and a device can compute (FreeBSD's CSUM_* and if_hwassist,
    Linux's NETIF_F_*_CSUM).  The plain kinds are the outermost IP header and what it carries,
    INNER_* the same one tunnel in; deeper ones are always computed in software."""

    IPV4 = 0x01
    TCP4 = 0x02
    UDP4 = 0x04
    SCTP4 = 0x08
    TCP6 = 0x10
    UDP6 = 0x20
    SCTP6 = 0x40
    OTHER = 0x80  # ICMP, ICMPv6, IGMP, GRE, UDP-Lite: no device does these
    INNER_IPV4 = 0x0100
    INNER_TCP4 = 0x0200
    INNER_UDP4 = 0x0400
    INNER_SCTP4 = 0x0800
    INNER_TCP6 = 0x1000
    INNER_UDP6 = 0x2000
    INNER_SCTP6 = 0x4000
    INNER_OTHER = 0x8000
    ALL = 0xFFFF

    @classmethod
    def inner(cls, kinds: "Offload") -> "Offload":
        """The same kinds one tunnel in: ``Offload.inner(Offload.TCP4) == Offload.INNER_TCP4``."""
        return cls((int(kinds) & 0xFF) << 8)


class Check(NamedTuple):
    """One checksum found in a frame.  stored and expected are the field's wire bytes read in
    network order (as Wireshark shows them; SCTP's CRC32c as its 4 bytes lie); expected is what
    fill() would store, equal to stored when good, None when it cannot be known (unverifiable: JSON's
    null)."""

    layer: Layer
    depth: int  # 0: the outermost IP header and what it carries; +1 per tunnel or quote
    status: Status  # before any write
    stored: int
    expected: Optional[int]
    offset: int  # of the checksummed header (IPv4 header, TCP header, ...) in the frame
    length: int  # bytes the checksum covers, by the headers (UDP-Lite: its coverage)
    flags: CheckFlag

    @property
    def problem(self) -> bool:
        """Bad, partial or illegal."""
        return self.status in _PROBLEMS

    def __repr__(self) -> str:
        # Checksums as network people read them (Wireshark, tcpdump -v): hex, as wide as the field.
        return (f"Check(layer={self.layer!r}, depth={self.depth}, status={self.status!r}, "
                f"stored={_hex(self.stored, self.layer)}, expected={_hex(self.expected, self.layer)}, "
                f"offset={self.offset}, length={self.length}, flags={self.flags!r})")


def _hex(value: Optional[int], layer: Optional[Layer] = None) -> str:
    """A checksum field's value in hex, as wide as the field (the library's table: 4 digits, 8 for
    the 32-bit CRCs); None (cannot be known) as None."""
    if value is None:
        return "None"
    wide = value > 0xFFFF or (isinstance(layer, Layer) and layer.width == 4)
    return f"0x{value:08x}" if wide else f"0x{value:04x}"


class Verdict(NamedTuple):
    """The verdict on one upper-layer message (l4_verify, l4_fill); values as in Check."""

    status: Status
    stored: int
    expected: Optional[int]

    def __repr__(self) -> str:
        return f"Verdict(status={self.status!r}, stored={_hex(self.stored)}, expected={_hex(self.expected)})"


class Report(List[Check]):
    """Every checksum of one frame, outermost first: a list of Check.  Also carries the frame's
    flags and, from offload(), the kinds computed in software."""

    flags: FrameFlag = FrameFlag(0)
    software: Offload = Offload(0)
    # With FrameFlag.NOT_FOLLOWED: what the walk did not follow, as "EtherType 0x88b5 not followed";
    # with FrameFlag.MALFORMED, where the walk can say: the header it found wrong, as "PPPoE length 30
    # disagrees with the IP packet it carries; checked by the IP header's length"
    why: str = ""

    @property
    def problems(self) -> List[Check]:
        """The checks that are bad, partial or illegal (before any fill)."""
        return [c for c in self if c.status in _PROBLEMS]

    @property
    def ok(self) -> bool:
        """No check is bad, partial or illegal."""
        return not any(c.status in _PROBLEMS for c in self)

    @property
    def written(self) -> List[Check]:
        """The checks fill() or offload() wrote."""
        return [c for c in self if c.flags & CheckFlag.WRITTEN]

    def __repr__(self) -> str:
        extra = f", software={self.software!r}" if self.software else ""
        return f"Report({list.__repr__(self)}, flags={self.flags!r}{extra})"
