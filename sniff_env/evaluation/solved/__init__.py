"""Small variants of Sniff solved exactly: the whole tree of one hand, CFR+ equilibria, best
responses, NashConv and exact results of any two players.

:func:`~sniff_env.evaluation.solved.tree.build_tree` walks every deal and every line of play with
the reference engine; :class:`~sniff_env.evaluation.solved.solver.Solver` runs the compiled passes
over it; :func:`~sniff_env.evaluation.solved.policies.profile_of` turns a player into a strategy
there; :mod:`~sniff_env.evaluation.solved.ladder` holds the rungs and their study.
"""
