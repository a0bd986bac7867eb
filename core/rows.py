"""Rows of several models written by one statement.

A write that leaves several rows (a record, the copies it tracks, its history) sent each with the ORM's ``save``:
one round trip, one compilation and one trip through the model layer per row. Here each row's INSERT is the one the
ORM would send, built by the ORM's own insert compiler (the same columns; the values through ``pre_save`` and
``get_db_prep_save``, so ``auto_now`` fields, JSON and vectors are adapted exactly as ``save`` adapts them), and
:func:`statement` joins them as data-modifying CTEs: one round trip for all of them. PostgreSQL checks foreign keys
at the end of the statement, so a row may refer to one inserted beside it; a row that needs another's generated key
reads that row's ``RETURNING`` by its name.

Model signals are not sent (as with ``bulk_create``): only for models that have no receivers.
"""

from __future__ import annotations

import re

from django.db import DEFAULT_DB_ALIAS, connections
from django.db.models import Model
from django.db.models.sql import InsertQuery

_NAME = re.compile(r"^[a-z][a-z0-9_]{0,62}\Z")
_BOUNDED_TEXT = re.compile(r"^(varchar|character varying)\(\d+\)\Z")


def _unbounded(db_type: str | None) -> str:
    """A parameter's type for its cast: a string's without its length, since a cast to ``varchar(n)`` would cut a
    longer value where the column refuses it (as an INSERT of VALUES does)."""
    if db_type is None:
        raise ValueError("a column without a database type")
    return _BOUNDED_TEXT.sub(r"\1", db_type)


def insert(obj: Model, *, expressions: dict[str, str] | None = None, source: str | None = None,
           returning: str | None = None, using: str = DEFAULT_DB_ALIAS) -> tuple[str, list]:
    """One row's INSERT as the ORM would send it, as SQL and parameters.

    ``expressions``: column -> SQL (server code, never input) written instead of the object's value, e.g. a scalar
    subquery that reads another CTE's ``RETURNING``. ``source``: the name of another CTE of the statement; the row
    is then written once for each row that CTE returns (none if it returns none). Its values are then cast to their
    columns' types, as PostgreSQL would otherwise read an untyped parameter (a NULL, a string) as text.
    ``returning``: a field whose column the INSERT returns."""
    meta = obj._meta
    fields = [f for f in meta.local_concrete_fields if f is not meta.auto_field and not f.generated]
    query = InsertQuery(type(obj))
    query.insert_values(fields, [obj])
    compiler = query.get_compiler(using=using)
    connection = connections[using]
    values = [compiler.prepare_value(f, compiler.pre_save_val(f, obj)) for f in fields]
    [placeholders], [params] = compiler.assemble_as_sql(fields, [values])
    expressions = dict(expressions or {})
    parts, kept = [], []
    position = 0
    for field, placeholder in zip(fields, placeholders, strict=True):
        taken = placeholder.count("%s")
        if field.column in expressions:
            parts.append(expressions.pop(field.column))
        else:
            parts.append(f"CAST({placeholder} AS {_unbounded(field.db_type(connection))})" if source else placeholder)
            kept += params[position:position + taken]
        position += taken
    if expressions:
        raise ValueError(f"no such columns: {sorted(expressions)}")
    if source is not None and not _NAME.match(source):
        raise ValueError("source names a CTE of the statement")
    quote = connection.ops.quote_name
    columns = ", ".join(quote(f.column) for f in fields)
    values_sql = f"SELECT {', '.join(parts)} FROM {source}" if source else f"VALUES ({', '.join(parts)})"
    sql = f"INSERT INTO {quote(meta.db_table)} ({columns}) {values_sql}"
    if returning is not None:
        sql += f" RETURNING {quote(next(f.column for f in meta.concrete_fields if f.name == returning))}"
    return sql, kept


def statement(parts: list[tuple[str, tuple[str, list]]]) -> tuple[str, list]:
    """``(name, (sql, params))`` data-modifying statements as one: ``WITH name AS (sql), ... last``: every part but the
    last is a CTE that the others may read by its name, and the last is the statement itself (its name only says
    what it is), so the cursor's ``rowcount`` is how many rows it wrote. PostgreSQL runs each CTE whether or not
    anything reads it."""
    for name, _ in parts:
        if not _NAME.match(name):
            raise ValueError(f"not a CTE name: {name!r}")
    *ctes, (_, (last, _)) = parts
    with_sql = f"WITH {', '.join(f'{name} AS ({sql})' for name, (sql, _) in ctes)} " if ctes else ""
    return f"{with_sql}{last}", [p for _, (_, params) in parts for p in params]
