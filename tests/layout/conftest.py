import os

# Playwright's sync API runs an event loop in the test thread; the ORM calls
# these tests make are synchronous and safe.
os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = "true"
