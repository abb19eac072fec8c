"""Speed scripts of the trainers and of RLlib (run with ``python -m training.benchmarks.NAME``); they
print figures and assert nothing."""
