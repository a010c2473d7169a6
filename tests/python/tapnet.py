"""Two network namespaces joined through this process by two TAP devices opened with IFF_VNET_HDR,
for tests where the Linux kernel is the oracle: whatever the forwarding function writes into a
namespace, that namespace's kernel checks (checksums included, counted in /proc/net/snmp).

    with TapPair(forward) as net:        # forward(frame, vnet_header, direction) -> frames to write
        net.run("a", "python3", "-c", ...)   # a command inside namespace "a"

Namespace "a" holds tap "a" (10.77.0.1/24, fd77::1/64), "b" holds tap "b" (10.77.0.2, fd77::2).
Offloads are set per device with TUNSETOFFLOAD: the kernel then hands its TAP super-packets of up
to 64 KB (TSO, USO) with a virtio-net header, and accepts only what the flags allow back."""
from __future__ import annotations

import fcntl
import os
import select
import shutil
import struct
import subprocess
import threading
import uuid
from typing import Callable, Dict, Iterable, List, Optional, Tuple

TUNSETIFF = 0x400454CA
TUNSETOFFLOAD = 0x400454D0
TUNSETVNETHDRSZ = 0x400454D8
IFF_TAP, IFF_NO_PI, IFF_VNET_HDR = 0x0002, 0x1000, 0x4000
TUN_F_CSUM, TUN_F_TSO4, TUN_F_TSO6, TUN_F_TSO_ECN, TUN_F_USO4, TUN_F_USO6 = 0x01, 0x02, 0x04, 0x08, 0x20, 0x40
TUN_F_UDP_TUNNEL_GSO, TUN_F_UDP_TUNNEL_GSO_CSUM = 0x80, 0x100  # Linux 6.17+, with the 24-byte header
ALL_OFFLOADS = TUN_F_CSUM | TUN_F_TSO4 | TUN_F_TSO6 | TUN_F_TSO_ECN | TUN_F_USO4 | TUN_F_USO6
TUNNEL_OFFLOADS = ALL_OFFLOADS | TUN_F_UDP_TUNNEL_GSO | TUN_F_UDP_TUNNEL_GSO_CSUM
VNET_LEN = 12  # the default header: struct virtio_net_hdr_v1
TUNNEL_VNET_LEN = 24  # struct virtio_net_hdr_v1_hash_tunnel

ADDRESSES = {"a": ("10.77.0.1", "fd77::1"), "b": ("10.77.0.2", "fd77::2")}

# forward(frame, vnet, from_ns) -> [(vnet, frame), ...] to write to the other namespace's TAP.
# A forward object may also have end_of_batch(from_ns) -> [(vnet, frame), ...], called once no
# more packets are waiting on that side (where a coalescer flushes).
Forward = Callable[[bytes, bytes, str], Iterable[Tuple[bytes, bytes]]]


def why_not() -> Optional[str]:
    """Why these tests cannot run here, or None."""
    if os.geteuid() != 0:
        return "needs root (network namespaces and TAP devices)"
    if not os.path.exists("/dev/net/tun"):
        return "needs /dev/net/tun"
    if not shutil.which("ip"):
        return "needs the ip command (iproute2)"
    return None


def why_no_tunnel_gso() -> Optional[str]:
    """Why this kernel's TAP devices cannot take UDP-tunnel super-packets, or None."""
    why = why_not()
    if why:
        return why
    fd = os.open("/dev/net/tun", os.O_RDWR)
    try:
        fcntl.ioctl(fd, TUNSETIFF, struct.pack("16sH", b"", IFF_TAP | IFF_NO_PI | IFF_VNET_HDR))
        fcntl.ioctl(fd, TUNSETVNETHDRSZ, struct.pack("i", TUNNEL_VNET_LEN))
        fcntl.ioctl(fd, TUNSETOFFLOAD, TUNNEL_OFFLOADS)
    except OSError as e:
        return f"this kernel ({os.uname().release}) has no TUN_F_UDP_TUNNEL_GSO (Linux 6.17+): {e}"
    finally:
        os.close(fd)
    return None


def sh(*args: str, check: bool = True) -> subprocess.CompletedProcess:
    return subprocess.run(list(args), capture_output=True, text=True, check=check)


def snmp(ns: str) -> Dict[str, Dict[str, int]]:
    """The namespace's /proc/net/snmp and /proc/net/snmp6 counters: {"Tcp": {"InCsumErrors": 0, ...}}."""
    out: Dict[str, Dict[str, int]] = {}
    lines = sh("ip", "netns", "exec", ns, "cat", "/proc/net/snmp").stdout.splitlines()
    for names, values in zip(lines[::2], lines[1::2]):
        proto, keys = names.split(":", 1)
        out[proto] = dict(zip(keys.split(), (int(v) for v in values.split(":", 1)[1].split())))
    six = {}
    for line in sh("ip", "netns", "exec", ns, "cat", "/proc/net/snmp6").stdout.splitlines():
        key, value = line.split()
        six[key] = int(value)
    out["6"] = six
    return out


class TapPair:
    def __init__(self, forward: Forward, offloads: Dict[str, int], mtu: int = 1500, vnet_len: int = VNET_LEN) -> None:
        self.forward = forward
        self.offloads = offloads
        self.mtu = mtu
        self.vnet_len = vnet_len
        tag = uuid.uuid4().hex[:6]
        self.ns = {"a": f"icsa{tag}", "b": f"icsb{tag}"}
        self.fds: Dict[str, int] = {}
        self.stop = threading.Event()
        self.errors: List[BaseException] = []
        self.counts = {"a": 0, "b": 0}  # frames read from each side
        self.thread: Optional[threading.Thread] = None

    def _open(self, side: str) -> int:
        name = f"tap{side}{self.ns[side][-6:]}"
        fd = os.open("/dev/net/tun", os.O_RDWR)
        fcntl.ioctl(fd, TUNSETIFF, struct.pack("16sH", name.encode(), IFF_TAP | IFF_NO_PI | IFF_VNET_HDR))
        fcntl.ioctl(fd, TUNSETVNETHDRSZ, struct.pack("i", self.vnet_len))
        fcntl.ioctl(fd, TUNSETOFFLOAD, self.offloads[side])
        os.set_blocking(fd, False)
        ns = self.ns[side]
        v4, v6 = ADDRESSES[side]
        sh("ip", "link", "set", name, "netns", ns)
        run = ("ip", "netns", "exec", ns)
        sh(*run, "ip", "link", "set", name, "mtu", str(self.mtu), "up")
        sh(*run, "ip", "link", "set", "lo", "up")
        sh(*run, "ip", "addr", "add", f"{v4}/24", "dev", name)
        sh(*run, "ip", "addr", "add", f"{v6}/64", "dev", name, "nodad")
        self.names = getattr(self, "names", {})
        self.names[side] = name
        return fd

    def __enter__(self) -> "TapPair":
        for ns in self.ns.values():
            sh("ip", "netns", "add", ns)
        try:
            for side in ("a", "b"):
                self.fds[side] = self._open(side)
        except BaseException:
            self.__exit__(None, None, None)
            raise
        self.thread = threading.Thread(target=self._loop, daemon=True)
        self.thread.start()
        return self

    def _loop(self) -> None:
        by_fd = {fd: side for side, fd in self.fds.items()}
        try:
            while not self.stop.is_set():
                ready, _, _ = select.select(list(by_fd), [], [], 0.1)
                for fd in ready:
                    side = by_fd[fd]
                    other = self.fds["b" if side == "a" else "a"]
                    while True:  # every packet waiting: a batch
                        try:
                            data = os.read(fd, 65536 + 256)
                        except BlockingIOError:
                            break
                        self.counts[side] += 1
                        for vnet, frame in self.forward(data[self.vnet_len :], data[: self.vnet_len], side):
                            self._write(other, vnet + frame)
                    for vnet, frame in getattr(self.forward, "end_of_batch", lambda s: ())(side):
                        self._write(other, vnet + frame)
        except BaseException as e:  # reported by the test, not lost in the thread
            self.errors.append(e)

    @staticmethod
    def _write(fd: int, data: bytes) -> None:
        while True:
            try:
                os.write(fd, data)
                return
            except BlockingIOError:  # the device's queue is full: wait for room
                select.select([], [fd], [], 1)

    def add_namespace(self, side: str) -> None:
        """One more namespace, without a TAP (joined by whatever the test adds); removed on exit."""
        self.ns[side] = f"ics{side}{self.ns['a'][-6:]}"
        sh("ip", "netns", "add", self.ns[side])
        sh("ip", "netns", "exec", self.ns[side], "ip", "link", "set", "lo", "up")

    def run(self, side: str, *args: str, timeout: float = 60, input: Optional[str] = None) -> str:
        """Runs a command inside a namespace; its standard output (an error when it fails)."""
        done = subprocess.run(["ip", "netns", "exec", self.ns[side], *args], capture_output=True, text=True,
                              timeout=timeout, input=input)
        if done.returncode != 0:
            raise AssertionError(f"{args} in {side}: exit {done.returncode}: {done.stderr}")
        return done.stdout

    def popen(self, side: str, *args: str) -> subprocess.Popen:
        return subprocess.Popen(["ip", "netns", "exec", self.ns[side], *args], stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, text=True)

    def __exit__(self, *exc: object) -> None:
        self.stop.set()
        if self.thread:
            self.thread.join(5)
        for fd in self.fds.values():
            os.close(fd)
        for ns in self.ns.values():
            sh("ip", "netns", "del", ns, check=False)
        if self.errors:
            raise self.errors[0]
