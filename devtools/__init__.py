"""Tools for a developer's machine, installed only outside production
(`CONSOLE_ENV` other than `production`): `manage.py bootstrap` (the setup
half of `make run`), `runsandbox` and `sandbox_keys`. The only part of the
console that imports the sandbox."""
