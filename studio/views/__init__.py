"""The Studio's pages: conversations (turns.py), Content Apps (apps.py) and
the library (library.py)."""
