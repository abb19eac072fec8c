"""Speed scripts of the engine, the environments and the players (run with ``sniff bench NAME``);
they print figures and assert nothing. The web table's are in :mod:`sniff_env.web.speed`."""
