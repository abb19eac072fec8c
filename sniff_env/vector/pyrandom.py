"""Python's ``random.Random`` (Mersenne Twister, string seeds) re-done in numba.

The reference engine draws each hand from ``random.Random(f"sniff:{seed}:{hand_index}")``. To
deal thousands of hands per step without leaving compiled code, the string seeding (with its
SHA-512), ``getrandbits``, ``_randbelow``, ``shuffle`` and ``sample`` of CPython 3.11+ are
reproduced here bit for bit; the tests compare them with :mod:`random` and :mod:`hashlib`.
"""

from __future__ import annotations

import hashlib
import math

import numba as nb
import numpy as np


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
_MATRIX_A = np.uint64(0x9908B0DF)
_UPPER, _LOWER = np.uint64(0x80000000), np.uint64(0x7FFFFFFF)
_W32 = np.uint64(0xFFFFFFFF)
KEY_WORDS = 40
"""Room for the key of any seed string: the string plus its 64-byte digest, in 32-bit words."""


def seed_key(seed: int, hand_index: int, out: np.ndarray) -> int:
    """Write the init_by_array key of ``random.Random(f"sniff:{seed}:{hand_index}")`` into
    ``out`` (uint32) and return its length in words."""
    text = f"sniff:{seed}:{hand_index}".encode()
    value = int.from_bytes(text + hashlib.sha512(text).digest(), "big")
    words = max(1, (value.bit_length() - 1) // 32 + 1)
    out[:words] = np.frombuffer(value.to_bytes(4 * words, "little"), dtype="<u4")
    return words


@nb.njit(cache=True, nogil=True)
def _rotr(x: np.uint64, n: int) -> np.uint64:
    return (x >> np.uint64(n)) | (x << np.uint64(64 - n))


@nb.njit(cache=True, nogil=True)
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
    for i in range(8):
        for q in range(8):
            digest[8 * i + q] = (h[i] >> np.uint64(56 - 8 * q)) & np.uint64(0xFF)


@nb.njit(cache=True, nogil=True)
def hand_key(seed: int, hand_index: int, key: np.ndarray) -> int:
    """Like :func:`seed_key`, in compiled code: the key of ``f"sniff:{seed}:{hand_index}"``."""
    text = np.empty(64, np.uint8)
    n = 0
    for ch in "sniff:":
        text[n] = ord(ch)
        n += 1
    for part in range(2):
        v = seed if part == 0 else hand_index
        if v < 0:
            text[n] = ord("-")
            n += 1
        digits = np.empty(20, np.uint8)
        nd = 0
        u = abs(v)
        while True:
            digits[nd] = ord("0") + u % 10
            nd += 1
            u //= 10
            if u == 0:
                break
        for i in range(nd):
            text[n] = digits[nd - 1 - i]
            n += 1
        if part == 0:
            text[n] = ord(":")
            n += 1
    raw = np.zeros(n + 64 + 3, np.uint8)
    raw[:n] = text[:n]
    sha512(text, n, raw[n:])
    length = n + 64
    words = (length + 3) // 4  # the leading "s" is a nonzero byte below 0x80
    for w in range(words):
        v = 0
        for q in range(4):
            pos = length - 1 - 4 * w - q
            if pos >= 0:
                v |= int(raw[pos]) << (8 * q)
        key[w] = v
    return words


@nb.njit(cache=True, nogil=True)
def mt_seed_group(mt: np.ndarray, keys: np.ndarray, key_len: np.ndarray, count: int) -> None:
    """``init_by_array(keys[g, :key_len[g]])`` into ``mt[g]`` for ``g < count``, the games side by
    side (the recurrence is serial within a game). ``mt[g]`` has 625 uint64 cells, the last one
    the read index."""
    for g in range(count):
        mt[g, 0] = np.uint64(19650218)
    for i in range(1, _N):
        for g in range(count):
            prev = mt[g, i - 1]
            mt[g, i] = (np.uint64(1812433253) * (prev ^ (prev >> np.uint64(30))) + np.uint64(i)) & _W32
    for g in range(count):
        mt[g, _N] = np.uint64(0)  # the key position j, kept here while seeding
    i = 1
    for _ in range(_N):  # max(N, key length): keys are shorter than N
        for g in range(count):
            prev = mt[g, i - 1]
            j = mt[g, _N]
            mt[g, i] = ((mt[g, i] ^ (((prev ^ (prev >> np.uint64(30))) * np.uint64(1664525)) & _W32))
                        + np.uint64(keys[g, j]) + j) & _W32
            j += np.uint64(1)
            mt[g, _N] = j if j < np.uint64(key_len[g]) else np.uint64(0)
        i += 1
        if i >= _N:
            for g in range(count):
                mt[g, 0] = mt[g, _N - 1]
            i = 1
    for _ in range(_N - 1):
        for g in range(count):
            prev = mt[g, i - 1]
            mt[g, i] = ((mt[g, i] ^ (((prev ^ (prev >> np.uint64(30))) * np.uint64(1566083941)) & _W32))
                        - np.uint64(i)) & _W32
        i += 1
        if i >= _N:
            for g in range(count):
                mt[g, 0] = mt[g, _N - 1]
            i = 1
    for g in range(count):
        mt[g, 0] = np.uint64(0x80000000)
        mt[g, _N] = np.uint64(_N)


@nb.njit(cache=True, nogil=True)
def _genrand(mt: np.ndarray) -> np.uint64:
    if mt[_N] >= np.uint64(_N):
        for kk in range(_N - _M):
            y = (mt[kk] & _UPPER) | (mt[kk + 1] & _LOWER)
            mt[kk] = mt[kk + _M] ^ (y >> np.uint64(1)) ^ (_MATRIX_A * (y & np.uint64(1)))
        for kk in range(_N - _M, _N - 1):
            y = (mt[kk] & _UPPER) | (mt[kk + 1] & _LOWER)
            mt[kk] = mt[kk + _M - _N] ^ (y >> np.uint64(1)) ^ (_MATRIX_A * (y & np.uint64(1)))
        y = (mt[_N - 1] & _UPPER) | (mt[0] & _LOWER)
        mt[_N - 1] = mt[_M - 1] ^ (y >> np.uint64(1)) ^ (_MATRIX_A * (y & np.uint64(1)))
        mt[_N] = np.uint64(0)
    y = mt[mt[_N]]
    mt[_N] += np.uint64(1)
    y ^= y >> np.uint64(11)
    y ^= (y << np.uint64(7)) & np.uint64(0x9D2C5680)
    y ^= (y << np.uint64(15)) & np.uint64(0xEFC60000)
    y ^= y >> np.uint64(18)
    return np.uint64(y & _W32)


@nb.njit(cache=True, nogil=True)
def randbelow(mt: np.ndarray, n: int) -> int:
    """``Random._randbelow(n)`` for ``0 < n < 2**32``."""
    k = 0
    while (n >> k) > 0:
        k += 1
    shift = np.uint64(32 - k)
    r = int(_genrand(mt) >> shift)
    while r >= n:
        r = int(_genrand(mt) >> shift)
    return r


@nb.njit(cache=True, nogil=True)
def shuffle_range(mt: np.ndarray, out: np.ndarray, size: int) -> None:
    """``out[:size] = list(range(size))`` then ``Random.shuffle``."""
    for i in range(size):
        out[i] = i
    for i in range(size - 1, 0, -1):
        j = randbelow(mt, i + 1)
        out[i], out[j] = out[j], out[i]


@nb.njit(cache=True, nogil=True)
def sample_range(mt: np.ndarray, n: int, k: int, out: np.ndarray) -> None:
    """``out[:k] = Random.sample(range(n), k)``."""
    setsize = 21
    if k > 5:
        setsize += 4 ** int(np.ceil(np.log(k * 3) / np.log(4)))
    if n <= setsize:
        pool = np.arange(n)
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
