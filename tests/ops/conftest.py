import os

# Browser tests drive Playwright's sync API inside pytest's event loop.
os.environ.setdefault("DJANGO_ALLOW_ASYNC_UNSAFE", "true")
