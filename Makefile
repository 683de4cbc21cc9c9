# Two commands for a fresh machine: `make run` and `make test`.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed

.PHONY: run test install bootstrap check bench clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[test]'
	touch $(STAMP)

install: $(STAMP)

bootstrap: install
	$(PY) manage.py bootstrap

run: bootstrap
	$(VENV)/bin/honcho start -f Procfile

test: install
	CACHE_URL=locmem:// $(PY) -m pytest $(PYTEST_ARGS)

check: install
	$(PY) manage.py check
	CONSOLE_ENV=production SECRET_KEY=check-only-$$(date +%s)-not-a-real-secret-value-xxxxxxxxxxxxxxxx \
	  KEY_ENCRYPTION_KEYS=$$($(PY) -c "from cryptography.fernet import Fernet; print(Fernet.generate_key().decode())") \
	  ALLOWED_HOSTS=console.example.com $(PY) manage.py check --deploy --fail-level WARNING

bench: install
	$(PY) bench/records_page.py

clean:
	rm -rf $(VENV) var staticfiles
