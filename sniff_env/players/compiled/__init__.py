"""The players compiled over the batched engine's arrays: greedy and the heuristic
(:mod:`.baselines`, choosing exactly as the reference players do), the determinized rollout
search (:mod:`.rollouts`) and the win-odds table its ``value=win`` reads (:mod:`.win_odds`).
:mod:`sniff_env.players.registry` maps a player spec to them."""
