"""How static files travel: hashed names, compressed copies, cached for good.

`manage.py collectstatic` (the image's build step, and `manage.py bootstrap`
on every `make run`) writes each file under a name carrying a hash of its
content, with gzip (and, when the `brotli` package is installed, brotli)
copies beside it, and a manifest (`staticfiles.json`). WhiteNoise serves the
compressed copy the browser accepts and marks hashed names immutable for ten
years: a repeat visit asks for no static file at all, and a changed file is a
new name. Settings choose this storage in production and wherever the
manifest exists (see `STORAGES` in dashboard/settings.py).

Before hashing, the console's own scripts and style sheets lose their
comments and spare blanks (`minified`: rjsmin, rcssmin): the comments say
why for the people reading the source, and were a third of a phone's first
load (#40). Vendored `.min.js` files are left as they came.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import rcssmin
import rjsmin
from whitenoise.storage import CompressedManifestStaticFilesStorage


def minified(name: str, content: str) -> str | None:
    """`content` of the static file `name` as it travels, or None when it
    travels as it is (not a script or style sheet of ours)."""
    if name.endswith(".min.js") or name.endswith(".min.css"):
        return None
    if name.endswith(".js"):
        return rjsmin.jsmin(content)
    if name.endswith(".css"):
        return rcssmin.cssmin(content)
    return None


class HashedStaticFilesStorage(CompressedManifestStaticFilesStorage):
    """WhiteNoise's compressed manifest storage, with hashed names under
    DEBUG too: Django's manifest storage hands out the plain names when
    DEBUG is on, which would leave `make run` (DEBUG on) without the long
    cache lifetimes that only hashed names may carry."""

    def url(self, name: Any, force: bool = False) -> str:
        return super().url(name, force=True)

    def post_process(self, paths: dict[str, Any], dry_run: bool = False, **options: Any) -> Any:
        """The collected copies minified in place (`minified`), then hashed
        and compressed as WhiteNoise does: the hash is of what travels."""
        if not dry_run:
            for name in paths:
                path = Path(self.path(name))
                if path.suffix in (".js", ".css") and path.is_file():
                    shrunk = minified(name, path.read_text(encoding="utf-8"))
                    if shrunk is not None:
                        path.write_text(shrunk, encoding="utf-8")
        yield from super().post_process(paths, dry_run=dry_run, **options)
