"""Small subcommands of the ``sniff`` command line."""
