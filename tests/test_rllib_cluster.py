"""From one machine to a cluster: a two-node Ray cluster on 127.0.0.1 (a head and a worker node,
each with its own resources) runs two league training iterations of ``training/libraries/rllib_selfplay.py``
on each engine (one game per env; the batched engine, many games per env runner) whose env
runners land one on each node."""

from __future__ import annotations

import pytest

pytest.importorskip("ray.rllib")

from training.libraries.rllib_selfplay import Args, build_config, start_ray

NODE_MEMORY = 100 * 1024 * 1024
SLOT = "sniff_env_runner"
"""A custom resource each node offers once and each env runner needs once: one runner per node."""


def test_env_runners_land_on_both_nodes_of_a_two_node_cluster() -> None:
    import ray
    from ray.cluster_utils import Cluster

    cluster = Cluster(
        initialize_head=True,
        head_node_args={"num_cpus": 1, "resources": {SLOT: 1, "head": 1}, "object_store_memory": NODE_MEMORY,
                        "include_dashboard": False},
    )
    algo = None
    try:
        worker = cluster.add_node(num_cpus=1, resources={SLOT: 1, "worker": 1}, object_store_memory=NODE_MEMORY)
        for engine, module in (("python", "main"), ("vector", "default_policy")):
            args = Args(
                address=cluster.address, engine=engine, num_env_runners=2,
                num_envs_per_env_runner=1 if engine == "python" else 16, train_batch_size=128, minibatch_size=64,
                num_epochs=1, hidden=16, max_hands=1, snapshot_every=1, pool_size=1, eval_every=0, tensorboard=False,
            )
            if engine == "python":
                assert start_ray(args), "joined the cluster at --address"
                assert {n["NodeID"] for n in ray.nodes() if n["Alive"]} == {cluster.head_node.node_id, worker.node_id}
            config = build_config(args).env_runners(
                num_cpus_per_env_runner=1, custom_resources_per_env_runner={SLOT: 1}
            )
            algo = config.build_algo()
            results = [algo.train() for _ in range(2)]
            nodes = algo.env_runner_group.foreach_env_runner(
                lambda runner: ray.get_runtime_context().get_node_id(), local_env_runner=False
            )
            assert sorted(nodes) == sorted([cluster.head_node.node_id, worker.node_id]), engine
            assert algo.iteration == 2 and results[-1]["league_size"] == 1
            assert results[-1]["env_runners"]["num_module_steps_sampled_lifetime"][module] >= 128
            if engine == "vector":  # the snapshot reached both runners' pools, and is drawn there
                draws = algo.env_runner_group.foreach_env_runner(
                    lambda runner: runner.env.unwrapped.opponent_pool.probs[-1], local_env_runner=False
                )
                assert len(draws) == 2 and min(draws) > 0
            algo.stop()
            algo = None
    finally:
        if algo is not None:
            algo.stop()
        ray.shutdown()
        cluster.shutdown()
