"""The audit trail: every remote write made through the console (from the
transport's write hook) and every approval decision with its note, kept in
the console's database, append-only for users. Also the governance
permissions: "decide approvals" (the Approvers group) and "view the audit
trail"."""
