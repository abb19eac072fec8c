"""Training: the trainers a user runs (``python -m training.ppo``, ``training.imitation``,
``training.make_agent``, ``training.export``, ``training.curves``, ``training.preset_table``),
training through other libraries (:mod:`training.libraries`), the modules they share
(:mod:`training.lib`), studies and speed scripts. Run from the repository root."""
