"""Training through other RL libraries' own entry points: stable-baselines3 / sb3-contrib
(MaskablePPO), Tianshou (DQN) and RLlib (PPO, one game per env or the batched engine)."""
