"""Play in the browser: ``sniff serve`` runs a local web table (needs the ``web`` extra)."""
