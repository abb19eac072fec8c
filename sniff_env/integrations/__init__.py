"""Bridges to other libraries, each optional and imported by module (nothing here is imported
by ``import sniff_env``):

* ``sniff_env.integrations.openspiel``: registers the OpenSpiel game ``python_sniff`` (needs
  ``open-spiel``; Shimmy's ``OpenSpielCompatibilityV0`` wraps it as a PettingZoo env).
* ``sniff_env.integrations.rllib``: RLlib's multi-agent env over the PettingZoo env, and the
  batched engine as the vector env of RLlib's single-agent env runners.
* ``sniff_env.integrations.sb3``: Stable-Baselines3 adapters.
"""
