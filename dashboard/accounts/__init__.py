"""Accounts: logging in and staying logged in safely.

- lockout.py       login throttling per account and per address (django-axes)
- middleware.py    idle and absolute session limits; no-store on private pages
- oidc.py          optional single sign-on with an OpenID Connect provider (endpoints by discovery)
- oidc_roles.py    console roles from the provider's groups claim (pure)
- saml.py          optional SAML 2.0 sign-in (djangosaml2): backend, login, ACS and metadata views
- saml_config.py   the djangosaml2 configuration from the SAML_* settings (pure)
- throttle.py      fixed-window counters and failure locks in the shared cache
- signin.py        the sign-in between the password and the second factor
- two_factor.py    two-factor sign-in: an authenticator app and recovery codes
- policy.py        which roles must use two-factor sign-in
- services.py      password reset requests (sent by tasks.py's worker task)
- views.py         login, the code step, password reset, one's own two-factor page
- views_policy.py  the sign-in policy page and a person's second-factor reset
"""
