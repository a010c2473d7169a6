"""The Python README's segmentation example run as shown, on what a TAP hands over: ARP, ICMP and
TCP super-packets, each behind its virtio-net header (issue 26: the loop once died on the first
ARP frame).  The example's code is read from python/README.md, not copied here."""
from __future__ import annotations

import os
import re
from typing import List

from scapy.layers.inet import ICMP, IP, TCP
from scapy.layers.l2 import ARP, Ether
from scapy.packet import Raw

import inetcsum
from inetcsum import GsoType, VnetFlag, VnetHeader

README = os.path.join(os.path.dirname(__file__), "..", "..", "python", "README.md")


def example(after: str) -> str:
    """The first ```python block of the README that follows the text `after`."""
    text = open(README).read()
    start = text.index(after)
    block = re.search(r"```python\n(.*?)```", text[start:], re.S)
    assert block, f"no python block after {after!r}"
    return "\n".join(line[2:] if line.startswith("  ") else line for line in block.group(1).splitlines())


def tap_reads() -> List[bytes]:
    eth = Ether(src="02:00:00:00:00:01", dst="02:00:00:00:00:02")
    arp = bytes(Ether(src="02:00:00:00:00:01", dst="ff:ff:ff:ff:ff:ff") / ARP(psrc="10.0.0.1", pdst="10.0.0.2"))
    ping = bytes(eth / IP(src="10.0.0.1", dst="10.0.0.2") / ICMP() / Raw(b"x" * 56))
    big = bytearray(bytes(eth / IP(src="10.0.0.1", dst="10.0.0.2", flags="DF") / TCP(sport=1, dport=2, flags="A")
                          / Raw(os.urandom(20000))))
    seed = inetcsum.pseudo_ipv4("10.0.0.1", "10.0.0.2", 6, len(big) - 34)
    seed = ((seed & 0xFFFF) + (seed >> 16)) & 0xFFFF
    big[50:52] = seed.to_bytes(2, "big")  # NEEDS_CSUM: the pseudo-header sum, as the kernel hands it over
    gso = VnetHeader(flags=VnetFlag.NEEDS_CSUM, gso_type=GsoType.TCPV4, hdr_len=54, gso_size=1448, csum_start=34,
                     csum_offset=16).pack(12)
    return [bytes(12) + arp, bytes(12) + ping, gso + bytes(big)]


def test_python_readme_segmentation_example():
    code = example("Segmentation offload:")
    reads = tap_reads()
    sent: List[bytes] = []

    class FakeOs:
        @staticmethod
        def read(fd, n):
            return reads.pop(0)

    class Sock:
        send = staticmethod(sent.append)

    while reads:
        exec(code, {"os": FakeOs, "tap": 3, "sock": Sock, "encrypt": lambda b: bytes(b), "inetcsum": inetcsum})
    assert len(sent) == 2 + 14  # ARP and ICMP as they came, 20,000 bytes in 14 segments
    assert all(inetcsum.verify(s).ok for s in sent)
