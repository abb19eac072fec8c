"""The compiled re-implementation of ``random.Random`` string seeding matches CPython bit for bit."""

from __future__ import annotations

import hashlib
import random

import numba as nb
import numpy as np
import pytest

from sniff_env.vector.pyrandom import (
    HEAD,
    KEY_WORDS,
    MT_ROWS,
    SHA_WORK,
    genrand,
    hand_key,
    mt_seed_lanes,
    randbelow,
    sample_range,
    seed_key,
    sha512,
    shuffle_range,
)


@nb.njit(cache=True)
def _seeded(seeds: np.ndarray, hand: int, ahead: int) -> np.ndarray:
    """Generators for ``f"sniff:{seed}:{hand}"``, one column each (the seeds' keys equally long),
    their first ``ahead`` outputs drawn at seeding."""
    g = seeds.shape[0]
    keys = np.zeros((KEY_WORDS, g), np.uint32)
    key = np.zeros(KEY_WORDS, np.uint32)
    work = np.empty(SHA_WORK, np.uint64)
    length = 0
    for i in range(g):
        n = hand_key(seeds[i], hand, key, work)
        if i and n != length:
            raise ValueError("keys of different lengths")
        length = n
        keys[:, i] = key
    mt = np.empty((MT_ROWS, g), np.uint32)
    mt_seed_lanes(mt, keys, length, g, ahead)
    return mt


@nb.njit(cache=True)
def _draws(
    seeds: np.ndarray, hand: int, size: int, k: int, ahead: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    mt = _seeded(seeds, hand, ahead)
    g = seeds.shape[0]
    samples = np.zeros((g, 8), np.int64)
    orders = np.zeros((g, size), np.int64)
    below = np.zeros(g, np.int64)
    for i in range(g):
        sample_range(mt[:, i], size, k, samples[i], np.empty(size, np.int64))
        shuffle_range(mt[:, i], orders[i], size)
        below[i] = randbelow(mt[:, i], 3)
    return samples, orders, below


@nb.njit(cache=True)
def _words(seeds: np.ndarray, hand: int, count: int, ahead: int) -> np.ndarray:
    mt = _seeded(seeds, hand, ahead)
    out = np.zeros((seeds.shape[0], count), np.int64)
    for i in range(seeds.shape[0]):
        for c in range(count):
            out[i, c] = genrand(mt[:, i])
    return out


SEED_SETS = [[0, 1, 7, 9], [-3, -42], [10**15, 10**15 + 1], [2**62 + 11], [123456789, 987654321, 555555555]]
"""Seeds grouped so that the keys within a group are equally long, as ``mt_seed_lanes`` needs."""


@pytest.mark.parametrize("size,k", [(28, 2), (28, 4), (55, 3), (91, 4), (28, 7)])
@pytest.mark.parametrize("group", SEED_SETS, ids=str)
def test_sample_shuffle_randrange_match_python(size: int, k: int, group: list[int]) -> None:
    seeds = np.array(group, np.int64)
    for hand, ahead in ((0, 0), (1, 20), (17, HEAD)):
        samples, orders, below = _draws(seeds, hand, size, k, ahead)
        for i, seed in enumerate(seeds.tolist()):
            rng = random.Random(f"sniff:{seed}:{hand}")
            assert samples[i, :k].tolist() == rng.sample(range(size), k)
            order = list(range(size))
            rng.shuffle(order)
            assert orders[i].tolist() == order
            assert below[i] == rng.randrange(3)


@pytest.mark.parametrize("length", [0, 3, 111, 112, 127, 128, 250])
def test_sha512_matches_hashlib(length: int) -> None:
    data = np.frombuffer(bytes((i * 37 + 5) % 256 for i in range(length)), np.uint8).copy()
    digest = np.zeros(64, np.uint8)
    sha512(np.concatenate([data, np.zeros(1, np.uint8)]), length, digest)
    assert bytes(digest) == hashlib.sha512(data.tobytes()).digest()


def test_compiled_key_matches_python_key() -> None:
    a, b = np.zeros(KEY_WORDS, np.uint32), np.zeros(KEY_WORDS, np.uint32)
    work = np.empty(SHA_WORK, np.uint64)
    for seed in (0, 5, 10, 99, 1000, -42, 2**63 - 1, -(2**63) + 1):
        for hand in (0, 3, 10, 999, 2**63 - 1):
            n = seed_key(seed, hand, a)
            assert hand_key(seed, hand, b, work) == n
            assert a[:n].tolist() == b[:n].tolist()


@pytest.mark.parametrize("ahead", [0, 1, HEAD])
def test_long_output_sequences_match_python(ahead: int) -> None:
    """Past the outputs drawn at seeding, past the first 227 words (whose twist reads untwisted
    words only) and past 624 (a second twist of the whole state), the lazily twisted generator
    still follows ``getrandbits(32)``."""
    seeds = np.array([4, 5, 6], np.int64)
    words = _words(seeds, 2, 2000, ahead)
    for i, seed in enumerate(seeds.tolist()):
        rng = random.Random(f"sniff:{seed}:2")
        assert words[i].tolist() == [rng.getrandbits(32) for _ in range(2000)]
