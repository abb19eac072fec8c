"""Play against the agents in the terminal (``sniff play``) and watch saved games (``sniff replay``)."""
