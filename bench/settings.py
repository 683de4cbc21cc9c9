"""Settings of the benchmarks: the console's own, plus the admin peer app
(`bench.peer`) and a URLconf with the benchmarks' extra views (bench/urls.py).

DEBUG is off, as in a served console: with DEBUG on, Django keeps every query
it runs, which would tax the database-heavy admin peer more than the console.
`bench/common.py` sets DATABASE_URL and CACHE_URL before these are read.
"""

from __future__ import annotations

from dashboard.settings import *  # noqa: F403
from dashboard.settings import INSTALLED_APPS

INSTALLED_APPS = [*INSTALLED_APPS, "bench.peer"]
ROOT_URLCONF = "bench.urls"
DEBUG = False
# The benchmarks ask for pages far faster than a person: fair use
# (dashboard/fair_use.py) is off, except in bench/fair_use.py, which measures it.
FAIR_USE_ENABLED = False
