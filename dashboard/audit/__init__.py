"""The audit trail: every remote write made through the console (from the
transport's write hook) and every approval decision with its note, kept in
the console's database, append-only for users. Also the governance
permissions "decide approvals" and "view the audit trail", which the console
roles grant (`dashboard/people/roles.py`: Approver and Administrator decide,
Auditor and Administrator read the trail); the Approvers group that granted
them before roles is retired (migration 0004)."""
