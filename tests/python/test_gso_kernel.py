"""Segmentation and coalescing with the Linux kernel as the oracle.

Segmentation: senders in namespace "a", whose TAP has
offloads on, hand it TCP (TSO) and UDP (UDP_SEGMENT, USO) super-packets of up to 64 KB with a
virtio-net header; segment() splits them into wire-sized frames with every checksum computed and
writes them into namespace "b"'s TAP, offloads off, whose kernel checks every checksum: its
InCsumErrors counters stay 0 and the bytes received hash as the bytes sent.  Over IPv4, IPv6 and a
VXLAN device.  A forwarder that spoils one checksum shows the counters do catch it.

Coalescing: the other way round, "a"'s TAP with offloads off hands over wire-sized packets; a
Coalescer merges each batch into super-packets written with their virtio-net header into "b"'s
TAP, offloads on, which takes them only if the header agrees with the packet; the bytes received
hash as the bytes sent."""
import sys

import pytest

import inetcsum
from inetcsum import GsoType, VnetFlag, VnetHeader, segment

import tapnet

pytestmark = pytest.mark.skipif(tapnet.why_not() is not None, reason=f"kernel tests: {tapnet.why_not()}")


RECEIVE_TCP = r"""
import hashlib, socket, sys
host, port = sys.argv[1], int(sys.argv[2])
s = socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET)
s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind((host, port)); s.listen(1)
print("ready", flush=True)
c, _ = s.accept(); h = hashlib.sha256(); n = 0
while True:
    d = c.recv(1 << 20)
    if not d: break
    h.update(d); n += len(d)
print(n, h.hexdigest(), flush=True)
"""

SEND_TCP = r"""
import hashlib, random, socket, sys
host, port, size = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
data = random.Random(7).randbytes(size)
s = socket.create_connection((host, port), timeout=30)
s.sendall(data); s.close()
print(len(data), hashlib.sha256(data).hexdigest(), flush=True)
"""

# UDP: 64000-byte sends cut by the kernel into 1400-byte datagrams (UDP_SEGMENT); the receiver
# acknowledges each whole send, so that nothing is lost to a full socket buffer.
RECEIVE_UDP = r"""
import hashlib, socket, sys
host, port, size = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
s = socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET, socket.SOCK_DGRAM)
s.bind((host, port)); s.settimeout(30)
print("ready", flush=True)
h = hashlib.sha256(); n = got = 0
while n < size:
    d, peer = s.recvfrom(65536)
    h.update(d); n += len(d); got += len(d)
    if got >= 64000 or n >= size:
        s.sendto(b"k", peer); got = 0
print(n, h.hexdigest(), flush=True)
"""

SEND_UDP = r"""
import hashlib, random, socket, sys
host, port, size = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
data = random.Random(9).randbytes(size)
s = socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET, socket.SOCK_DGRAM)
s.setsockopt(socket.IPPROTO_UDP, 103, 1400)  # UDP_SEGMENT
s.settimeout(10)
for at in range(0, size, 64000):
    s.sendto(data[at:at + 64000], (host, port))
    s.recv(16)
print(len(data), hashlib.sha256(data).hexdigest(), flush=True)
"""


class Segmenter:
    """The forwarder under test: super-packets from "a" segmented, everything else passed on."""

    def __init__(self, spoil=False, vnet_len=tapnet.VNET_LEN):
        self.super_packets = {}  # GSO type -> how many
        self.segments = 0
        self.spoil = spoil
        self.vnet_len = vnet_len

    def __call__(self, frame, vnet, side):
        h = VnetHeader.unpack(vnet)
        if side == "a" and (h.gso_type or h.flags & VnetFlag.NEEDS_CSUM):
            kind = GsoType(h.gso_type & ~GsoType.ECN)  # with a UDP_TUNNEL bit kept
            if h.gso_type:
                self.super_packets[kind] = self.super_packets.get(kind, 0) + 1
            try:
                out = segment(frame, vnet=vnet, vnet_out=self.vnet_len)
            except ValueError:
                if h.gso_type:
                    raise
                # One packet in headers segmentation does not walk (a tunnel on a port it does not
                # know, with no offsets to name it): its checksum completed where the header says.
                whole = bytearray(frame)
                inetcsum.complete_partial(whole, h.csum_start, h.csum_offset)
                out = [bytes(self.vnet_len) + bytes(whole)]
            self.segments += len(out)
            frames = [s[self.vnet_len :] for s in out]
            if self.spoil and h.gso_type and self.super_packets[kind] == 3:
                spoilt = bytearray(frames[-1])
                spoilt[-1] ^= 0x55  # the payload changes, the checksum does not
                frames[-1] = bytes(spoilt)
            assert all(len(f) <= 14 + 1500 for f in frames), [len(f) for f in frames]
            return [(bytes(self.vnet_len), f) for f in frames]
        return [(bytes(self.vnet_len), frame)]


def transfer(net, proto, host, size, at="b"):
    receiver = net.popen(at, sys.executable, "-c", RECEIVE_TCP if proto == "tcp" else RECEIVE_UDP, host, "5201",
                         str(size))
    try:
        assert receiver.stdout.readline().strip() == "ready", receiver.stderr.read()
        sent = net.run("a", sys.executable, "-c", SEND_TCP if proto == "tcp" else SEND_UDP, host, "5201", str(size))
        out, err = receiver.communicate(timeout=60)
    finally:
        receiver.kill()
    assert receiver.returncode == 0, err
    return sent.split(), out.split()


def counters(net):
    c = tapnet.snmp(net.ns["b"])
    return {
        "tcp": c["Tcp"]["InCsumErrors"],
        "udp": c["Udp"]["InCsumErrors"],
        "udp6": c["6"]["Udp6InCsumErrors"],
        "ipv4 header": c["Ip"]["InHdrErrors"],
    }


OFFLOADS = {"a": tapnet.ALL_OFFLOADS, "b": 0}


@pytest.mark.parametrize("proto,version", [("tcp", 4), ("tcp", 6), ("udp", 4), ("udp", 6)])
def test_super_packets_segmented_into_a_checking_kernel(proto, version):
    fwd = Segmenter()
    with tapnet.TapPair(fwd, OFFLOADS) as net:
        host = tapnet.ADDRESSES["b"][0 if version == 4 else 1]
        before = counters(net)
        sent, received = transfer(net, proto, host, 4 << 20)
        after = counters(net)
    assert sent == received  # every byte, in order
    assert after == before, (before, after)  # no checksum the receiving kernel refused
    want = {("tcp", 4): GsoType.TCPV4, ("tcp", 6): GsoType.TCPV6}.get((proto, version), GsoType.UDP_L4)
    assert fwd.super_packets.get(want, 0) > 5, fwd.super_packets  # the kernel did hand over super-packets
    assert fwd.segments > 4 * sum(fwd.super_packets.values())


def add_vxlan(net, side, remote, address, port=4789):
    """A VXLAN device in side's namespace, to remote, with its UDP checksum on."""
    net.run(side, "ip", "link", "add", "vx0", "type", "vxlan", "id", "42", "dstport", str(port), "remote", remote,
            "udpcsum", "udp6zerocsumtx", "udp6zerocsumrx")
    net.run(side, "ip", "link", "set", "vx0", "up")
    net.run(side, "ip", "addr", "add", address, "dev", "vx0")


def test_through_vxlan():
    # Without UDP-tunnel GSO the kernel segments VXLAN itself and hands over NEEDS_CSUM frames.
    fwd = Segmenter()
    with tapnet.TapPair(fwd, OFFLOADS) as net:
        for side, remote in (("a", "b"), ("b", "a")):
            add_vxlan(net, side, tapnet.ADDRESSES[remote][0], "10.78.0.%d/24" % (1 if side == "a" else 2))
        before = counters(net)
        sent, received = transfer(net, "tcp", "10.78.0.2", 2 << 20)
        after = counters(net)
    assert sent == received and after == before, (before, after)
    assert fwd.segments > 1000  # VXLAN frames completed (or segmented) on the way


tunnel_gso = pytest.mark.skipif(tapnet.why_no_tunnel_gso() is not None, reason=f"{tapnet.why_no_tunnel_gso()}")


@tunnel_gso
@pytest.mark.parametrize("port", [4789, 8472])
def test_vxlan_super_packets_segmented_into_a_checking_kernel(port):
    # With it, "a"'s kernel hands over whole VXLAN super-packets (a 24-byte header: the tunnel's
    # offsets); on 8472 (Linux's default port, flannel's) only those offsets say it is a tunnel.
    fwd = Segmenter(vnet_len=tapnet.TUNNEL_VNET_LEN)
    offloads = {"a": tapnet.TUNNEL_OFFLOADS, "b": 0}
    with tapnet.TapPair(fwd, offloads, vnet_len=tapnet.TUNNEL_VNET_LEN) as net:
        for side, remote in (("a", "b"), ("b", "a")):
            add_vxlan(net, side, tapnet.ADDRESSES[remote][0], "10.78.0.%d/24" % (1 if side == "a" else 2), port)
        before = counters(net)
        sent, received = transfer(net, "tcp", "10.78.0.2", 4 << 20)
        after = counters(net)
    assert sent == received and after == before, (before, after)
    tunnelled = sum(n for t, n in fwd.super_packets.items() if t & GsoType.UDP_TUNNEL_IPV4)
    assert tunnelled > 5, fwd.super_packets


@tunnel_gso
@pytest.mark.parametrize("where", ["delivered", "forwarded"])
def test_vxlan_packets_coalesced_into_a_kernel_with_tunnel_gso(where):
    """Wire-sized VXLAN frames from "a" (offloads off) coalesced into UDP-tunnel super-packets for
    "b"'s TAP (TUN_F_UDP_TUNNEL_GSO).  delivered: "b" ends the tunnel.  forwarded: "b" routes the
    super-packets on through a veth with segmentation and checksum offload off, so that its kernel
    segments them by their header (the tunnel's checksum from the pseudo-header sum this library
    left in it) and a third namespace "c" checks every checksum it computed."""
    fwd = CoalescingForward(vnet_len=tapnet.TUNNEL_VNET_LEN)
    offloads = {"a": 0, "b": tapnet.TUNNEL_OFFLOADS}
    with tapnet.TapPair(fwd, offloads, vnet_len=tapnet.TUNNEL_VNET_LEN) as net:
        if where == "delivered":
            end, end_address = "b", tapnet.ADDRESSES["b"][0]
        else:
            end, end_address = "c", "10.79.0.2"
            net.add_namespace("c")
            tapnet.sh("ip", "link", "add", "vb", "netns", net.ns["b"], "type", "veth", "peer", "name", "vc", "netns",
                      net.ns["c"])
            net.run("b", "ip", "addr", "add", "10.79.0.1/24", "dev", "vb")
            net.run("c", "ip", "addr", "add", "10.79.0.2/24", "dev", "vc")
            for side, dev in (("b", "vb"), ("c", "vc")):
                net.run(side, "ip", "link", "set", dev, "up")
            net.run("b", "ethtool", "-K", "vb", "tx", "off", "tso", "off", "gso", "off", "tx-udp_tnl-segmentation", "off",
                    "tx-udp_tnl-csum-segmentation", "off")
            net.run("b", "sh", "-c", "echo 1 > /proc/sys/net/ipv4/ip_forward")  # sysctl (procps) may be absent
            net.run("a", "ip", "route", "add", "10.79.0.0/24", "via", tapnet.ADDRESSES["b"][0])
            net.run("c", "ip", "route", "add", "10.77.0.0/24", "via", "10.79.0.1")
        add_vxlan(net, "a", end_address, "10.78.0.1/24")
        add_vxlan(net, end, tapnet.ADDRESSES["a"][0], "10.78.0.2/24")
        before = tapnet.snmp(net.ns[end])
        sent, received = transfer(net, "tcp", "10.78.0.2", 4 << 20, at=end)
        after = tapnet.snmp(net.ns[end])
    assert sent == received
    for proto, key in (("Tcp", "InCsumErrors"), ("Udp", "InCsumErrors"), ("Ip", "InHdrErrors")):
        assert after[proto][key] == before[proto][key], (proto, key, before[proto], after[proto])
    tunnelled = sum(n for t, n in fwd.super_packets.items() if t & GsoType.UDP_TUNNEL_IPV4)
    assert tunnelled > 5, fwd.super_packets


def test_a_spoilt_segment_is_caught():
    # The oracle works: one segment with a payload byte changed after its checksum was computed.
    fwd = Segmenter(spoil=True)
    with tapnet.TapPair(fwd, OFFLOADS) as net:
        before = counters(net)
        sent, received = transfer(net, "tcp", tapnet.ADDRESSES["b"][0], 1 << 20)
        after = counters(net)
    assert sent == received  # TCP sent it again
    assert after["tcp"] == before["tcp"] + 1


class CoalescingForward:
    """Packets from "a" merged into super-packets for "b"; the rest passed on."""

    def __init__(self, vnet_len=tapnet.VNET_LEN):
        self.c = inetcsum.Coalescer(vnet_size=vnet_len)
        self.vnet_len = vnet_len
        self.super_packets = {}

    def _out(self, packets):
        for p in packets:
            h = VnetHeader.unpack(p[: self.vnet_len])
            if h.gso_type:
                self.super_packets[h.gso_type] = self.super_packets.get(h.gso_type, 0) + 1
            yield p[: self.vnet_len], p[self.vnet_len :]

    def __call__(self, frame, vnet, side):
        if side == "a":
            return list(self._out(self.c.add(frame)))
        return [(vnet, frame)]  # b's replies may be left for checksum offload: the header says so

    def end_of_batch(self, side):
        return list(self._out(self.c.flush())) if side == "a" else []


@pytest.mark.parametrize("proto,version", [("tcp", 4), ("tcp", 6), ("udp", 4), ("udp", 6)])
def test_packets_coalesced_into_a_kernel_with_offloads(proto, version):
    fwd = CoalescingForward()
    with tapnet.TapPair(fwd, {"a": 0, "b": tapnet.ALL_OFFLOADS}) as net:
        host = tapnet.ADDRESSES["b"][0 if version == 4 else 1]
        before = counters(net)
        sent, received = transfer(net, proto, host, 4 << 20)
        after = counters(net)
    assert sent == received and after == before, (before, after)
    want = {("tcp", 4): GsoType.TCPV4, ("tcp", 6): GsoType.TCPV6}.get((proto, version), GsoType.UDP_L4)
    assert sum(n for t, n in fwd.super_packets.items() if t & ~GsoType.ECN == want) > 5, fwd.super_packets
