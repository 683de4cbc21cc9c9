"""The frame every page sits in, above the stored keys and the live tracking
it reads (they never import it; a contract says so):

- `workspace`: `request.workspace` (the active key, its client, workspace id,
  name, time zone and member role; `can_write` from the console role and the
  key's role together; a refused key answers the refusal);
- `key_gate`: access follows the key on every page (`KeyGateMiddleware`:
  the refusal before the view, the key asked again once a minute, a 401 of
  the request refusing it); `@works_without_key` for views that need none;
- `areas`: the area registry (navigation, home cards, "back to" lists,
  tracked kinds, inbox sources, the API resources each area writes);
- `remote_errors`: error pages and message boxes (texts from
  `dashboard.api.messages`, the one catalogue);
- `forms`: how a remote refusal lands on a form; the one field template
  (`ConsoleFormRenderer`); `QuestionsForm`;
- `permissions`: `requires_permission` and `requires_write`, the one refusal;
- `context_processors`: the frame's template context.

The pure helpers below it are `dashboard.web`.
"""
