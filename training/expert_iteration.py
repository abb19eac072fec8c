"""Deprecated: expert iteration did not help, so it is a study now,
:mod:`training.studies.expert_iteration`; ``python -m training.expert_iteration`` runs it, and
its names are re-exported here, for one more release."""

from __future__ import annotations

import warnings

from training.lib.config import run_script
from training.studies.expert_iteration import Args, improved, main, measure

__all__ = ["Args", "improved", "main", "measure"]

warnings.warn("training.expert_iteration is deprecated and goes in the next release: run "
              "python -m training.studies.expert_iteration (import training.studies.expert_iteration)",
              DeprecationWarning, stacklevel=1 if __name__ == "__main__" else 2)

if __name__ == "__main__":
    run_script(main)
