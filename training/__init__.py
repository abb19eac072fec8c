"""Training scripts: self-play PPO in PyTorch and MaskablePPO with stable-baselines3."""
