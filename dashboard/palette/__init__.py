"""The command palette (Ctrl/Cmd-K): pages, actions and things of every area,
found by typing. The core runs the sources; every area contributes its own
through the area registry (`Area.palette_sources`, see `sources.py`)."""
