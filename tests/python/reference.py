"""Plain-Python references the binding is tested against: written from the RFCs, slow, obvious."""

import struct


def fold(s: int) -> int:
    """End-around-carry fold of any non-negative sum: 2^16 = 1 (mod 0xFFFF), 0 only for 0."""
    return 0 if s == 0 else (s - 1) % 0xFFFF + 1


def ones_sum(data: bytes, seed: int = 0) -> int:
    """RFC 1071: the ones'-complement sum of the data's big-endian 16-bit words (an odd last byte
    padded with zero) and the seed, folded, not complemented."""
    data = bytes(data)
    if len(data) % 2:
        data += b"\0"
    return fold(seed + sum(struct.unpack(f">{len(data) // 2}H", data)))


def checksum(data: bytes) -> int:
    return ~ones_sum(data) & 0xFFFF


def swap16(x: int) -> int:
    return ((x & 0xFF) << 8) | (x >> 8)


def crc32c(data: bytes, crc: int = 0) -> int:
    """CRC32c bit by bit (reflected polynomial 0x82F63B78), continuing from crc."""
    crc ^= 0xFFFFFFFF
    for b in bytes(data):
        crc ^= b
        for _ in range(8):
            crc = (crc >> 1) ^ (0x82F63B78 if crc & 1 else 0)
    return crc ^ 0xFFFFFFFF
