"""Speed scripts of the web table (``sniff bench web_load``, ``sniff bench web_memory``); they
print figures and assert nothing."""
