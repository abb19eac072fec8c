"""TorchScript policy files in the training tools, loaded only when trusted.

A TorchScript file (the ``.pt`` export the trainers write to go on training from) is a program:
loading it with ``torch.jit.load`` and running it can read and write the user's files. The
players load ONNX only (:mod:`sniff_env.players.policy`); the training tools load TorchScript
through :func:`load_checked` alone, and only a file that is

* a shipped agent's: the sha256 of ``checkpoints/NAME.pt`` is recorded on its card
  (``torchscript_sha256`` in ``checkpoints/NAME.json``);
* one this machine's training tools wrote: :func:`record_trusted` (called by
  :func:`training.lib.network.export_module`) adds its sha256 to the user's trust list,
  :func:`trust_file` (``$SNIFF_TRUST_FILE``, else ``$XDG_DATA_HOME/sniff-env/trusted-torchscript.txt``,
  ``~/.local/share/sniff-env/trusted-torchscript.txt`` by default);
* or one the user vouches for, with the tools' ``--trust-code`` (:data:`TRUST_HELP`).

The bytes are read once (a regular file, at most :data:`MAX_BYTES`), hashed, and the same bytes
are loaded, so the file checked is the file run.
"""

from __future__ import annotations

import hashlib
import io
import json
import os
import re
import warnings
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from sniff_env.players.agents import agents_folder
from sniff_env.players.policy import (
    META_FILE,
    ZIP_MAGIC,
    PolicyError,
    PolicyNetwork,
    PolicyPlayer,
    check_meta,
    check_output,
    parse_meta,
    read_file,
)
from sniff_env.rules import Rules

MAX_BYTES = 512 * 2**20
"""The largest TorchScript file read (the shipped ones hold 1 to 3 MB)."""
TRUST_ENV = "SNIFF_TRUST_FILE"
CARD_KEY = "torchscript_sha256"
TRUST_HELP = ("load a TorchScript file that is neither a shipped agent's nor written by this machine's training "
              "tools; a TorchScript file is a program: it can read and write your files, so give this only for "
              "a file you trust")
_DIGEST = re.compile(r"[0-9a-f]{64}")


class UntrustedCodeError(PolicyError):
    """A TorchScript file that is not trusted (see the module) was given to a training tool."""


class TorchScriptNetwork(PolicyNetwork):
    """A policy network run by a TorchScript module (``module`` is what training reads)."""

    def __init__(self, module: Any) -> None:
        self.module = module

    def logits(self, obs: npt.NDArray[np.float32]) -> npt.NDArray[np.float32]:
        import torch

        with torch.no_grad():
            out = self.module(torch.from_numpy(np.ascontiguousarray(obs, dtype=np.float32)))
        return np.asarray(out.numpy(), dtype=np.float32)


def trust_file() -> Path:
    """The user's list of trusted TorchScript files (see the module)."""
    if os.environ.get(TRUST_ENV):
        return Path(os.environ[TRUST_ENV])
    data_home = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(data_home) / "sniff-env" / "trusted-torchscript.txt"


def digest(data: bytes) -> str:
    """The sha256 of ``data``, in hex."""
    return hashlib.sha256(data).hexdigest()


def shipped_digests() -> set[str]:
    """The sha256 of every shipped agent's TorchScript file, as its card records it."""
    folder = agents_folder()
    found: set[str] = set()
    for card in sorted(folder.glob("*.json")) if folder is not None else ():
        try:
            value = json.loads(card.read_text(encoding="utf-8")).get(CARD_KEY)
        except (OSError, UnicodeDecodeError, json.JSONDecodeError, AttributeError):
            continue  # the agents' own reader reports a bad card
        if isinstance(value, str) and _DIGEST.fullmatch(value):
            found.add(value)
    return found


def trusted_digests() -> set[str]:
    """The sha256 of every file in the user's trust list (none when it does not exist)."""
    path = trust_file()
    if not path.exists():
        return set()
    text = read_file(path, 64 * 2**20, PolicyError, "trust list").decode("utf-8", "replace")
    return {line.split()[0] for line in text.splitlines() if line.split() and _DIGEST.fullmatch(line.split()[0])}


def record_trusted(path: str | Path) -> str:
    """Add the sha256 of the file ``path`` (written by a training tool) to the trust list; the digest."""
    value = digest(Path(path).read_bytes())
    target = trust_file()
    if value not in trusted_digests():
        target.parent.mkdir(parents=True, exist_ok=True)
        with open(target, "a", encoding="utf-8") as out:
            out.write(f"{value}  {Path(path).resolve()}\n")
    return value


def refusal(path: str | Path) -> str:
    """Why an untrusted TorchScript file is not loaded, in one line naming ``--trust-code``."""
    return (f"{str(path)!r} is a TorchScript file that is neither a shipped agent's nor written by this machine's "
            f"training tools; a TorchScript file is a program that can read and write your files: give "
            f"--trust-code to load it if you trust it")


def read_torchscript(path: str | Path, trust_code: bool = False) -> tuple[TorchScriptNetwork, dict[str, Any]]:
    """The network and metadata of a TorchScript policy file, if trusted (see the module);
    :class:`UntrustedCodeError` if not, :class:`PolicyError` if it cannot be read."""
    data = read_file(path, MAX_BYTES)
    if not data.startswith(ZIP_MAGIC):
        raise PolicyError(f"{str(path)!r} is an ONNX policy, or no policy file; training tools need the TorchScript "
                          f"export (.pt)")
    if not trust_code and digest(data) not in shipped_digests() | trusted_digests():
        raise UntrustedCodeError(refusal(path))
    import torch

    extra = {META_FILE: ""}
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DeprecationWarning)  # reading the old format is deliberate
            module = torch.jit.load(io.BytesIO(data), map_location="cpu", _extra_files=extra)  # type: ignore[no-untyped-call]
    except Exception as exc:  # torch raises RuntimeError and others for a bad archive
        raise PolicyError(f"{str(path)!r} is not a readable sniff TorchScript policy file: {exc}") from exc
    if not extra[META_FILE]:
        raise PolicyError(f"{str(path)!r} has no {META_FILE}: it was not exported as a sniff policy")
    module.eval()
    return TorchScriptNetwork(module), parse_meta(path, extra[META_FILE])


def load_checked(path: str | Path, rules: Rules | None = None,
                 trust_code: bool = False) -> tuple[Any, dict[str, Any], Rules]:
    """The torch module, metadata and rules of a trusted TorchScript policy file (see the
    module), checked as the players check a policy (:func:`sniff_env.players.policy.load_network`)
    against ``rules`` (default: its own); :class:`PolicyError` (a ``ValueError``) otherwise."""
    network, meta = read_torchscript(path, trust_code)
    rules = check_meta(path, meta, rules)
    check_output(path, network, rules)
    return network.module, meta, rules


def load_player(path: str | Path, rules: Rules | None = None, trust_code: bool = False,
                name: str | None = None) -> Any:
    """A :class:`~sniff_env.players.policy.PolicyPlayer` of a trusted TorchScript policy file
    (see :func:`load_checked`), for the training tools and their tests."""
    network, meta = read_torchscript(path, trust_code)
    rules = check_meta(path, meta, rules)
    check_output(path, network, rules)
    return PolicyPlayer(network, meta, rules, name or Path(path).stem)
