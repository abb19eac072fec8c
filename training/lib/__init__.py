"""What the trainers share: networks, the collector, rollouts, advantages, configs, devices,
snapshots and export. Nothing here parses a command line."""
