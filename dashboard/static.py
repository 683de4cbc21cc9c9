"""How static files travel: hashed names, compressed copies, cached for good.

`manage.py collectstatic` (the image's build step, and `manage.py bootstrap`
on every `make run`) writes each file under a name carrying a hash of its
content, with gzip (and, when the `brotli` package is installed, brotli)
copies beside it, and a manifest (`staticfiles.json`). WhiteNoise serves the
compressed copy the browser accepts and marks hashed names immutable for ten
years: a repeat visit asks for no static file at all, and a changed file is a
new name. Settings choose this storage in production and wherever the
manifest exists (see `STORAGES` in dashboard/settings.py).
"""

from __future__ import annotations

from typing import Any

from whitenoise.storage import CompressedManifestStaticFilesStorage


class HashedStaticFilesStorage(CompressedManifestStaticFilesStorage):
    """WhiteNoise's compressed manifest storage, with hashed names under
    DEBUG too: Django's manifest storage hands out the plain names when
    DEBUG is on, which would leave `make run` (DEBUG on) without the long
    cache lifetimes that only hashed names may carry."""

    def url(self, name: Any, force: bool = False) -> str:
        return super().url(name, force=True)
