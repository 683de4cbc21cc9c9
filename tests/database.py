"""The test database emptied after each transactional test by DELETE, not
TRUNCATE (the `emptied_by_delete` fixture in tests/conftest.py).

Browser tests and tests with real workers use `transactional_db`: after each,
Django's `flush` empties every table in one `TRUNCATE a, b, ...`. PostgreSQL
truncates by giving each of the ~60 tables new files, which took 1.4-3.7 s a
test on the shared 2-core machine; deleting the few rows a test left takes
0.1 s. The outcome is the same: every table empty, sequences left as they are
(TRUNCATE without RESTART IDENTITY keeps them too), Django's post_migrate
run after as before. Django creates every foreign key DEFERRABLE INITIALLY
DEFERRED on PostgreSQL, so the rows go in any order inside flush's
transaction; a test that asks for `reset_sequences` keeps Django's own
statement."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any


def delete_statements(original: Callable[..., list[str]]) -> Callable[..., list[str]]:
    """`DatabaseOperations.sql_flush` for PostgreSQL, deleting the rows."""

    def sql_flush(self: Any, style: Any, tables: Any, *, reset_sequences: bool = False, allow_cascade: bool = False):
        if reset_sequences or not tables:
            return original(self, style, tables, reset_sequences=reset_sequences, allow_cascade=allow_cascade)
        deletes = [f"{style.SQL_KEYWORD('DELETE FROM')} {style.SQL_FIELD(self.quote_name(table))};" for table in tables]
        return ["SET CONSTRAINTS ALL DEFERRED;", *deletes]

    return sql_flush
