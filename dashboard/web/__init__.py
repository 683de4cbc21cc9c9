"""The console's one web layer: plumbing every area uses and none copies.

- `htmx`: partial detection, regions, client redirects, stop polling;
- `workspace`: `request.workspace` (the active key, its client, workspace id,
  name, time zone and member role);
- `pager`: the one cursor pager (and `includes/pager.html`);
- `forms`: how a remote refusal lands on a form; `QuestionsForm`;
- `remote_errors`: error pages and message boxes (texts from
  `dashboard.api.messages`, the one catalogue);
- `reading`: tolerant readers of remote bodies;
- `areas`: the area registry (navigation, home cards, "back to" lists,
  tracked kinds);
- `context_processors`: the frame's template context.
"""
