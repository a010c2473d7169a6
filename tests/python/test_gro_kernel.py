"""The Coalescer against the running kernel's GRO, train by train; segment() against its software
GSO, super-packet by super-packet (test_segmentation_against_the_kernel, at the end).

A veth pair in a network namespace of its own, GRO on at its receiving end (and UDP GRO for
forwarding, so that datagrams merge without a socket asking), its flush timeout raised so that a
train sent in one go is held as one; frames written to the sending end with an AF_PACKET socket,
what the kernel delivers read from the receiving end with another (with its virtio-net header:
the GSO type and size).  The same train goes through a Coalescer.  Per flow, the packets that
come out, in order, must be the same bytes with the same GSO type and size.

Trains are random (a seed printed, INETCSUM_GRO_SEED to repeat, INETCSUM_GRO_TRAINS for how many):
several flows (TCP and UDP over IPv4 and IPv6; TCP in IPIP, 6in4, 4in6, IP6IP6, and GRE and VXLAN
over either IP carrying either IP; GENEVE where the kernel has it) interleaved, IPv6 destination
options and flow labels that come and go, segments of one size
and a shorter last, every TCP flag, gaps and repeats in the sequence, IPv4 options, IDs fixed,
incrementing or jumping, DF on and off, TTL and TOS changes, bad IPv4, TCP and UDP checksums,
Ethernet padding, TCP timestamps that change, flows with CWR or ECE on every segment.

The kernel flushes what it holds when a jiffy has passed: a train that happens to straddle one
may be cut where the Coalescer's is not.  A train that differs is sent again, twice at most; a
rule that differs differs every time."""
from __future__ import annotations

import ctypes
import os
import random
import socket
import struct
import subprocess
import time
import uuid
from typing import Dict, List, Optional, Tuple

import pytest
from scapy.layers.inet import IP, TCP, UDP
from scapy.layers.inet6 import IPv6, IPv6ExtHdrDestOpt, PadN
from scapy.layers.l2 import GRE, Ether
from scapy.contrib.geneve import GENEVE
from scapy.layers.vxlan import VXLAN
from scapy.packet import Raw

import inetcsum

TX_MAC, RX_MAC = "02:00:00:00:00:01", "02:00:00:00:00:02"
VXLAN_PEER, VXLAN_LOCAL = "10.5.0.1", "10.5.0.2"
VXLAN_PEER6, VXLAN_LOCAL6 = "fd05::1", "fd05::2"
ETH = Ether(src=TX_MAC, dst=RX_MAC)
CLONE_NEWNET, SOL_PACKET, PACKET_VNET_HDR = 0x40000000, 263, 15
VNET = 10  # what AF_PACKET's PACKET_VNET_HDR gives: struct virtio_net_hdr


def why_not() -> Optional[str]:
    if os.geteuid() != 0:
        return "needs root (a network namespace, a veth pair, AF_PACKET sockets)"
    for tool in ("ip", "ethtool"):
        if subprocess.run(["which", tool], capture_output=True).returncode != 0:
            return f"needs the {tool} command"
    return None


pytestmark = pytest.mark.skipif(why_not() is not None, reason=f"kernel GRO test: {why_not()}")


def packet_socket(ns: str, dev: str, proto: int, vnet: bool = False) -> socket.socket:
    """An AF_PACKET socket on a device of namespace ns (made there: a socket stays in the namespace
    it was made in), with the virtio-net header of each packet when vnet."""
    libc = ctypes.CDLL(None, use_errno=True)
    here = os.open("/proc/self/ns/net", os.O_RDONLY)
    there = os.open(f"/var/run/netns/{ns}", os.O_RDONLY)
    try:
        if libc.setns(there, CLONE_NEWNET) != 0:
            raise OSError(ctypes.get_errno(), "setns")
        s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(proto))
        s.bind((dev, 0))
        if vnet:
            s.setsockopt(SOL_PACKET, PACKET_VNET_HDR, 1)
        s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 1 << 24)
        return s
    finally:
        libc.setns(here, CLONE_NEWNET)
        os.close(here)
        os.close(there)


def needed(what: str, result: subprocess.CompletedProcess) -> None:
    """A set-up step this kernel or machine may not offer: the test is skipped, saying which."""
    if result.returncode != 0:
        pytest.skip(f"{what}: {' '.join(result.args)}: {result.stderr.strip()}")


class Namespace:
    """A network namespace of the test's own, removed at the end."""

    def __init__(self, kind: str) -> None:
        self.ns = f"inetcsum-{kind}-{uuid.uuid4().hex[:8]}"

    def sh(self, *args: str, check: bool = True) -> subprocess.CompletedProcess:
        return subprocess.run(["ip", "netns", "exec", self.ns, *args], capture_output=True, text=True, check=check)


class KernelGro(Namespace):
    """vtx -> vrx in a namespace of their own; GRO at vrx."""

    def __init__(self, geneve: bool = False) -> None:
        super().__init__("gro")
        self.geneve = geneve

    def __enter__(self) -> "KernelGro":
        subprocess.run(["ip", "netns", "add", self.ns], check=True)
        try:
            self.sh("ip", "link", "add", "vtx", "type", "veth", "peer", "name", "vrx")
            self.sh("ip", "link", "set", "vtx", "address", TX_MAC)
            self.sh("ip", "link", "set", "vrx", "address", RX_MAC)
            for dev in ("vtx", "vrx"):  # (room for options over a 1448-byte segment)
                self.sh("ip", "link", "set", dev, "mtu", "9000")
            # No IPv6 of the kernel's own on vtx: its MLD reports and neighbour solicitations leave
            # with vtx's address, as the trains do, and one landed inside a train (a CI run saw an
            # MLD report to ff02::16 among the kernel's frames).  The trains are sent raw.
            self.sh("sh", "-c", "echo 1 > /proc/sys/net/ipv6/conf/vtx/disable_ipv6", check=False)
            self.sh("ip", "link", "set", "vtx", "up")
            self.sh("ip", "link", "set", "vrx", "up")
            needed("GRO on a veth device (Linux 5.13+)",
                   self.sh("ethtool", "-K", "vrx", "gro", "on", "rx-udp-gro-forwarding", "on", check=False))
            # Tunnel devices: their UDP sockets (IPv4 and IPv6, bound to any address, as an
            # "external" device opens them) are what let the kernel's GRO look inside the port.
            self.sh("ip", "addr", "add", f"{VXLAN_LOCAL}/24", "dev", "vrx")
            needed("a VXLAN device (the vxlan module)",
                   self.sh("ip", "link", "add", "vx0", "type", "vxlan", "dstport", "4789", "external", check=False))
            self.sh("ip", "link", "set", "vx0", "up")
            if self.geneve:
                needed("a GENEVE device (CONFIG_GENEVE, the geneve module)",
                       self.sh("ip", "link", "add", "gn0", "type", "geneve", "external", check=False))
                self.sh("ip", "link", "set", "gn0", "up")
            # Held packets are flushed once a jiffy old; the timer polls again after 2 ms.
            needed("gro_flush_timeout (Linux 5.10+)",
                   self.sh("sh", "-c", "echo 2000000 > /sys/class/net/vrx/gro_flush_timeout && "
                                       "echo 100 > /sys/class/net/vrx/napi_defer_hard_irqs", check=False))
            self.tx = packet_socket(self.ns, "vtx", 0)
            self.rx = packet_socket(self.ns, "vrx", 0x0003, vnet=True)
            self.drain()
        except BaseException:
            self.__exit__(None, None, None)
            raise
        return self

    def __exit__(self, *exc) -> None:
        for s in ("tx", "rx"):
            if hasattr(self, s):
                getattr(self, s).close()
        subprocess.run(["ip", "netns", "del", self.ns], capture_output=True)

    def drain(self) -> None:
        self.rx.setblocking(False)
        try:
            while True:
                self.rx.recv(70000)
        except BlockingIOError:
            pass

    def deliver(self, frames: List[bytes]) -> List[Tuple[bytes, bytes]]:
        """What the kernel delivers for frames sent back to back: (virtio-net header, frame), the
        train ended by a marker frame sent once everything held has been flushed."""
        marker = bytes(Ether(src=TX_MAC, dst=RX_MAC, type=0x88B5)) + uuid.uuid4().bytes
        for f in frames:
            self.tx.send(f)
        time.sleep(0.012)  # three jiffies and the flush timer: all held is out
        self.tx.send(marker)
        out = []
        self.rx.settimeout(1.0)
        while True:
            d = self.rx.recv(70000)
            frame = d[VNET:]
            if frame == marker:
                return out
            if frame[6:12] == bytes.fromhex(TX_MAC.replace(":", "")):  # (not the kernel's own)
                out.append((d[:VNET], frame))


def coalesced(frames: List[bytes]) -> List[Tuple[bytes, bytes]]:
    c = inetcsum.Coalescer(vnet_size=VNET, any_tunnel=True)  # (the kernel merges IPIP for itself)
    out = [o for f in frames for o in c.add(f)] + c.flush()
    return [(o[:VNET], o[VNET:]) for o in out]


# ---- random trains ---------------------------------------------------------------------------

# kind: (outer IP version or None, tunnel, inner IP version or None for either, transport)
KINDS = {
    "ipv4-tcp": (None, None, 4, "tcp"), "ipv6-tcp": (None, None, 6, "tcp"),
    "ipv4-udp": (None, None, 4, "udp"), "ipv6-udp": (None, None, 6, "udp"),
    "ipip-tcp": (4, "ip", 4, "tcp"), "6in4-tcp": (4, "ip", 6, "tcp"),
    "4in6-tcp": (6, "ip", 4, "tcp"), "ip6ip6-tcp": (6, "ip", 6, "tcp"),
    "gre-tcp": (4, "gre", None, "tcp"), "gre6-tcp": (6, "gre", None, "tcp"),
    "vxlan-tcp": (4, "vxlan", None, "tcp"), "vxlan6-tcp": (6, "vxlan", None, "tcp"),
}
# Only where the kernel has GENEVE (CONFIG_GENEVE): test_geneve_coalescer_against_the_kernel.
GENEVE_KINDS = {"geneve-tcp": (4, "geneve", None, "tcp"), "geneve6-tcp": (6, "geneve", None, "tcp")}
TUNNEL_PORTS = {"vxlan": 4789, "geneve": 6081}


def train(rng: random.Random, kinds: Dict[str, Tuple]) -> List[bytes]:
    """Frames of 1-3 flows, interleaved, each flow's in its order but for an occasional swap."""
    flows = []
    for n in range(rng.randint(1, 3)):
        flows.append(flow(rng, kinds[rng.choice(sorted(kinds))], n))
    out: List[bytes] = []
    while any(flows):
        f = rng.choice([f for f in flows if f])
        out.append(f.pop(0))
    for i in range(len(out) - 1):
        if rng.random() < 0.03:
            out[i], out[i + 1] = out[i + 1], out[i]
    return out


def flow(rng: random.Random, kind: Tuple, n: int) -> List[bytes]:
    outer_v, tunnel, inner_v, transport = kind
    v6 = (inner_v or rng.choice([4, 6])) == 6  # the inner IP (the only one without a tunnel)
    udp = transport == "udp"
    tunnel_csum = rng.random() < 0.5  # a UDP tunnel's checksum: on for the whole flow, or 0
    gre_key = rng.choice([None, 7])
    mss = rng.choice([100, 536, 1000, 1448 - 20 * (v6 + (outer_v == 6)) - (20 if tunnel else 0)])
    count = rng.randint(2, 9)
    sport, dport = 40000 + n, rng.choice([5201, 8000])
    seq, ack, ip_id = rng.randrange(1 << 32), rng.randrange(1 << 32), rng.randrange(1 << 16)
    id_mode = rng.choice(["inc", "inc", "fixed", "random"])
    df, ttl, tos, window = rng.random() < 0.7, 64, 0, 512
    ts = rng.random() < 0.3
    base = rng.choice(["A"] * 8 + ["AC", "AE"])  # now and then a flow with CWR or ECE on every segment
    dstopts = v6 and rng.random() < 0.2  # an IPv6 destination options header on the flow's packets
    frames = []
    for i in range(count):
        size = mss if i + 1 < count or rng.random() < 0.5 else rng.randint(1, mss)
        flags = base
        r = rng.random()
        if r < 0.05:
            flags += rng.choice(["P", "F", "S", "R", "U", "C", "E", "CE"])
        if rng.random() < 0.03:
            size = 0  # a bare ACK (padded to 60 bytes on the wire)
        pkt_ttl, pkt_tos, pkt_df, pkt_window = ttl, tos, df, window
        if rng.random() < 0.03:
            pkt_ttl = 63
        if rng.random() < 0.03:
            pkt_tos = 4
        if rng.random() < 0.02:
            pkt_df = not df
        if rng.random() < 0.02:
            pkt_window = 513
        this_id = {"inc": ip_id + i, "fixed": ip_id, "random": rng.randrange(1 << 16)}[id_mode] & 0xFFFF
        this_seq = seq
        if rng.random() < 0.03:
            this_seq = (seq + rng.choice([-1, 1, mss])) & 0xFFFFFFFF  # a gap or overlap
        payload = bytes(rng.getrandbits(8) for _ in range(size)) if size < 64 else rng.randbytes(size)
        if udp:
            l4 = UDP(sport=sport, dport=dport) / Raw(payload)
        else:
            opts = [("NOP", None), ("NOP", None), ("Timestamp", (1000 + (i if rng.random() < 0.1 else 0), 7))] if ts else []
            l4 = TCP(sport=sport, dport=dport, seq=this_seq, ack=ack, flags=flags, window=pkt_window, options=opts) / Raw(payload)
        if v6:
            label = 7 if rng.random() < 0.03 else 0
            opts = None
            if dstopts != (rng.random() < 0.03):  # (a packet now and then with it, or without)
                opts = IPv6ExtHdrDestOpt(options=[PadN(optdata=bytes([0x11 if rng.random() < 0.05 else 0]) * 4)])
            inner = IPv6(src="fd01::1", dst="fd01::2", hlim=pkt_ttl, tc=pkt_tos, fl=label) / (opts / l4 if opts else l4)
        else:
            ip_opts = [b"\x94\x04\x00\x00"] if rng.random() < 0.03 else []
            inner = IP(src="10.1.0.1", dst="10.1.0.2", ttl=pkt_ttl, tos=pkt_tos, id=this_id,
                       flags="DF" if pkt_df else 0, options=ip_opts) / l4
        if tunnel is None:
            pkt = ETH / inner
        else:
            # The outer header: IPv4 IDs counting up with DF (IP-in-IP: the inner flow's ID and
            # DF), or IPv6; addressed to the receiver's tunnel devices (their sockets bound to any).
            if outer_v == 4:
                outer = IP(src=VXLAN_PEER, dst=VXLAN_LOCAL, ttl=64, id=this_id if tunnel == "ip" else (ip_id + i) & 0xFFFF,
                           flags="DF" if (pkt_df if tunnel == "ip" else True) else 0)
            else:
                outer = IPv6(src=VXLAN_PEER6, dst=VXLAN_LOCAL6, hlim=64)
            if tunnel in TUNNEL_PORTS:  # VXLAN or GENEVE (VNI 42) carrying Ethernet
                head = VXLAN(vni=42) if tunnel == "vxlan" else GENEVE(vni=42, proto=0x6558)
                pkt = ETH / outer / UDP(sport=50000 + n, dport=TUNNEL_PORTS[tunnel], chksum=None if tunnel_csum else 0) / \
                    head / Ether(src="02:00:00:00:01:01", dst="02:00:00:00:01:02") / inner
            elif tunnel == "gre":  # GRE (RFC 2784/2890), a key or none
                proto = 0x86DD if v6 else 0x0800
                g = GRE(proto=proto, key_present=1, key=gre_key) if gre_key is not None else GRE(proto=proto)
                pkt = ETH / outer / g / inner
            else:
                pkt = ETH / outer / inner
        b = bytearray(bytes(pkt))
        r = rng.random()
        if r < 0.03 and b[12:14] == b"\x08\x00":
            b[14 + 10] ^= 0x10  # the (outer) IPv4 header checksum
        elif r < 0.06 and size:
            b[-1] ^= 0x01  # the payload: the TCP/UDP checksum no longer matches
        frames.append(bytes(b) + (bytes(60 - len(b)) if len(b) < 60 else b""))
        seq = (seq + size) & 0xFFFFFFFF
    return frames


def flow_key(frame: bytes) -> Tuple:
    pkt = Ether(frame)
    ips = [l for l in pkt.layers() if l in (IP, IPv6)]
    inner = pkt[ips[-1]] if ips else pkt
    l4 = pkt[TCP] if TCP in pkt else pkt[UDP] if UDP in pkt else None
    return (len(ips), inner.src, inner.dst, l4.sport if l4 else None, l4.dport if l4 else None)


def tunnel_check(frame: bytes) -> Optional[int]:
    """Where a VXLAN or GENEVE packet's outer UDP checksum lies, if the frame is one."""
    if frame[12:14] == b"\x08\x00" and frame[23] == 17:
        udp = 14 + (frame[14] & 15) * 4
    elif frame[12:14] == b"\x86\xdd" and frame[20] == 17:
        udp = 14 + 40
    else:
        return None
    return udp + 6 if int.from_bytes(frame[udp + 2:udp + 4], "big") in TUNNEL_PORTS.values() else None


def per_flow(out: List[Tuple[bytes, bytes]]) -> Dict[Tuple, List[Tuple[int, int, bytes]]]:
    """Per flow, in order: (GSO type, GSO size, frame bytes).  A VXLAN or GENEVE super-packet's
    outer UDP checksum, where it has one, is set aside: the kernel's GRO leaves the pseudo-header
    sum there (udp_gro_complete; its segmentation computes each segment's), the Coalescer the value
    local checksum offload gives (right on the wire once the inner checksum is completed); both
    come out of segmentation the same."""
    flows: Dict[Tuple, List[Tuple[int, int, bytes]]] = {}
    for vnet, frame in out:
        _flags, gso_type, _hdr_len, gso_size = struct.unpack("<BBHH", vnet[:6])
        at = tunnel_check(frame) if gso_type else None
        if at is not None and frame[at:at + 2] != b"\x00\x00":
            frame = frame[:at] + b"\xff\xff" + frame[at + 2:]
        flows.setdefault(flow_key(frame), []).append((gso_type, gso_size if gso_type else 0, frame))
    return flows


def summary(frame: bytes) -> str:
    """A frame in a few words: its flow, IDs, TTL/TOS, flags, sequence number, payload size."""
    pkt = Ether(frame)
    words = [str(flow_key(frame)[1:]), f"len {len(frame)}"]
    for ip in (l for l in pkt.layers() if l in (IP, IPv6)):
        h = pkt[ip]
        words.append(f"id {h.id} {h.flags} ttl {h.ttl} tos {h.tos} ihl {h.ihl}" if ip is IP else f"hlim {h.hlim} tc {h.tc}")
    if TCP in pkt:
        words.append(f"seq {pkt[TCP].seq} {pkt[TCP].flags} win {pkt[TCP].window} opts {pkt[TCP].options}")
    l4 = pkt[TCP] if TCP in pkt else pkt[UDP] if UDP in pkt else None
    if l4 is not None:
        words.append(f"payload {len(bytes(l4.payload))} csum ok {inetcsum.verify(frame).ok}")
    return " ".join(words)


def describe(flows) -> str:
    return "; ".join(f"{k}: {[(t, s, len(b)) for t, s, b in v]}" for k, v in sorted(flows.items(), key=str))


def compare_trains(kinds: Dict[str, Tuple], default_trains: int, geneve: bool = False) -> None:
    seed = int(os.environ.get("INETCSUM_GRO_SEED") or random.randrange(1 << 32))
    # (a sanitizer build, QUICK, a fifth: the kernel's half is the same in every build, the wheels'
    # runs take them all; 300 trains took 17 s under ASan)
    quick = default_trains // 5 if os.environ.get("INETCSUM_TEST_QUICK") else default_trains
    trains = int(os.environ.get("INETCSUM_GRO_TRAINS") or quick)
    print(f"kernel {os.uname().release}, seed {seed} (INETCSUM_GRO_SEED={seed} repeats it), {trains} trains")
    rng = random.Random(seed)
    retried = merged = 0
    with KernelGro(geneve) as k:
        for n in range(trains):
            frames = train(rng, kinds)
            ours = per_flow(coalesced(frames))
            for attempt in range(3):
                theirs = per_flow(k.deliver(frames))
                if theirs == ours:
                    break
                retried += 1
            else:
                pytest.fail(f"train {n} (seed {seed}): {len(frames)} frames\n"
                            f"kernel:    {describe(theirs)}\ninetcsum:  {describe(ours)}\n"
                            "frames:\n" + "\n".join(summary(f) for f in frames))
            merged += sum(1 for v in ours.values() for t, _, _ in v if t)
    print(f"{trains} trains alike, {merged} super-packets; {retried} sent again (a jiffy in the middle)")
    assert merged > trains / 4


def test_coalescer_against_the_kernel():
    compare_trains(KINDS, 300)


def test_geneve_coalescer_against_the_kernel():
    """GENEVE over IPv4 and IPv6 (a kernel built without CONFIG_GENEVE skips this by name)."""
    compare_trains(GENEVE_KINDS, 60, geneve=True)


# ---- segmentation: the kernel's software GSO as the oracle ------------------------------------

TUNSETIFF, TUNSETOFFLOAD, TUNSETVNETHDRSZ = 0x400454CA, 0x400454D0, 0x400454D8
# TUN_F_CSUM, _TSO4, _TSO6, _TSO_ECN, _USO4, _USO6, _UDP_TUNNEL_GSO, _UDP_TUNNEL_GSO_CSUM
TUN_TUNNEL_OFFLOADS = 0x01 | 0x02 | 0x04 | 0x08 | 0x20 | 0x40 | 0x80 | 0x100
IFF_TAP, IFF_NO_PI, IFF_VNET_HDR = 0x0002, 0x1000, 0x4000


class KernelGso(Namespace):
    """A TAP (written with a virtio-net header) and a veth end in one bridge; the veth end has no
    segmentation or checksum offload, so the kernel segments every super-packet in software on its
    way out (validate_xmit_skb), checksums computed; its peer's AF_PACKET socket reads the
    segments."""

    def __init__(self, vnet_size: int = 12) -> None:
        super().__init__("gso")
        self.tap_name = f"ig{uuid.uuid4().hex[:8]}"
        self.vnet_size = vnet_size

    def __enter__(self) -> "KernelGso":
        import fcntl
        subprocess.run(["ip", "netns", "add", self.ns], check=True)
        try:
            self.tap = os.open("/dev/net/tun", os.O_RDWR)
            fcntl.ioctl(self.tap, TUNSETIFF, struct.pack("16sH", self.tap_name.encode(), IFF_TAP | IFF_NO_PI | IFF_VNET_HDR))
            fcntl.ioctl(self.tap, TUNSETVNETHDRSZ, struct.pack("i", self.vnet_size))
            if self.vnet_size == 24:  # UDP-tunnel GSO types are taken only once offered (Linux 6.17+)
                try:
                    fcntl.ioctl(self.tap, TUNSETOFFLOAD, TUN_TUNNEL_OFFLOADS)
                except OSError as e:
                    pytest.skip(f"this kernel's TAP takes no UDP-tunnel super-packets (TUN_F_UDP_TUNNEL_GSO): {e}")
            subprocess.run(["ip", "link", "set", self.tap_name, "netns", self.ns], check=True)
            needed("a bridge (the bridge module)", self.sh("ip", "link", "add", "br0", "type", "bridge", check=False))
            self.sh("ip", "link", "add", "vout", "type", "veth", "peer", "name", "vcap")
            for dev in (self.tap_name, "vout", "vcap", "br0"):
                self.sh("ip", "link", "set", dev, "mtu", "9000")
            self.sh("ip", "link", "set", self.tap_name, "master", "br0")
            self.sh("ip", "link", "set", "vout", "master", "br0")
            needed("offloads off on a veth device",
                   self.sh("ethtool", "-K", "vout", "tso", "off", "gso", "off", "tx", "off", "sg", "off", check=False))
            self.sh("ethtool", "-K", "vcap", "gro", "off")
            for dev in (self.tap_name, "vout", "vcap", "br0"):
                self.sh("ip", "link", "set", dev, "up")
            self.rx = packet_socket(self.ns, "vcap", 0x0003)
        except BaseException:
            self.__exit__(None, None, None)
            raise
        return self

    def __exit__(self, *exc) -> None:
        if hasattr(self, "rx"):
            self.rx.close()
        if hasattr(self, "tap"):
            os.close(self.tap)
        subprocess.run(["ip", "netns", "del", self.ns], capture_output=True)

    def segments(self, vnet: bytes, frame: bytes) -> List[bytes]:
        """The frames the kernel sends out for one packet written with its header."""
        marker = bytes(Ether(src=TX_MAC, dst=RX_MAC, type=0x88B5)) + uuid.uuid4().bytes
        os.write(self.tap, vnet + frame)
        os.write(self.tap, bytes(self.vnet_size) + marker)
        out = []
        self.rx.settimeout(1.0)
        while True:
            d = self.rx.recv(70000)
            if d == marker:
                return out
            if d[6:12] == bytes.fromhex(TX_MAC.replace(":", "")):
                out.append(d)


def super_packet(rng: random.Random) -> Tuple[bytes, bytes]:
    """A TCP or UDP super-packet as a TAP's writer hands it over: (virtio-net header, frame), its
    TCP/UDP checksum the pseudo-header sum (NEEDS_CSUM)."""
    v6, udp = rng.random() < 0.5, rng.random() < 0.3
    mss = rng.choice([100, 536, 1000, 1448 - (20 if v6 else 0)])
    n = rng.randint(2, 40)
    size = mss * (n - 1) + rng.randint(1, mss)
    payload = rng.randbytes(size)
    if udp:
        l4 = UDP(sport=4000, dport=5000) / Raw(payload)
    else:
        flags = "A" + rng.choice(["", "", "P", "F", "PF", "C", "CE", "U"])
        opts = [("NOP", None), ("NOP", None), ("Timestamp", (5, 6))] if rng.random() < 0.5 else []
        l4 = TCP(sport=4000, dport=5000, seq=rng.randrange(1 << 32), ack=9, flags=flags, window=700, options=opts) / Raw(payload)
    if v6:
        ip = IPv6(src="fd02::1", dst="fd02::2", hlim=64)
    else:
        ip = IP(src="10.3.0.1", dst="10.3.0.2", id=rng.randrange(1 << 16), flags="DF" if rng.random() < 0.7 else 0,
                options=[b"\x94\x04\x00\x00"] if rng.random() < 0.1 else [])
    frame = bytearray(bytes(ETH / ip / l4))
    l4_off = len(frame) - len(bytes(l4))
    l4_hlen = len(bytes(l4)) - len(payload)
    field = l4_off + (6 if udp else 16)
    # NEEDS_CSUM: the field holds the pseudo-header sum over the whole length
    l4_len = len(frame) - l4_off
    src, dst = (bytes(socket.inet_pton(socket.AF_INET6, a)) for a in ("fd02::1", "fd02::2")) if v6 else \
        (socket.inet_aton("10.3.0.1"), socket.inet_aton("10.3.0.2"))
    pseudo = (inetcsum.pseudo_ipv6 if v6 else inetcsum.pseudo_ipv4)(src, dst, 17 if udp else 6, l4_len)
    seed = (pseudo & 0xFFFF) + (pseudo >> 16)
    seed = (seed & 0xFFFF) + (seed >> 16)
    frame[field:field + 2] = seed.to_bytes(2, "big")  # (as the kernel's tun checks it: NEEDS_CSUM)
    gso_type = GSO_UDP_L4 if udp else (GSO_TCPV6 if v6 else GSO_TCPV4)
    if not udp and "C" in flags and rng.random() < 0.5:
        gso_type |= GSO_ECN
    vnet = struct.pack("<BBHHHHH", 1, gso_type, l4_off + l4_hlen, mss, l4_off, 6 if udp else 16, 0)
    return vnet, bytes(frame)


GSO_TCPV4, GSO_UDP_L4, GSO_TCPV6, GSO_ECN = 1, 5, 4, 0x80


def test_segmentation_against_the_kernel():
    seed = int(os.environ.get("INETCSUM_GRO_SEED") or random.randrange(1 << 32))
    packets = int(os.environ.get("INETCSUM_GSO_PACKETS") or "200")  # (about 0.3 s)
    print(f"kernel {os.uname().release}, seed {seed} (INETCSUM_GRO_SEED={seed} repeats it), {packets} super-packets")
    rng = random.Random(seed)
    total = 0
    with KernelGso() as k:
        for n in range(packets):
            vnet, frame = super_packet(rng)
            theirs = k.segments(vnet, frame)
            ours = inetcsum.segment(frame, vnet=vnet)
            total += len(theirs)
            if theirs != ours or len(ours) < 2:
                diff = next((i for i, (a, b) in enumerate(zip(theirs, ours)) if a != b), min(len(theirs), len(ours)))
                pytest.fail(f"super-packet {n} (seed {seed}): vnet {vnet.hex()}, {len(frame)} bytes: kernel "
                            f"{len(theirs)} segments, inetcsum {len(ours)}; first difference in segment {diff}:\n"
                            f"kernel:   {theirs[diff].hex() if diff < len(theirs) else None}\n"
                            f"inetcsum: {ours[diff].hex() if diff < len(ours) else None}\n"
                            f"{summary(frame)}")
    print(f"{packets} super-packets segmented alike: {total} segments")


def test_tunnel_segmentation_against_the_kernel():
    """UDP-tunnel super-packets (VXLAN and GENEVE over either IP, the tunnel checksum on or off)
    with the 24-byte virtio-net header a TAP with TUN_F_UDP_TUNNEL_GSO takes: the kernel's
    segments against segment()'s."""
    from test_gso import UDP_TUNNEL_KINDS, build, tunnel_frame
    seed = int(os.environ.get("INETCSUM_GRO_SEED") or random.randrange(1 << 32))
    rng = random.Random(seed)
    total = 0
    with KernelGso(vnet_size=24) as k:
        for n in range(int(os.environ.get("INETCSUM_GSO_PACKETS") or "40")):
            kind = rng.choice(UDP_TUNNEL_KINDS)
            gso = rng.choice([500, 1000, 1300])
            frame, vh = tunnel_frame(build(kind, rng.randint(2 * gso + 1, 20000)), gso)
            vnet = vh.pack(24)
            theirs, ours = k.segments(vnet, frame), inetcsum.segment(frame, vnet=vnet)
            total += len(theirs)
            assert theirs == ours and len(ours) > 2, (f"{kind}, gso_size {gso} (seed {seed}): kernel {len(theirs)} "
                                                      f"segments, inetcsum {len(ours)}; " + next(
                (f"segment {i}: kernel {a.hex()}\ninetcsum {b.hex()}" for i, (a, b) in enumerate(zip(theirs, ours)) if a != b), ""))
    print(f"UDP-tunnel super-packets segmented alike (seed {seed}): {total} segments")
