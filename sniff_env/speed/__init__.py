"""Speed scripts: how fast the rules, the batched engine, the environments, the players, the
compile and the web table run (``sniff speed NAME``). They print figures and assert nothing; the
rating tasks are the benchmarks (:mod:`sniff_env.evaluation.benchmark`). The trainers' speed
scripts are in :mod:`training.speed`."""
