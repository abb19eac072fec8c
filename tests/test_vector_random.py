"""The compiled re-implementation of ``random.Random`` string seeding matches CPython bit for bit."""

from __future__ import annotations

import hashlib
import random

import numba as nb
import numpy as np
import pytest

from sniff_env.vector.pyrandom import (
    KEY_WORDS,
    hand_key,
    mt_seed_group,
    randbelow,
    sample_range,
    seed_key,
    sha512,
    shuffle_range,
)


@nb.njit(cache=True)
def _draws(seeds: np.ndarray, hand: int, size: int, k: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    g = seeds.shape[0]
    keys = np.zeros((g, KEY_WORDS), np.uint32)
    key_len = np.zeros(g, np.int64)
    for i in range(g):
        key_len[i] = hand_key(seeds[i], hand, keys[i])
    mt = np.empty((g, 625), np.uint64)
    mt_seed_group(mt, keys, key_len, g)
    samples = np.zeros((g, 8), np.int64)
    orders = np.zeros((g, size), np.int64)
    below = np.zeros(g, np.int64)
    for i in range(g):
        sample_range(mt[i], size, k, samples[i])
        shuffle_range(mt[i], orders[i], size)
        below[i] = randbelow(mt[i], 3)
    return samples, orders, below


@pytest.mark.parametrize("size,k", [(28, 2), (28, 4), (55, 3), (91, 4), (28, 7)])
def test_sample_shuffle_randrange_match_python(size: int, k: int) -> None:
    seeds = np.array([0, 1, 7, -3, 10**15, 2**62 + 11, 123456789], np.int64)
    for hand in (0, 1, 17):
        samples, orders, below = _draws(seeds, hand, size, k)
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
    for seed in (0, 5, -42, 2**63 - 1, -(2**63) + 1):
        for hand in (0, 3, 999):
            n = seed_key(seed, hand, a)
            assert hand_key(seed, hand, b) == n
            assert a[:n].tolist() == b[:n].tolist()
