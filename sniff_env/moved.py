"""Old module names kept for one release: a module that moved leaves behind a two-line module
that calls :func:`forward`, which warns (``DeprecationWarning``) and hands out the new module
under the old name, or runs the new one's ``main`` when the old name is run with ``python -m``."""

from __future__ import annotations

import importlib
import sys
import warnings


def warn(old: str, new: str, how: str = "import", stacklevel: int = 3) -> None:
    """The warning that the module ``old`` is ``new`` now."""
    warnings.warn(f"{old} is deprecated and goes in the next release: {how} {new}", DeprecationWarning,
                  stacklevel=stacklevel)


def forward(old: str, new: str, run_as: str) -> None:
    """Stand the module ``new`` in for ``old``; ``run_as`` is the old module's ``__name__``
    (``"__main__"`` when it is run as a script, whose ``main()`` is then run). An old package
    calls :func:`warn` only, so that its old submodules stay its own."""
    main = run_as == "__main__"  # the old module is the script: the warning names its frame, which shows it
    warn(old, new, "run python -m" if main else "import", stacklevel=3 if main else 4)
    module = importlib.import_module(new)
    if main:
        sys.exit(module.main())
    sys.modules[old] = module
