"""The environment ids of Gymnasium's and PettingZoo's registries, registered on ``import sniff_env``.

==========================  ===================================================================
``gymnasium.make``          ``"sniff_env/Sniff-v0"``: :class:`~sniff_env.envs.single_agent.SniffSingleAgentEnv`
``gymnasium.make_vec``      ``"sniff_env/Sniff-v0"`` (``vectorization_mode="vector_entry_point"``, the
                            default): :class:`~sniff_env.envs.gym_vector.SniffGymVectorEnv` in
                            ``gymnasium.make``'s layout (:func:`~sniff_env.envs.gym_vector.registered_vector_env`)
``pettingzoo.make``         ``("aec", "sniff_env/sniff_v0")``: :func:`sniff_env.sniff_v0.env`;
                            ``("parallel", "sniff_env/sniff_v0")``: :func:`sniff_env.sniff_v0.parallel_env`
==========================  ===================================================================

Importing ``sniff_env`` must not import either library (the rules core needs neither), so each
registration runs when its library has been imported: at once if it already is, else right
after its import finishes. A library that is not installed is left alone.
"""

from __future__ import annotations

import importlib.abc
import importlib.machinery
import importlib.util
import sys
from collections.abc import Callable, Sequence
from types import ModuleType
from typing import Any

GYM_ID = "sniff_env/Sniff-v0"
PETTINGZOO_ID = "sniff_env/sniff_v0"
GYM_DEFAULTS: dict[str, Any] = {"opponents": "heuristic"}
"""The registered Gymnasium id's default keywords (both entry points share them)."""


def register_gymnasium() -> None:
    """Register :data:`GYM_ID` (a no-op if it is there already)."""
    import gymnasium

    if GYM_ID not in gymnasium.registry:
        gymnasium.register(
            id=GYM_ID,
            entry_point="sniff_env.envs.single_agent:SniffSingleAgentEnv",
            vector_entry_point="sniff_env.envs.gym_vector:registered_vector_env",
            kwargs=dict(GYM_DEFAULTS),
        )


def register_pettingzoo() -> None:
    """Register :data:`PETTINGZOO_ID` in PettingZoo's AEC and parallel registries (a no-op where
    it is there already)."""
    import pettingzoo  # type: ignore[import-untyped]

    if "sniff_env/sniff-v0" not in pettingzoo.aec_registry:  # PettingZoo keeps ids as "name-v0"
        pettingzoo.register("aec", PETTINGZOO_ID, entry_point="sniff_env.sniff_v0:env")
    if "sniff_env/sniff-v0" not in pettingzoo.parallel_registry:
        pettingzoo.register("parallel", PETTINGZOO_ID, entry_point="sniff_env.sniff_v0:parallel_env")


REGISTRARS: dict[str, Callable[[], None]] = {"gymnasium": register_gymnasium, "pettingzoo": register_pettingzoo}
"""The registration of each library, by the name of its top-level module."""


def register_all() -> None:
    """Register with every installed library now, or as soon as it is imported."""
    pending = {}
    for name, registrar in REGISTRARS.items():
        if name in sys.modules:
            registrar()
        elif importlib.util.find_spec(name) is not None:
            pending[name] = registrar
    if pending and not any(isinstance(f, _AfterImport) for f in sys.meta_path):
        sys.meta_path.insert(0, _AfterImport(pending))


class _AfterImport(importlib.abc.MetaPathFinder):
    """Runs a registrar once its library's top-level module has been imported (executed, not
    only looked up: another library may ask ``importlib.util.find_spec`` whether it is there),
    then leaves once every registrar has run."""

    def __init__(self, pending: dict[str, Callable[[], None]]) -> None:
        self._pending = pending

    def find_spec(
        self, fullname: str, path: Sequence[str] | None, target: ModuleType | None = None
    ) -> importlib.machinery.ModuleSpec | None:
        if fullname not in self._pending:
            return None
        spec = importlib.machinery.PathFinder.find_spec(fullname, path, target)
        if spec is None or spec.loader is None:
            return spec
        spec.loader = _RegisteringLoader(spec.loader, lambda: self._imported(fullname))
        return spec

    def _imported(self, name: str) -> None:
        registrar = self._pending.pop(name, None)
        if not self._pending and self in sys.meta_path:
            sys.meta_path.remove(self)
        if registrar is not None:
            registrar()


class _RegisteringLoader(importlib.abc.Loader):
    """The library's own loader, and the registrar after it has run the module."""

    def __init__(self, loader: Any, registrar: Callable[[], None]) -> None:
        self._loader, self._registrar = loader, registrar

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> ModuleType | None:
        module: ModuleType | None = self._loader.create_module(spec)
        return module

    def exec_module(self, module: ModuleType) -> None:
        self._loader.exec_module(module)
        self._registrar()

    def __getattr__(self, name: str) -> Any:
        return getattr(self._loader, name)
