"""Segmentation offload in user space: the virtio-net header that TUN/TAP devices (IFF_VNET_HDR)
and AF_PACKET sockets (PACKET_VNET_HDR) put before each packet, and segment(), from the C
extension, which splits a TCP or UDP super-packet into wire-sized packets as Linux's GSO does."""
from __future__ import annotations

import enum
import struct
from typing import TYPE_CHECKING, List, NamedTuple, Tuple, Union

from . import _inetcsum
from ._inetcsum import segment
from ._types import Link

if TYPE_CHECKING:
    from _typeshed import ReadableBuffer

__all__ = ["VnetFlag", "GsoType", "VnetHeader", "segment", "Coalescer"]


class VnetFlag(enum.IntFlag):
    """VnetHeader.flags: what the packet's checksums are (virtio-net's VIRTIO_NET_HDR_F_*)."""

    NEEDS_CSUM = 1  # the L4 checksum holds the pseudo-header sum: complete it (CHECKSUM_PARTIAL)
    DATA_VALID = 2  # checksums verified (CHECKSUM_UNNECESSARY)
    UDP_TUNNEL_CSUM = 8  # with a UDP_TUNNEL type: each segment's outer UDP checksum is computed


class GsoType(enum.IntFlag):
    """VnetHeader.gso_type: one kind, with ECN and a UDP_TUNNEL bit possibly or-ed in."""

    NONE = 0
    TCPV4 = 1
    UDP = 3  # UFO (IP fragmentation): not supported
    TCPV6 = 4
    UDP_L4 = 5  # USO: UDP datagrams of gso_size bytes each
    UDP_TUNNEL_IPV4 = 0x20  # inside a UDP tunnel (VXLAN, GENEVE) over IPv4: the 24-byte header's
    UDP_TUNNEL_IPV6 = 0x40  # offsets say where (Linux 6.17+, TUN_F_UDP_TUNNEL_GSO)
    ECN = 0x80


_SIZES = (10, 12, 24)
_TUNNEL_FORM = struct.Struct("<BBHHHHH8xHH")  # the hash report's 8 bytes: unused, written 0


class VnetHeader(NamedTuple):
    """struct virtio_net_hdr (10 bytes), virtio_net_hdr_v1 (12: num_buffers added) or
    virtio_net_hdr_v1_hash_tunnel (24: a hash report, unused here, then the UDP tunnel's offsets,
    for a TAP device with TUN_F_UDP_TUNNEL_GSO), as virtio 1.0 lays it out: little-endian."""

    flags: int = 0
    gso_type: int = 0
    hdr_len: int = 0
    gso_size: int = 0
    csum_start: int = 0
    csum_offset: int = 0
    num_buffers: int = 0
    outer_th_offset: int = 0  # the tunnel's UDP header (24-byte form, UDP_TUNNEL types)
    inner_nh_offset: int = 0  # the IP header inside it

    def pack(self, size: int = 10) -> bytes:
        """The header's bytes: size 10, 12 or 24."""
        if size not in _SIZES:
            raise ValueError("a virtio-net header is 10, 12 or 24 bytes")
        return _TUNNEL_FORM.pack(*self)[:size] if size < 24 else _TUNNEL_FORM.pack(*self)

    @classmethod
    def unpack(cls, data: bytes) -> "VnetHeader":
        """Reads a 10-, 12- or 24-byte header (the start of a buffer read from the device)."""
        if len(data) not in _SIZES:
            raise ValueError("a virtio-net header is 10, 12 or 24 bytes")
        full = bytes(data) + bytes(24 - len(data))
        return cls(*_TUNNEL_FORM.unpack(full))


class Coalescer:
    """Merges consecutive TCP segments and UDP datagrams of one flow into super-packets by Linux's
    GRO rules (include/inetcsum_gso.h), verifying each packet's checksum as it is copied in (a bad
    one ends its flow's train and passes alone, untouched).  add() and flush() return what comes
    out, each packet preceded by a virtio-net header of vnet_size bytes: a super-packet with
    NEEDS_CSUM and its GSO type and size, ready for a TAP device with offloads on, or a packet as it
    came.  Call flush() at the end of each batch of reads.  Memory is allocated once, here.

    Packets in tunnels are merged only where the receiver takes the result: vnet_size 0 (no
    kernel) through every tunnel; 10 or 12 (a TAP without UDP-tunnel GSO) never; 24 (a TAP with
    TUN_F_UDP_TUNNEL_GSO) through one UDP tunnel, with the UDP_TUNNEL types; any_tunnel=True
    through every tunnel whatever the size (for segment(), not for a kernel)."""

    def __init__(
        self,
        *,
        link: Union[Link, int, str] = Link.ETHERNET,
        vnet_size: int = 12,
        max_flows: int = 16,
        any_tunnel: bool = False,
    ) -> None:
        self._table = _inetcsum._gro_new(link, vnet_size, max_flows, any_tunnel)
        self._fixed: List[Tuple[bool, ...]] = []

    def add(self, packet: ReadableBuffer) -> List[bytes]:
        """Offers a packet (without a virtio-net header); returns the packets emitted meanwhile
        (those of a flow whose train it ended, then itself when it is not held)."""
        out, _held, self._fixed = _inetcsum._gro_add(self._table, packet)
        return out

    def flush(self) -> List[bytes]:
        """Every flow held, oldest first."""
        out, _, self._fixed = _inetcsum._gro_flush(self._table)
        return out

    def fixed_ids(self) -> List[Tuple[bool, ...]]:
        """For each packet the last add() or flush() returned, in order: whether each IP level's
        IPv4 IDs (outermost first) stayed fixed along the train it merged, which no virtio-net
        header can say (Linux 6.18 keeps it per level: SKB_GSO_TCP_FIXEDID and _INNER); () for a
        packet that passed as it came.  segment(packet, vnet=..., fixed_id=that) gives back the
        packets merged, IDs and all; without it their IDs count up."""
        return list(self._fixed)
