"""Accounts: logging in and staying logged in safely.

- lockout.py     login throttling per account and per address (django-axes)
- middleware.py  idle and absolute session limits; no-store on private pages
- oidc.py        optional single sign-on with an OpenID Connect provider
- throttle.py    a fixed-window counter in the shared cache (key checks)
"""
