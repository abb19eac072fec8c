"""What the trainers share: networks, the collector and its experience, advantages, configs, devices,
snapshots and export. Nothing here parses a command line."""
