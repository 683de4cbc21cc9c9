"""`python -m devtools.messages` (`make messages`): the translation catalogs
brought up to date, then compiled.

1. `makemessages` for every language of settings.LANGUAGES but English, both
   domains (django: templates, Python, email .txt; djangojs: static/js),
   with the folders that are not the console's ignored. It needs GNU gettext
   (xgettext, msgmerge). msgmerge's fuzzy guesses are dropped (drop_fuzzy).
2. Every locale/<lang>/LC_MESSAGES/*.po compiled to its .mo with polib, so a
   machine without gettext compiles too. The .mo files are committed: `make
   run` on a fresh machine needs no gettext; tests/layout/test_translations.py
   fails on a .mo that no longer matches its .po.

`--compile-only` skips step 1 (after a merge of .po files, say)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
LOCALE = ROOT / "locale"
IGNORE = [".venv", "tests", "node_modules", "staticfiles", "bench", "sandbox", "devtools", "static/vendor", "*.min.js"]
LANGUAGES = ["de", "fr"]


def make_messages() -> None:
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "dashboard.settings"}
    ignores = [f"--ignore={pattern}" for pattern in IGNORE]
    languages = [arg for code in LANGUAGES for arg in ("-l", code)]
    admin = [sys.executable, "-m", "django", "makemessages", *languages, *ignores, "--no-obsolete"]
    subprocess.run([*admin, "-e", "html,py,txt"], cwd=ROOT, env=env, check=True)
    subprocess.run([*admin, "-d", "djangojs"], cwd=ROOT, env=env, check=True)


def drop_fuzzy() -> None:
    """msgmerge's guesses (a new string given a near one's translation, marked
    fuzzy) taken out: a string stays untranslated (shown in English, listed by
    the tests) rather than shown with another string's words."""
    import polib

    for po_path in sorted(LOCALE.glob("*/LC_MESSAGES/*.po")):
        catalog = polib.pofile(str(po_path), wrapwidth=79)
        guessed = [entry for entry in catalog if "fuzzy" in entry.flags and entry.msgid]
        for entry in guessed:
            entry.flags.remove("fuzzy")
            entry.msgstr = ""
            entry.msgstr_plural = dict.fromkeys(entry.msgstr_plural, "")
            entry.previous_msgid = entry.previous_msgid_plural = entry.previous_msgctxt = None
        if guessed:
            catalog.save()


def compile_messages() -> list[Path]:
    import polib

    written = []
    for po_path in sorted(LOCALE.glob("*/LC_MESSAGES/*.po")):
        polib.pofile(str(po_path)).save_as_mofile(str(po_path.with_suffix(".mo")))
        written.append(po_path.with_suffix(".mo"))
    return written


def main(argv: list[str]) -> int:
    if "--compile-only" not in argv:
        make_messages()
        drop_fuzzy()
    for path in compile_messages():
        print(f"compiled {path.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
