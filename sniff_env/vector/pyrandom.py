"""Python's ``random.Random`` (Mersenne Twister, string seeds) re-done in numba.

The reference engine draws each hand from ``random.Random(f"sniff:{seed}:{hand_index}")``. To
deal thousands of hands per step without leaving compiled code, the string seeding (with its
SHA-512), ``getrandbits``, ``_randbelow``, ``shuffle`` and ``sample`` of CPython 3.11+ are
reproduced here bit for bit; the tests compare them with :mod:`random` and :mod:`hashlib`.

Shortcuts that keep a deal cheap without changing a single output: ``init_by_array`` starts
from the constant state ``init_genrand(19650218)``, computed once here; the state is twisted
lazily, each word just before it is read (a deal reads a few dozen of the 624), which is the
reference twist done in the same order; and generators are seeded side by side, one per column
of an ``[MT_ROWS, lanes]`` array (``mt[:, g]`` is generator ``g``), so that the serial seeding
recurrences of many games fill the vector units, which then also draw the first outputs of
each generator ahead.
"""

from __future__ import annotations

import hashlib
import math

import numpy as np

from sniff_env.vector._compile import compiled


def _first_primes(count: int) -> list[int]:
    out: list[int] = []
    n = 2
    while len(out) < count:
        if all(n % q for q in out):
            out.append(n)
        n += 1
    return out


def _icbrt(x: int) -> int:
    r = 1 << ((x.bit_length() + 2) // 3)
    while True:
        nxt = (2 * r + x // (r * r)) // 3
        if nxt >= r:
            break
        r = nxt
    while r * r * r > x:
        r -= 1
    return r


# SHA-512 constants (FIPS 180-4): fractional parts of square and cube roots of the first primes
_SHA_H0 = np.array([math.isqrt(q << 128) & (2**64 - 1) for q in _first_primes(8)], np.uint64)
_SHA_K = np.array([_icbrt(q << 192) & (2**64 - 1) for q in _first_primes(80)], np.uint64)

_N, _M = 624, 397
_POS, _READY = _N, _N + 1
HEAD = 128
"""Outputs that :func:`mt_seed_lanes` can produce ahead, side by side (at most 227)."""
MT_ROWS = _N + 2 + HEAD
"""Rows of a generator state: the 624 words, the read position, how many outputs are ready, and
the ready outputs."""
_MATRIX_A = np.uint64(0x9908B0DF)
_UPPER, _LOWER = np.uint64(0x80000000), np.uint64(0x7FFFFFFF)
_W32 = np.uint64(0xFFFFFFFF)
KEY_WORDS = 40
"""Room for the key of any seed string: the string plus its 64-byte digest, in 32-bit words."""
SHA_WORK = 88
"""Cells of the uint64 scratch that :func:`hand_key` needs."""


def _init_genrand(s: int) -> np.ndarray:
    mt = [s]
    for i in range(1, _N):
        prev = mt[-1]
        mt.append((1812433253 * (prev ^ (prev >> 30)) + i) & 0xFFFFFFFF)
    return np.array(mt, np.uint32)


_MT_INIT = _init_genrand(19650218)
"""``init_genrand(19650218)``, where every ``init_by_array`` starts."""


def seed_key(seed: int, hand_index: int, out: np.ndarray) -> int:
    """Write the init_by_array key of ``random.Random(f"sniff:{seed}:{hand_index}")`` into
    ``out`` (uint32) and return its length in words."""
    text = f"sniff:{seed}:{hand_index}".encode()
    value = int.from_bytes(text + hashlib.sha512(text).digest(), "big")
    words = max(1, (value.bit_length() - 1) // 32 + 1)
    out[:words] = np.frombuffer(value.to_bytes(4 * words, "little"), dtype="<u4")
    return words


_jit = compiled()
_inline = compiled(inline=True)  # small or hot helpers: a copy in each caller


@_jit
def _rotr(x: np.uint64, n: int) -> np.uint64:
    return (x >> np.uint64(n)) | (x << np.uint64(64 - n))


@_jit
def _compress(w: np.ndarray, h: np.ndarray) -> None:
    """One SHA-512 block: ``w[:16]`` its big-endian words (``w`` has 80 cells, the message
    schedule goes in the rest), ``h[:8]`` the running hash."""
    for t in range(16, 80):
        s0 = _rotr(w[t - 15], 1) ^ _rotr(w[t - 15], 8) ^ (w[t - 15] >> np.uint64(7))
        s1 = _rotr(w[t - 2], 19) ^ _rotr(w[t - 2], 61) ^ (w[t - 2] >> np.uint64(6))
        w[t] = w[t - 16] + s0 + w[t - 7] + s1
    a, b, c, d, e, f, g, hh = h[0], h[1], h[2], h[3], h[4], h[5], h[6], h[7]
    for t in range(80):
        t1 = hh + (_rotr(e, 14) ^ _rotr(e, 18) ^ _rotr(e, 41)) + ((e & f) ^ (~e & g)) + _SHA_K[t] + w[t]
        t2 = (_rotr(a, 28) ^ _rotr(a, 34) ^ _rotr(a, 39)) + ((a & b) ^ (a & c) ^ (b & c))
        hh, g, f, e, d, c, b, a = g, f, e, d + t1, c, b, a, t1 + t2
    h[0] += a
    h[1] += b
    h[2] += c
    h[3] += d
    h[4] += e
    h[5] += f
    h[6] += g
    h[7] += hh


@compiled(allocates=True)
def sha512(data: np.ndarray, length: int, digest: np.ndarray) -> None:
    """``digest[:64] = hashlib.sha512(bytes(data[:length])).digest()`` (uint8 arrays)."""
    blocks = (length + 17 + 127) // 128
    msg = np.zeros(blocks * 128, np.uint8)
    msg[:length] = data[:length]
    msg[length] = 0x80
    bits = length * 8
    for q in range(8):
        msg[blocks * 128 - 1 - q] = (bits >> (8 * q)) & 0xFF
    h = _SHA_H0.copy()
    w = np.empty(80, np.uint64)
    for blk in range(blocks):
        for t in range(16):
            v = np.uint64(0)
            for q in range(8):
                v = (v << np.uint64(8)) | np.uint64(msg[blk * 128 + 8 * t + q])
            w[t] = v
        _compress(w, h)
    for i in range(8):
        for q in range(8):
            digest[8 * i + q] = (h[i] >> np.uint64(56 - 8 * q)) & np.uint64(0xFF)


@_jit
def _put_byte(w: np.ndarray, pos: int, byte: int) -> None:
    w[pos >> 3] |= np.uint64(byte) << np.uint64(56 - 8 * (pos & 7))


@_jit
def _byte_at(w: np.ndarray, pos: int) -> np.int64:
    return np.int64((w[pos >> 3] >> np.uint64(56 - 8 * (pos & 7))) & np.uint64(0xFF))


@_jit
def _put_int(w: np.ndarray, pos: int, v: int) -> int:
    """Write ``str(v)`` at byte ``pos``; return the position after it."""
    if v < 0:
        _put_byte(w, pos, ord("-"))
        pos += 1
        v = -v
    digits = 1
    u = v
    while u >= 10:
        u //= 10
        digits += 1
    for i in range(digits - 1, -1, -1):
        _put_byte(w, pos + i, ord("0") + v % 10)
        v //= 10
    return pos + digits


@_jit
def hand_key(seed: int, hand_index: int, key: np.ndarray, work: np.ndarray) -> int:
    """Like :func:`seed_key`, in compiled code: the key of ``f"sniff:{seed}:{hand_index}"``
    (``work``: uint64 scratch of ``SHA_WORK`` cells)."""
    w = work[:80]
    h = work[80:88]
    for t in range(16):
        w[t] = 0
    n = 0
    for ch in (115, 110, 105, 102, 102, 58):  # "sniff:"
        _put_byte(w, n, ch)
        n += 1
    n = _put_int(w, n, seed)
    _put_byte(w, n, ord(":"))
    n = _put_int(w, n + 1, hand_index)  # at most 47 bytes: a single block
    _put_byte(w, n, 0x80)
    w[15] = np.uint64(8 * n)
    for i in range(8):
        h[i] = _SHA_H0[i]
    _compress(w, h)
    # the key is the string then its digest read as one big-endian number, in little-endian words
    for i in range(8):
        key[2 * i] = h[7 - i] & _W32
        key[2 * i + 1] = h[7 - i] >> np.uint64(32)
    words = (n + 64 + 3) // 4  # the leading "s" is a nonzero byte below 0x80
    for k in range(16, words):
        v = 0
        for pos in range(n - 4 * (k - 16) - 4, n - 4 * (k - 16)):
            v = (v << 8) | (int(_byte_at(w, pos)) if pos >= 0 else 0)
        key[k] = v
    return words


@_jit
def _seed_row(prev: np.ndarray, row: np.ndarray, keys: np.ndarray, j: int, lanes: int) -> None:
    add = np.uint32(j)
    for g in range(lanes):
        p = prev[g]
        mixed = np.uint32((p ^ (p >> np.uint32(30))) * np.uint32(1664525))
        row[g] = np.uint32((row[g] ^ mixed) + keys[g] + add)


@_jit
def _mix_row(prev: np.ndarray, row: np.ndarray, i: int, lanes: int) -> None:
    sub = np.uint32(i)
    for g in range(lanes):
        p = prev[g]
        mixed = np.uint32((p ^ (p >> np.uint32(30))) * np.uint32(1566083941))
        row[g] = np.uint32((row[g] ^ mixed) - sub)


@_jit
def _copy_row(mt: np.ndarray, src: int, dst: int, lanes: int) -> None:
    for g in range(lanes):
        mt[dst, g] = mt[src, g]


@_inline
def _temper(v: np.uint64) -> np.uint64:
    v ^= v >> np.uint64(11)
    v ^= (v << np.uint64(7)) & np.uint64(0x9D2C5680)
    v ^= (v << np.uint64(15)) & np.uint64(0xEFC60000)
    v ^= v >> np.uint64(18)
    return np.uint64(v & _W32)


@_jit
def _twist_row(row: np.ndarray, nxt: np.ndarray, far: np.ndarray, out: np.ndarray, lanes: int) -> None:
    """Twist one word (``row``, with the untwisted ``nxt`` and ``far`` words) of every lane; its
    tempered output goes to ``out``."""
    for g in range(lanes):
        y = (np.uint32(row[g]) & np.uint32(0x80000000)) | (np.uint32(nxt[g]) & np.uint32(0x7FFFFFFF))
        odd = np.uint32(0) - (y & np.uint32(1))  # all ones when y is odd
        v = np.uint32(far[g] ^ (y >> np.uint32(1)) ^ (odd & np.uint32(0x9908B0DF)))
        row[g] = v
        v ^= v >> np.uint32(11)
        v ^= (v << np.uint32(7)) & np.uint32(0x9D2C5680)
        v ^= (v << np.uint32(15)) & np.uint32(0xEFC60000)
        v ^= v >> np.uint32(18)
        out[g] = v


@_jit
def mt_seed_lanes(mt: np.ndarray, keys: np.ndarray, key_len: int, lanes: int, ahead: int) -> None:
    """``init_by_array(keys[:key_len, g])`` into ``mt[:, g]`` for ``g < lanes``: generators side by
    side (uint32 ``[MT_ROWS, L]`` and ``[KEY_WORDS, L]``), their keys all ``key_len`` words long.
    The first ``ahead`` outputs (at most ``HEAD``) of each are produced here, side by side too."""
    for i in range(_N):
        mt[i, :lanes] = _MT_INIT[i]
    j = 0
    i = 1
    for _ in range(_N):  # max(N, key length): keys are shorter than N
        _seed_row(mt[i - 1], mt[i], keys[j], j, lanes)
        j += 1
        if j >= key_len:
            j = 0
        i += 1
        if i >= _N:
            _copy_row(mt, _N - 1, 0, lanes)
            i = 1
    for _ in range(_N - 1):
        _mix_row(mt[i - 1], mt[i], i, lanes)
        i += 1
        if i >= _N:
            _copy_row(mt, _N - 1, 0, lanes)
            i = 1
    mt[0, :lanes] = np.uint32(0x80000000)
    ahead = min(ahead, HEAD)
    for k in range(ahead):  # words below N - M twist from untwisted words only
        _twist_row(mt[k], mt[k + 1], mt[k + _M], mt[_READY + 1 + k], lanes)
    mt[_POS, :lanes] = 0
    mt[_READY, :lanes] = ahead


@_inline
def genrand(mt: np.ndarray) -> np.uint64:
    """The next 32-bit output (``getrandbits(32)``) of generator ``mt``, a column of an array
    seeded by :func:`mt_seed_lanes`."""
    k = mt[_POS]
    if k < mt[_READY]:
        mt[_POS] = k + 1
        return np.uint64(mt[_READY + 1 + k])
    if k >= _N:
        k = 0
        mt[_READY] = 0
    # twist word k now: words after it are still untwisted, words before it already twisted
    y = (np.uint64(mt[k]) & _UPPER) | (np.uint64(mt[k + 1 if k < _N - 1 else 0]) & _LOWER)
    v = np.uint64(mt[k + _M if k < _N - _M else k + _M - _N]) ^ (y >> np.uint64(1))
    v ^= _MATRIX_A * (y & np.uint64(1))
    mt[k] = v
    mt[_POS] = k + 1
    return _temper(v)


@_jit
def _bit_length(n: int) -> int:
    k = 0
    while (n >> k) > 0:
        k += 1
    return k


@_inline
def _below(mt: np.ndarray, n: int, k: int) -> int:
    """``_randbelow(n)`` with ``k = n.bit_length()``."""
    shift = np.uint64(32 - k)
    r = int(genrand(mt) >> shift)
    while r >= n:
        r = int(genrand(mt) >> shift)
    return r


@_jit
def randbelow(mt: np.ndarray, n: int) -> int:
    """``Random._randbelow(n)`` for ``0 < n < 2**32``."""
    return _below(mt, n, _bit_length(n))


@_jit
def shuffle_range(mt: np.ndarray, out: np.ndarray, size: int) -> None:
    """``out[:size] = list(range(size))`` then ``Random.shuffle``."""
    for i in range(size):
        out[i] = i
    k = _bit_length(size)
    for i in range(size - 1, 0, -1):
        if (i + 1) >> (k - 1) == 0:
            k -= 1
        j = _below(mt, i + 1, k)
        out[i], out[j] = out[j], out[i]


@_jit
def sample_range(mt: np.ndarray, n: int, k: int, out: np.ndarray, pool: np.ndarray) -> None:
    """``out[:k] = Random.sample(range(n), k)`` (``pool``: scratch of ``n`` cells)."""
    setsize = 21
    if k > 5:
        setsize += 4 ** int(np.ceil(np.log(k * 3) / np.log(4)))
    if n <= setsize:
        for i in range(n):
            pool[i] = i
        for i in range(k):
            j = randbelow(mt, n - i)
            out[i] = pool[j]
            pool[j] = pool[n - i - 1]
    else:
        for i in range(k):
            while True:
                j = randbelow(mt, n)
                dup = False
                for q in range(i):
                    if out[q] == j:
                        dup = True
                if not dup:
                    break
            out[i] = j
