"""The players compiled over the batched engine's arrays: greedy and the heuristic
(:mod:`.baselines`, choosing exactly as the reference players do), the determinized rollout
search (:mod:`.rollouts`, over its deals :mod:`.deals`, playouts :mod:`.playouts`, exact endgame
:mod:`.endgame` and random numbers :mod:`.splitmix`), the win-odds table its ``value=win`` reads
(:mod:`.win_odds`) and the Gymnasium vector env's in-kernel opponents (:mod:`.opponents`).
:mod:`sniff_env.players.registry` maps a player spec to them."""
