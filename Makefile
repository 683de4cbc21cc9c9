# Two commands for a fresh machine: `make run` and `make test`.
# Needs only Python 3.11+: the newest python3.x found on PATH, or PYTHON=/path/to/python.
ifeq ($(origin PYTHON), undefined)
PYTHON := $(shell for p in python3.13 python3.12 python3.11 python3; do \
  $$p -c 'import sys; sys.exit(sys.version_info < (3, 11))' 2>/dev/null && { echo $$p; break; }; done)
endif
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed
RUN_STAMP := $(VENV)/.installed-run
# Ports of `make run`: the console and the local sandbox.
WEB_PORT ?= 8000
SANDBOX_PORT ?= 8100
export WEB_PORT SANDBOX_PORT

.PHONY: run test lint install install-run bootstrap demo-password check bench clean messages

# Two stamps: `make run` installs only what serving needs (the package and
# its `run` extra: the embedded broker, the sandbox), so the first page
# answers sooner; `make test`, `make lint` and `make install` add the test
# tools (the `test` extra: pytest, Playwright, mypy...) on top of it.
define check_python
	@test -n "$(PYTHON)" && $(PYTHON) -c 'import sys; sys.exit(sys.version_info < (3, 11))' || \
	  { echo "Workspace Console needs Python 3.11 or newer (found: $(or $(PYTHON),none on PATH)). Set PYTHON=/path/to/python3.11"; exit 1; }
endef

$(RUN_STAMP): pyproject.toml
	$(check_python)
	@echo "Installing Workspace Console into $(VENV) (a minute or two the first time; the test tools come with make test)..."
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[run]'
	touch $(RUN_STAMP)

$(STAMP): $(RUN_STAMP) pyproject.toml
	@echo "Installing the test tools into $(VENV)..."
	$(PY) -m pip install --quiet -e '.[test,run]'
	touch $(STAMP)

install: $(STAMP)
install-run: $(RUN_STAMP)

# Migrations, the demo user and its sandbox key; also writes .env on first run.
bootstrap: install-run
	$(PY) manage.py bootstrap

# Setup (as `make bootstrap`, after checking the ports are free), then the
# sandbox, Celery worker and beat, and the web server (Procfile), under
# devtools/supervise.py: a process that dies is restarted, the others keep running.
run: install-run
	$(PY) manage.py bootstrap --check-ports
	PATH="$(CURDIR)/$(VENV)/bin:$$PATH" \
	  WEB_READY_HINT="Log in as demo (password: printed by the first make run; make demo-password sets a new one). Ctrl-C stops everything." \
	  $(PY) -m devtools.supervise --procfile Procfile --ready-path /accounts/login/

# A new generated password for the demo user, printed once.
demo-password: install-run
	$(PY) manage.py bootstrap --reset-demo-password

# The habits CI enforces, then the whole suite in one process (about 66 min
# on CI's 2 cores before the fast hasher and the DELETE flush of
# docs/development.md "Tests"). pytest-xdist works
# (PYTEST_ARGS="-n 3 --dist loadfile": devtools/pytest_parallel.py gives each
# worker its Redis db) but is not the default: each worker starts its own
# sandbox, browser and migrated database, and on a loaded 2-core machine
# 3 workers were no faster than one.
test: lint
	CACHE_URL=locmem:// $(PY) -m pytest $(PYTEST_ARGS)

# Lint and format (ruff), the import contracts (import-linter: the core never
# imports an area, areas meet only through the core, the sandbox imports
# nothing of the console) and the type check of the core and the areas (mypy).
lint: install
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .
	$(VENV)/bin/lint-imports
	CACHE_URL=locmem:// $(VENV)/bin/mypy

# The translation catalogs (locale/): new strings collected (GNU gettext), every .po compiled to its .mo (devtools/messages.py).
messages: install
	$(PY) -m devtools.messages

check: install-run
	$(PY) manage.py check
	env -u DJANGO_ALLOW_ASYNC_UNSAFE CONSOLE_ENV=production \
	  SECRET_KEY=check-only-$$(date +%s)-not-a-real-secret-value-xxxxxxxxxxxxxxxx \
	  KEY_ENCRYPTION_KEYS=$$($(PY) -c "from cryptography.fernet import Fernet; print(Fernet.generate_key().decode())") \
	  ALLOWED_HOSTS=console.example.com $(PY) manage.py check --deploy --fail-level WARNING

# Every benchmark in bench/: ratios of things measured side by side in one run.
# The live poller's run real Celery workers, so they need PostgreSQL and Redis
# and say so when they are missing (BENCH_DATABASE_URL, BENCH_REDIS_URL: see
# bench/poll_lag.py); poll_stress keeps both cores busy for 2 minutes per stack.
bench: install
	$(PY) bench/records_page.py
	$(PY) bench/computed_columns.py
	$(PY) bench/large_table.py
	$(PY) bench/records_languages.py
	$(PY) bench/status_poll.py
	$(PY) bench/metrics_overhead.py
	$(PY) bench/studio_poll.py
	$(PY) bench/inbox_poll.py
	$(PY) bench/palette.py
	$(PY) bench/fair_use.py
	$(PY) bench/page_weight.py
	$(PY) bench/poll_broker.py
	$(PY) bench/poll_lag.py
	$(PY) bench/poll_cost.py
	$(PY) bench/poll_stress.py
	$(PY) bench/answer_latency.py
	$(PY) bench/import_parse.py
	$(PY) bench/chart_count.py
	$(PY) bench/zip_images.py
	$(PY) bench/log_volume.py

clean:
	rm -rf $(VENV) var staticfiles
