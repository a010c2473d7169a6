"""The core sums through the binding: against scapy, a plain-Python reference and the external
vectors (Linux kunit, RFC examples, CRC32c), on every kernel this CPU can run."""

import os
import random
import struct

import pytest
import scapy.utils
from hypothesis import assume, example, given
from hypothesis import strategies as st

import inetcsum
import reference as ref

u32 = st.integers(0, 0xFFFFFFFF)


@given(st.binary(max_size=4096))
@example(b"")
@example(b"\xff")
@example(b"\xff" * 4096)
def test_checksum_equals_scapy(data):
    assert inetcsum.checksum(data) == scapy.utils.checksum(data)


@given(st.binary(min_size=1, max_size=2048), st.integers(0, 63))
def test_checksum_at_any_address(data, shift):
    # The same bytes at another start address (and through a memoryview slice, not bytes).
    buf = bytearray(shift) + data
    assert inetcsum.checksum(memoryview(buf)[shift:]) == ref.checksum(data)


def test_every_kernel_against_reference():
    rng = random.Random(1071)
    sizes = list(range(0, 300)) + [511, 512, 513, 1499, 1500, 4095, 4096, 4097, 9000, 65535, 65536]
    cases = [(rng.randbytes(n), rng.getrandbits(32), rng.randrange(8)) for n in sizes]
    cases += [(b"\xff" * n, 0xFFFFFFFF, 1) for n in (1, 63, 64, 65, 4097)]
    try:
        for impl in inetcsum.impls():
            inetcsum.set_impl(impl)
            assert inetcsum.impl_name() == impl
            for data, seed, shift in cases:
                view = memoryview(bytearray(shift) + data)[shift:]
                assert inetcsum.partial(view, seed) == ref.ones_sum(data, seed), (impl, len(data), seed, shift)
                assert inetcsum.checksum(view) == ref.checksum(data), (impl, len(data), shift)
    finally:
        inetcsum.set_impl(None)


def test_huge_all_ones():
    # 32-bit accumulators lose carries past ~128 KiB of 0xFF (DESIGN.md 3), as scapy's two
    # folds do: past 2^32 its sum is no longer folded completely.
    data = b"\xff" * (1 << 20) + b"\x01"
    assert inetcsum.partial(data) == ref.ones_sum(data)
    assert inetcsum.checksum(data) == ref.checksum(data)


@given(st.binary(max_size=600), u32)
@example(b"", 0)
@example(b"", 0xFFFFFFFF)
@example(b"\0\0", 0)
def test_partial_with_any_seed(data, seed):
    assert inetcsum.partial(data, seed) == ref.ones_sum(data, seed)
    assert inetcsum.partial(data, seed=seed) == ref.ones_sum(data, seed)


def test_plus_and_minus_zero():
    assert inetcsum.partial(b"") == 0
    assert inetcsum.checksum(b"") == 0xFFFF
    assert inetcsum.partial(b"\0" * 64) == 0
    assert inetcsum.partial(b"\xff\xff") == 0xFFFF  # -0 stays -0
    assert inetcsum.partial(b"", 0xFFFF) == 0xFFFF
    assert inetcsum.partial(b"\0\x01\xff\xfe") == 0xFFFF


@given(st.binary(max_size=400), st.data())
def test_combine_any_split(data, draw):
    k = draw.draw(st.integers(0, len(data)))
    whole = inetcsum.partial(data)
    a, b = inetcsum.partial(data[:k]), inetcsum.partial(data[k:])
    assert inetcsum.combine(a, b, k) == whole
    assert inetcsum.combine(a, b, offset=k) == whole
    # subtract undoes combine (as ones'-complement values: equal modulo 0xFFFF)
    assert inetcsum.subtract(whole, b, k) % 0xFFFF == a % 0xFFFF


@given(u32, u32, st.integers(0, (1 << 64) - 1))
def test_combine_is_ones_complement_addition(s1, s2, offset):
    b = ref.swap16(ref.fold(s2)) if offset & 1 else s2
    assert inetcsum.combine(s1, s2, offset) == ref.fold(s1 + b)


@pytest.mark.parametrize("bad", [-1, 1 << 64])
def test_combine_offset_range(bad):
    with pytest.raises(ValueError):
        inetcsum.combine(1, 2, bad)


@given(st.integers(0, 1 << 200))
@example(0)
@example(0xFFFF)
@example(0xFFFFFFFF)
@example(1 << 64)
@example(0xFFFF << 100)
def test_fold_any_integer(n):
    assert inetcsum.fold(n) == ref.fold(n)


def test_fold_sum_of_words():
    data = os.urandom(1000)
    words = struct.unpack(">500H", data)  # big-endian words, summed by Python into a big int
    assert inetcsum.fold(sum(words)) == inetcsum.partial(data)


@given(st.binary(max_size=3000), st.integers(0, 16), u32)
def test_copy_partial(src, extra, seed):
    dst = bytearray(len(src) + extra)
    assert inetcsum.copy_partial(dst, src, seed) == ref.ones_sum(src, seed)
    assert dst[: len(src)] == src
    assert dst[len(src) :] == bytes(extra)


@pytest.mark.parametrize("shift", [-3, -1, 0, 1, 2, 7])
def test_copy_partial_overlapping(shift):
    # dst and src views of one buffer: copied as memmove would, then summed.
    base = bytearray(os.urandom(5000))
    src = bytes(base[100:4100])
    dst_view = memoryview(base)[100 + shift : 100 + shift + 4000]
    assert inetcsum.copy_partial(dst_view, memoryview(base)[100:4100]) == ref.ones_sum(src)
    assert bytes(dst_view) == src


def test_copy_partial_errors():
    with pytest.raises(ValueError):
        inetcsum.copy_partial(bytearray(3), b"abcd")
    with pytest.raises(TypeError):
        inetcsum.copy_partial(b"read-only", b"abc")


@given(st.binary(max_size=300), u32)
def test_crc32c_against_reference(data, crc):
    assert inetcsum.crc32c(data, crc) == ref.crc32c(data, crc)


@given(st.binary(max_size=3000), st.data())
def test_crc32c_continues(data, draw):
    k = draw.draw(st.integers(0, len(data)))
    assert inetcsum.crc32c(data[k:], inetcsum.crc32c(data[:k])) == inetcsum.crc32c(data)


def test_crc32c_vectors(shared):
    n = 0
    for line in (shared / "vectors/crc32c_vectors.txt").read_text().splitlines():
        f = line.split()
        if f and f[0] == "vec":
            data = b"" if f[4] == "-" else bytes.fromhex(f[4])
            assert inetcsum.crc32c(data) == int(f[2], 16), f[1]
            assert inetcsum.crc32c(data).to_bytes(4, "little") == bytes.fromhex(f[3]), f[1]
            n += 1
    assert n >= 7
    assert inetcsum.crc32c(b"123456789") == 0xE3069283


# ---- incremental update (RFC 1624) ----------------------------------------------------------------
# Equal to recomputation whenever the data other than the checksum is not all zero (no real header
# is: IPv4 has its version, TCP/UDP a pseudo-header).  For all-zero data eqn. 3 gives 0x0000 where
# recomputation gives 0xFFFF: its sum ~HC + ~m + m' cannot be +0, and nothing else is known.


def _field(data, off, width):
    return int.from_bytes(data[off : off + width], "big")


@given(st.binary(min_size=4, max_size=200), st.data())
def test_update_equals_recomputation(data, draw):
    # A message whose checksum field (the first two bytes) is right, then one field rewritten.
    msg = bytearray(b"\0\0" + data)
    msg[0:2] = ref.checksum(msg).to_bytes(2, "big")
    check = _field(msg, 0, 2)
    width = draw.draw(st.sampled_from([2, 4]))
    off = 2 + 2 * draw.draw(st.integers(0, (len(msg) - 2 - width) // 2))
    new = draw.draw(st.binary(min_size=width, max_size=width))
    old = bytes(msg[off : off + width])
    msg[off : off + width] = new
    msg[0:2] = b"\0\0"
    assume(any(msg))
    want = ref.checksum(msg)
    if width == 2:
        assert inetcsum.update16(check, _field(old, 0, 2), _field(new, 0, 2)) == want
    else:
        assert inetcsum.update32(check, _field(old, 0, 4), _field(new, 0, 4)) == want
    assert inetcsum.update(check, old, new, off) == want


@given(st.binary(min_size=20, max_size=200), st.data())
def test_update_bytes_at_odd_offsets(data, draw):
    msg = bytearray(b"\0\0" + data)
    msg[0:2] = ref.checksum(msg).to_bytes(2, "big")
    check = _field(msg, 0, 2)
    off = draw.draw(st.integers(2, len(msg) - 1))
    n = draw.draw(st.integers(0, len(msg) - off))
    new = draw.draw(st.binary(min_size=n, max_size=n))
    old = bytes(msg[off : off + n])
    msg[off : off + n] = new
    msg[0:2] = b"\0\0"
    assume(any(msg))
    assert inetcsum.update(check, old, new, offset=off) == ref.checksum(msg)


def test_update_all_zero_data():
    # The one case eqn. 3 cannot match recomputation (see above): pinned so a change is noticed.
    assert inetcsum.update16(0xFFFF, 0, 0) == 0x0000
    assert inetcsum.checksum(b"\0" * 8) == 0xFFFF


def test_rfc_examples(shared):
    seen = set()
    for line in (shared / "vectors/rfc_examples.txt").read_text().splitlines():
        f = line.split()
        if not f or f[0].startswith("#"):
            continue
        if f[0] == "sum":
            data = bytes.fromhex("".join(f[1:-2]))
            assert inetcsum.partial(data) == int(f[-2], 16)
            assert inetcsum.checksum(data) == int(f[-1], 16)
        elif f[0] == "incr":
            c_other, m, m_new, hc, _eqn2, eqn3, recomputed = (int(x, 16) for x in f[1:8])
            assert inetcsum.update16(hc, m, m_new) == eqn3 == recomputed
            assert inetcsum.update(hc, m.to_bytes(2, "big"), m_new.to_bytes(2, "big")) == eqn3
            assert ~inetcsum.fold(c_other + m_new) & 0xFFFF == recomputed
        seen.add(f[0])
    assert seen == {"sum", "incr"}


# ---- Linux kunit vectors --------------------------------------------------------------------------


def test_kunit_vectors(shared):
    bufs, counts = {}, {"csum": 0, "ipfast": 0, "v6magic": 0}
    lines = (shared / "vectors/kunit_vectors.txt").read_text().splitlines()
    for line in lines:
        f = line.split()
        if not f or f[0] == "#" or line.startswith("#"):
            continue
        if f[0] == "buf":
            bufs[f[1]] = bytes.fromhex(f[3])
        elif f[0] == "csum":  # BUF LEN SEED_LE32 SEED_NET32 SEED_NET16 EXP_LE16 EXP_NET16 NAME
            data = bufs[f[1]][: int(f[2])]
            seed_net32, exp_net = int(f[4], 16), int(f[7], 16)
            for shift in (0, 1, 3, 7):  # upstream runs every alignment; the C tests do too
                view = memoryview(bytearray(shift) + data)[shift:]
                assert ~inetcsum.partial(view, seed_net32) & 0xFFFF == exp_net, (f[1], f[2], f[8], shift)
            counts["csum"] += 1
        elif f[0] == "ipfast":  # OFF WORDS EXP_LE16 EXP_NET16
            off, words = int(f[1]), int(f[2])
            assert inetcsum.checksum(bufs["random"][off : off + 4 * words]) == int(f[4], 16)
            counts["ipfast"] += 1
        elif f[0] == "v6magic":  # I SADDR DADDR LEN PROTO SEEDRAW SEED_LE32 SEED_NET16 EXP_LE16 EXP_NET16
            src, dst = bytes.fromhex(f[2]), bytes.fromhex(f[3])
            pseudo = inetcsum.pseudo_ipv6(src, dst, int(f[5]), int(f[4]), int(f[8], 16))
            assert ~pseudo & 0xFFFF == int(f[10], 16), f[1]
            counts["v6magic"] += 1
    assert counts == {"csum": 2560, "ipfast": 1810, "v6magic": 200}
