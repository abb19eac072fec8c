"""Speed scripts of the trainers and of RLlib (run with ``python -m training.speed.NAME``); they
print figures and assert nothing."""
