"""Training: the trainers a user runs (``python -m training.ppo``, ``training.imitation``,
``training.make_agent``, ``training.export``, ``training.curves``, ``training.preset_table``),
training through other libraries (:mod:`training.libraries`), the modules they share
(:mod:`training.lib`), studies and speed scripts. Run from the repository root."""

import os

# torch's OpenMP threads would spin between parallel regions and starve the engine's own threads
# on a small machine (--torch-threads 2 on two cores ran ten times slower): they sleep instead.
# Set here, on the package's import, so that it comes before any trainer imports torch.
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
