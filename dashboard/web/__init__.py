"""Plumbing every page uses and no area copies, importing nothing of the
console (a contract says so), so any layer may use it:

- `htmx`: partial detection, regions, client redirects, stop polling;
- `pager`: the one cursor pager (and `includes/pager.html`);
- `params`: query parameters read with bounds;
- `reading`: tolerant readers of remote bodies;
- `json_input`: strict JSON typed by a person;
- `csv`: the one streaming CSV writer (formula cells neutralised);
- `converters`: path converters.

The frame a page sits in (the workspace, the area registry, error pages,
forms that show remote refusals, the write guard) is `dashboard.frame`, one
floor up: it reads keys and live; they never read it.
"""
