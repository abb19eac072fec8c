"""``render_mode="rgb_array"`` on every environment: the table as an RGB picture, recorded by
Gymnasium's ``RecordVideo``."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import gymnasium
import numpy as np
import pytest

import sniff_env
from sniff_env import sniff_v0
from sniff_env.envs.drawing import SIZE, layout_geometry, table_frame
from sniff_env.envs.single_agent import SniffSingleAgentEnv
from sniff_env.game import Phase, new_game
from sniff_env.presets import make_rules

SHAPE = (SIZE[1], SIZE[0], 3)


def _is_frame(frame: object) -> bool:
    return isinstance(frame, np.ndarray) and frame.shape == SHAPE and frame.dtype == np.uint8


def test_every_env_renders_rgb_frames_and_declares_its_fps() -> None:
    from sniff_env.envs.gym_vector import SniffGymVectorEnv

    aec = sniff_env.env("muggins-sniff", 3, render_mode="rgb_array")
    aec.reset(seed=1)
    before = aec.render()
    for _ in range(4):
        aec.step(int(np.flatnonzero(aec.observe(aec.agent_selection)["action_mask"])[0]))
    after = aec.render()
    assert _is_frame(before) and _is_frame(after) and not np.array_equal(before, after)
    parallel = sniff_v0.parallel_env(render_mode="rgb_array")
    parallel.reset(seed=1)
    single = gymnasium.make("sniff_env/Sniff-v0", render_mode="rgb_array", opponents="random")
    single.reset(seed=1)
    vector = gymnasium.make_vec("sniff_env/Sniff-v0", 3, vectorization_mode="vector_entry_point",
                                render_mode="rgb_array", threads=1)
    vector.reset(seed=1)
    frames = vector.render()
    assert _is_frame(parallel.render()) and _is_frame(single.render())
    assert len(frames) == 3 and all(_is_frame(f) for f in frames)
    for metadata in (aec.metadata, parallel.metadata, single.metadata, vector.metadata, SniffGymVectorEnv.metadata):
        assert "rgb_array" in metadata["render_modes"] and metadata["render_fps"] > 0
    vector.close()


@pytest.mark.parametrize(("preset", "n"), [("sniff", 2), ("sniff-english", 3), ("muggins-sniff", 4)])
def test_no_two_tiles_of_a_drawn_layout_overlap(preset: str, n: int) -> None:
    game = new_game(make_rules(preset, n), seed=4)
    rng = np.random.default_rng(4)
    for _ in range(120):
        if game.phase is Phase.GAME_OVER:
            break
        if game.phase is Phase.HAND_OVER:
            game.start_hand()
        legal = game.legal_actions()
        game.step(legal[int(rng.integers(len(legal)))])
        boxes = [(p.x, p.y, p.x + (1 if p.vertical else 2), p.y + (2 if p.vertical else 1)) for p in layout_geometry(game)]
        assert len(boxes) == len(game.plays)
        for i, a in enumerate(boxes):
            for b in boxes[i + 1:]:
                assert min(a[2], b[2]) - max(a[0], b[0]) <= 1e-9 or min(a[3], b[3]) - max(a[1], b[1]) <= 1e-9
    assert _is_frame(table_frame(game))


@pytest.mark.skipif(importlib.util.find_spec("moviepy") is None, reason="moviepy is not installed (the integrations extra)")
def test_record_video_writes_an_episode(tmp_path: Path) -> None:
    env = gymnasium.make("sniff_env/Sniff-v0", render_mode="rgb_array", opponents="random", episode="hand")
    env = gymnasium.wrappers.RecordVideo(env, str(tmp_path / "videos"), episode_trigger=lambda episode: True,
                                         name_prefix="sniff-2p", disable_logger=True)
    _, info = env.reset(seed=0)
    done = False
    while not done:
        _, _, terminated, truncated, info = env.step(int(np.flatnonzero(info["action_mask"])[0]))
        done = terminated or truncated
    env.close()
    videos = sorted((tmp_path / "videos").glob("sniff-2p-episode-0.mp4"))
    assert videos and videos[0].stat().st_size > 1000


def test_a_single_agent_env_draws_its_first_and_last_position() -> None:
    env = SniffSingleAgentEnv(render_mode="rgb_array", episode="hand", opponents="greedy")
    env.reset(seed=2)
    first = env.render()
    done = False
    while not done:
        _, _, terminated, truncated, _ = env.step(int(np.flatnonzero(env.action_masks())[0]))
        done = terminated or truncated
    assert _is_frame(first) and _is_frame(env.render())
