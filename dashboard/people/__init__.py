"""People in the console: each person's console role (Viewer, Member,
Approver, Auditor, Administrator), what each role may do, and (views) the
People page, invitations and deactivation. `roles.py` is the one table of
who may do what; `backends.RolePermissionBackend` answers `user.has_perm`
from it, so every area asks the same question the same way."""
