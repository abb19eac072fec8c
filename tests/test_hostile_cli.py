"""Hostile input at the borders: each row is a command line, a player spec or a rules call, and
the clear message it must get. No traceback, no hang, exit status 2, nothing played or written."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hostile import deadline, spinning_policy  # noqa: F401  (deadline: a time limit per test: a hang fails it)

from sniff_env import Rules, RulesError, make_rules
from sniff_env.cli import main
from sniff_env.evaluation import run_tournament
from sniff_env.players import BUILTIN, PlayerSpecError, load, spec_options
from sniff_env.players.guided import GuidedPlayer
from sniff_env.players.heuristic import HeuristicPlayer, Weights
from sniff_env.players.rollouts import RolloutPlayer
from sniff_env.players.search import SearchPlayer
from sniff_env.workers import WorkerLost, max_workers, worker_pool

INT64_MAX = "9223372036854775807"

CLI_ROWS: list[tuple[list[str], list[str]]] = [
    # player specs: unknown options name the options that exist; budgets must be finite and positive
    (["eval", "random", "heuristic:nonsense=1"], ["no option 'nonsense'", "seed, name, reply", "counter"]),
    (["eval", "random", "search:depth=3"], ["no option 'depth'", "simulations", "budget_s"]),
    (["eval", "random", "search:budget_s=NaN"], ["budget_s must be a finite number of seconds above 0", "nan"]),
    (["eval", "random", "search:budget_s=inf"], ["budget_s must be a finite number", "inf"]),
    (["eval", "random", "search:budget_s=-1"], ["budget_s must be a finite number of seconds above 0"]),
    (["eval", "random", "search:budget_s=0"], ["budget_s must be a finite number of seconds above 0"]),
    (["eval", "random", "search:budget_s=soon"], ["budget_s=soon", "must be a number"]),
    (["eval", "random", "search:simulations=1e400"], ["simulations=1e400", "must be a whole number"]),
    (["eval", "random", "search:simulations=2.5"], ["simulations=2.5", "must be a whole number"]),
    (["eval", "random", "search:simulations=true"], ["simulations=true", "must be a whole number"]),
    (["eval", "random", "search:simulations=0"], ["simulations must be a whole number from 1"]),
    (["eval", "random", "search:simulations=1,simulations=2"], ["'simulations' is given twice"]),
    (["eval", "random", "rollouts:samples=-4"], ["samples must be a whole number from 1"]),
    (["eval", "random", "heuristic:reply=NaN"], ["heuristic weight reply must be a finite number"]),
    (["eval", "random", "greedy:tiebreak=best"], ["tiebreak must be one of lowest, heuristic"]),
    # rules: the player count has its own flag and a clear range; integers fit the compiled engine
    (["eval", "random", "greedy", "--rule", "num_players=3"], ["--rule num_players=3", "--players 3"]),
    (["demo", "--rule", "num_players=3"], ["--rule num_players=3", "--players"]),
    (["rules", "--players", "1"], ["num_players=1 is not allowed", "2, 3 or 4", "up to 8"]),
    (["rules", "--players", "0"], ["num_players=0 is not allowed", "2, 3 or 4"]),
    (["rules", "--players", "9"], ["num_players=9 is not allowed", "2, 3 or 4"]),
    (["rules", "--players", "5"], ["preset 'sniff' has no hand_size or boneyard_reserve for 5 players", "override"]),
    (["rules", "--players", "two"], ["--players", "invalid int value: 'two'"]),
    (["rules", "--rule", "target=9223372036854775808"], ["target must be at least 1 and at most", INT64_MAX]),
    # counts and seeds: nothing silently replaced by a default or run another way
    (["eval", "random", "greedy", "--max-hands", "0"], ["--max-hands: 0 is out of range", "1 or more"]),
    (["eval", "random", "greedy", "--workers", "0"], ["--workers: 0 is out of range", "1 or more"]),
    (["eval", "random", "greedy", "--workers", "-3"], ["--workers: -3 is out of range", "1 or more"]),
    # worker processes: a few per core at most, refused before any is started
    (["eval", "random", "greedy", "--workers", "1000000"], ["--workers: 1000000 is out of range",
                                                            f"at most {max_workers()}", "per core"]),
    (["eval", "random", "greedy", "--workers", str(max_workers() + 1)], [f"at most {max_workers()}"]),
    (["benchmark", "run", "heuristic:name=mine", "--task", "sniff-2p-v0", "--workers", "1000000"],
     ["--workers: 1000000 is out of range", f"at most {max_workers()}"]),
    (["eval", "random", "search:budget_s=1e300"], ["budget_s must be a finite number of seconds above 0 and at most 600"]),
    (["eval", "random", "rollouts:samples=9223372036854775807"], ["samples must be a whole number from 1 to 65536"]),
    (["eval", "random", "greedy", "--games", "0"], ["--games: 0 is out of range", "1 or more"]),
    (["eval", "random", "greedy", "--games", "many"], ["--games: 'many' is not a whole number"]),
    (["eval", "random", "greedy", "--seed", "-1"], ["--seed: -1 is out of range", f"0 to {INT64_MAX}"]),
    (["demo", "--hands", "0"], ["--hands: 0 is out of range"]),
    (["demo", "--seed", "9223372036854775808"], ["--seed", "out of range"]),
    (["bench", "env", "--steps", "-5"], ["--steps: -5 is out of range", "1 or more"]),
    (["bench", "env", "--repeats", "0"], ["--repeats: 0 is out of range"]),
    (["bench", "env", "--players", "9"], ["num_players=9 is not allowed"]),
    (["bench", "engine", "--games", "0"], ["--games: 0 is out of range"]),
    (["bench", "engine", "--players", "1"], ["num_players=1 is not allowed"]),
    (["bench", "players", "--seconds", "nan"], ["--seconds: nan is out of range", "finite number above 0"]),
    (["bench", "players", "--batch", "-1"], ["--batch: -1 is out of range"]),
    (["bench", "vector", "--batch", "64", "0"], ["--batch: 0 is out of range"]),
    (["bench", "vector", "--threads", "0"], ["--threads: 0 is out of range"]),
    (["bench", "vector", "--seconds", "inf"], ["--seconds: inf is out of range"]),
    # destinations, checked before anything is played
    (["eval", "random", "greedy", "--out", "{file}/results"], ["is a file, not a folder"]),
    (["eval", "random", "greedy", "--out", "{dir}/"], ["names a folder", "file name"]),
    (["eval", "random", "greedy", "--out", "{dir}/old"], ["old.json already exists", "--force"]),
    (["eval", "random", "greedy", "--save-games", "{file}"], ["is a file, not a folder"]),
    (["eval", "random", "greedy", "--save-games", "{file}/games"], ["is a file, not a folder"]),
    (["eval", "random", "greedy", "--save-games", "{logs}"], ["already holds tournament game logs", "--force"]),
    # files to read: regular files only, refused before a byte is read (a device or a pipe never ends)
    (["replay", "/dev/zero"], ["cannot read the game log '/dev/zero': it is a character device, not a regular"]),
    (["replay", "{dir}"], ["it is a folder, not a regular file"]),
    (["replay", "{fifo}"], ["it is a pipe, not a regular file"]),
    (["play", "--resume", "/dev/zero"], ["cannot read the game log '/dev/zero': it is a character device"]),
    (["play", "--resume", "{fifo}"], ["it is a pipe, not a regular file"]),
    (["benchmark", "table", "/dev/zero"], ["cannot read the benchmark report '/dev/zero': it is a character device"]),
    (["benchmark", "table", "{fifo}"], ["cannot read the benchmark report", "it is a pipe, not a regular file"]),
    # policy files: data, never code; checked before onnxruntime reads them
    (["eval", "{spin}", "random"], ["uses the operator 'Loop'", "the operators allowed are: Add, Cast"]),
    (["eval", "{program}", "random"], ["is a TorchScript file", "TorchScript files are programs",
                                        "python -m training.export", "--trust-code"]),
    (["eval", "random", "guided:agent={program}"], ["TorchScript files are programs", "--trust-code"]),
    (["eval", "{fifo}", "random"], ["cannot read the policy file", "it is a pipe, not a regular file"]),
    (["eval", "{big}", "random"], ["cannot read the policy file", "more than the 67,108,864 it may hold"]),
]


def run_cli(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    """``sniff argv`` in this process: exit status, stdout, stderr (argparse errors exit)."""
    try:
        code = main(argv)
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) else 1
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def places(tmp_path: Path) -> dict[str, str]:
    """A regular file, a folder holding ``old.json``, a folder holding a tournament game log, and a
    named pipe."""
    (tmp_path / "file").write_text("not a folder")
    (tmp_path / "dir").mkdir()
    (tmp_path / "dir" / "old.json").write_text("{}")
    (tmp_path / "logs").mkdir()
    (tmp_path / "logs" / "pair0-1-deal00000-seating0.json").write_text("{}")
    os.mkfifo(tmp_path / "fifo")  # no writer ever comes: reading it would wait for ever
    (tmp_path / "program.onnx").write_bytes(b"PK\x03\x04 a TorchScript archive (a program) begins so")
    with open(tmp_path / "big.onnx", "wb") as big:
        big.truncate(64 * 2**20 + 1)  # over the policy file cap, sparse
    return {"file": str(tmp_path / "file"), "dir": str(tmp_path / "dir"), "logs": str(tmp_path / "logs"),
            "fifo": str(tmp_path / "fifo"), "spin": str(spinning_policy(tmp_path / "spin.onnx")),
            "program": str(tmp_path / "program.onnx"), "big": str(tmp_path / "big.onnx")}


@pytest.mark.parametrize(("argv", "words"), CLI_ROWS, ids=[" ".join(a) for a, _ in CLI_ROWS])
def test_hostile_command_lines_get_one_clear_message(
    argv: list[str], words: list[str], places: dict[str, str], capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def no_play(*args: Any, **kwargs: Any) -> None:
        raise AssertionError("no game may be played")

    monkeypatch.setattr("sniff_env.evaluation.tournament.play_deal", no_play)
    before = {p: Path(p).read_bytes() if Path(p).is_file() else None for p in places.values()}
    code, out, err = run_cli([a.format(**places) for a in argv], capsys)
    assert code == 2, (out, err)
    assert "Traceback" not in err + out
    last = err.strip().splitlines()[-1]
    assert last.startswith("sniff"), err
    for word in words:
        assert word in last, last
    assert {p: Path(p).read_bytes() if Path(p).is_file() else None for p in places.values()} == before
    assert sorted(Path(places["logs"]).iterdir()) == [Path(places["logs"]) / "pair0-1-deal00000-seating0.json"]


SPEC_ROWS: list[tuple[str, list[str]]] = [
    ("random:temperature=2", ["'random' has no option 'temperature'", "seed, name"]),
    ("greedy:tiebreak=1", ["tiebreak must be one of lowest, heuristic"]),
    ("search:budget_s=nan", ["budget_s must be a finite number"]),
    ("search:budget_s=Infinity", ["budget_s must be a finite number"]),
    ("search:simulations=-2", ["simulations must be a whole number from 1"]),
    ("search:simulations=9223372036854775808", ["simulations must be a whole number from 1 to 1000000"]),
    # every number is bounded: a budget that would never end is refused, not played
    ("search:budget_s=1e300", ["budget_s must be a finite number of seconds above 0 and at most 600", "1e+300"]),
    ("search:budget_s=601", ["at most 600"]),
    ("search:simulations=1000001", ["simulations must be a whole number from 1 to 1000000"]),
    ("rollouts:samples=9223372036854775807", ["samples must be a whole number from 1 to 65536", INT64_MAX]),
    ("rollouts:samples=65537", ["samples must be a whole number from 1 to 65536"]),
    ("rollouts:playout_reply=1e300", ["heuristic weight reply must be a finite number from -1000000 to 1000000"]),
    ("rollouts:depth=3", ["depth must be one of 1, 2"]),
    ("rollouts:infer=11", ["infer must be a number from 0"]),
    ("heuristic:reply=-1e7", ["heuristic weight reply must be a finite number from -1000000 to 1000000"]),
    ("guided:samples=65537", ["samples must be a whole number from 1 to 65536"]),
    ("guided:prior=1e300", ["prior must be a finite number of 0 or more, at most 1000000"]),
    ("guided:top=2,extra=1000000", ["extra at most 65536", "extra=1000000"]),
    ("guided:top=100000,extra=4", ["top at most 1024", "top=100000"]),
    ("search:budget_s=true", ["budget_s=true", "must be a number"]),
    ("rollouts:samples=1.5", ["samples=1.5", "must be a whole number"]),
    ("rollouts:seed=x", ["seed=x", "must be a whole number"]),
    ("heuristic:reply=1,reply=2", ["given twice"]),
    ("heuristic:weights=1", ["no option 'weights'"]),  # a Weights object cannot come from a spec
    ("heuristic:block", ["is not KEY=VALUE"]),
]


@pytest.mark.parametrize(("spec", "words"), SPEC_ROWS, ids=[s for s, _ in SPEC_ROWS])
def test_hostile_player_specs_are_refused_at_once(spec: str, words: list[str]) -> None:
    with pytest.raises(PlayerSpecError) as info:
        load(spec)
    for word in words:
        assert word in str(info.value)


def test_spec_options_come_from_the_constructors() -> None:
    import inspect

    for base, (module, cls_name) in BUILTIN.items():
        cls = getattr(__import__(module, fromlist=[cls_name]), cls_name)
        params = inspect.signature(cls.__init__).parameters.values()
        names = [p.name for p in params if p.kind is not p.VAR_KEYWORD and p.name not in ("self", "weights")]
        assert set(names) <= set(spec_options(cls)), base
    assert set(Weights.field_names()) <= set(spec_options(HeuristicPlayer))
    playout = {f"playout_{n}" for n in Weights.field_names() if n != "counter"}
    assert playout <= set(spec_options(RolloutPlayer)) and playout <= set(spec_options(GuidedPlayer))
    assert spec_options(SearchPlayer)["budget_s"] == (float, type(None))
    assert load("search:name=123").name == "123"  # text options keep text that looks like a number
    assert load("search:budget_s=1").budget_s == 1.0  # type: ignore[attr-defined]


RULES_ROWS: list[tuple[Callable[[], Any], list[str]]] = [
    (lambda: Rules(target=2**63), ["target must be at least 1 and at most", INT64_MAX]),
    (lambda: make_rules("sniff", 2, target=10**30), ["at most", INT64_MAX]),
    (lambda: Rules(num_players=1), ["num_players=1 is not allowed", "2, 3 or 4"]),
    (lambda: Rules(num_players=9, hand_size=1), ["num_players=9 is not allowed", "up to 8"]),
    (lambda: Rules(num_players="2"), ["num_players must be a whole number", "got '2' (str)"]),  # type: ignore[arg-type]
    (lambda: Rules(num_players=5), ["5 players have no default hand_size", "2 players: 7", "give hand_size"]),
    (lambda: make_rules("sniff", 0), ["num_players=0 is not allowed", "2, 3 or 4"]),
    (lambda: make_rules("sniff", 9), ["num_players=9 is not allowed"]),
    (lambda: make_rules("sniff", "2"), ["num_players must be a whole number", "2, 3 or 4", "got '2' (str)"]),  # type: ignore[arg-type]
    (lambda: make_rules("sniff", True), ["num_players must be a whole number", "got True (bool)"]),  # type: ignore[arg-type]
    (lambda: make_rules("muggins", 6), ["has no hand_size or target for 6 players", "only for 2, 3, 4"]),
]


@pytest.mark.parametrize(("make", "words"), RULES_ROWS)
def test_hostile_rules_say_what_is_allowed(make: Callable[[], Any], words: list[str]) -> None:
    with pytest.raises(RulesError) as info:
        make()
    for word in words:
        assert word in str(info.value)


@pytest.mark.parametrize("bad", [{"workers": 0}, {"workers": -3}, {"max_hands": 0}, {"games_per_pair": 0},
                                 {"max_hands": True}, {"workers": 10**6}])
def test_tournament_refuses_nonsense_counts(bad: dict[str, Any], monkeypatch: pytest.MonkeyPatch) -> None:
    def no_pool(*args: Any, **kwargs: Any) -> None:
        raise AssertionError("no worker may be started")

    monkeypatch.setattr("concurrent.futures.ProcessPoolExecutor.__init__", no_pool)
    kwargs: dict[str, Any] = {"games_per_pair": 2, **bad}
    with pytest.raises(ValueError, match=f"{next(iter(bad))} must be a whole number, 1 or more"):
        run_tournament(["random", "greedy"], make_rules("sniff", 2), **kwargs)


def _sleep_forever() -> None:
    time.sleep(600)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    try:  # a zombie (ended, not yet reaped) counts as gone
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return True


def test_worker_pool_ends_its_workers_on_sigterm() -> None:
    if not hasattr(signal, "SIGALRM") or not os.path.isdir("/proc"):
        pytest.skip("POSIX with /proc only")
    before = signal.getsignal(signal.SIGTERM)
    with pytest.raises(SystemExit), worker_pool(2) as pool:
        for _ in range(2):  # a busy worker each (the workers start with the tasks)
            pool.apply_async(_sleep_forever)
        pids = pool.pids
        assert len(pids) == 2
        os.kill(os.getpid(), signal.SIGTERM)  # what `kill` sends: the pool's block ends, its workers with it
        time.sleep(5)
        raise AssertionError("SIGTERM did not end the block")
    assert signal.getsignal(signal.SIGTERM) == before
    _gone(pids)


def _gone(pids: list[int]) -> None:
    until = time.monotonic() + 10
    while any(_alive(p) for p in pids) and time.monotonic() < until:
        time.sleep(0.05)
    assert not any(_alive(p) for p in pids), pids


def _die_at_three(x: int) -> int:
    """A task whose worker is killed (as the kernel's out-of-memory killer or a crash would end it)."""
    if x == 3:
        os.kill(os.getpid(), signal.SIGKILL)
    return x


def test_a_worker_that_dies_fails_the_pool_instead_of_hanging() -> None:
    """multiprocessing's imap waits for ever for a task whose worker died; the pool raises instead."""
    start = time.monotonic()
    with pytest.raises(WorkerLost, match="worker process ended before it finished"), worker_pool(2) as pool:
        list(pool.imap(_die_at_three, range(8), chunksize=1))
    with pytest.raises(WorkerLost), worker_pool(2) as pool:
        pool.map(_die_at_three, range(8))
    assert time.monotonic() - start < 30
    with worker_pool(2) as pool:  # a pool whose workers live gives every result, in order
        assert pool.map(abs, [-1, -2, 3]) == [1, 2, 3] and list(pool.imap(abs, range(-3, 0))) == [3, 2, 1]


def _killed_deal(_task: Any) -> Any:
    os.kill(os.getpid(), signal.SIGKILL)


def test_eval_reports_a_lost_worker(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    """A tournament whose worker dies ends with one line and status 1, not a hang."""
    from sniff_env.evaluation import tournament

    monkeypatch.setattr(tournament, "play_deal", _killed_deal)  # the forked workers inherit it
    code, _, err = run_cli(["eval", "random", "search:simulations=2", "--games", "4", "--workers", "2",
                            "--no-progress"], capsys)
    assert code == 1 and "worker process ended before it finished its task" in err, err


KILLED_PARENT = """
import time
from sniff_env.workers import worker_pool
with worker_pool(2) as pool:
    busy = [pool.apply_async(time.sleep, (600,)) for _ in range(2)]  # busy workers read no more work
    time.sleep(0.5)
    print(" ".join(str(p) for p in pool.pids), flush=True)
    time.sleep(600)
"""


def test_workers_end_when_their_parent_is_killed() -> None:
    if not sys.platform.startswith("linux"):
        pytest.skip("Linux only (the parent-death signal)")
    parent = subprocess.Popen([sys.executable, "-c", KILLED_PARENT], stdout=subprocess.PIPE, text=True)
    try:
        assert parent.stdout is not None
        pids = [int(p) for p in parent.stdout.readline().split()]
        assert len(pids) == 2
    finally:
        parent.kill()  # SIGKILL: no cleanup runs in the parent
        parent.wait()
    _gone(pids)
    assert not any(os.path.exists(f"/proc/{p}") and _alive(p) for p in pids)


def test_out_writes_only_with_force_and_records_the_command(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "new" / "deeper" / "run"
    argv = ["eval", "random", "greedy", "--games", "2", "--max-hands", "1", "--no-progress", "--out", str(out)]
    assert run_cli(argv, capsys)[0] == 0
    data = json.loads(Path(f"{out}.json").read_text())
    assert data["command"].split()[:4] == ["sniff", "eval", "random", "greedy"] and data["max_hands"] == 1
    code, _, err = run_cli(argv, capsys)
    assert code == 2 and "already exists" in err
    assert run_cli([*argv, "--seed", "4", "--force"], capsys)[0] == 0
    assert json.loads(Path(f"{out}.json").read_text())["seed"] == 4
