"""The memory list's and read's statements as the API sends them: the read with its audit row and the COMMIT in one
round trip, and the type versions the memories are rendered with (nothing may be looked up after that COMMIT in the
request's block)."""

from __future__ import annotations

from contextlib import contextmanager, nullcontext

from django.db import connection

from consent import purpose as purpose_of_use
from core import audit
from core.cursors import cursor_key, key_cursor
from core.identity import commit_with_next_statement, identity_context, sent_with_next
from memory import selectors
from memory.rendering import memory_item
from memory.types import registry as type_registry

LIST_LIMIT = 100  # a page of the memory list when the caller names no limit


def list_rows(identity, patient_id, *, purpose=None, consent_purpose=None, memory_type=None,
              limit: int = LIST_LIMIT, after: tuple[str, str, str] | None = None,
              types_with_read: bool = True,
              run: selectors.RunStatement | None = None) -> tuple[list, dict, str | None]:
    """The list's one statement: a page of the current memories (``limit`` after the key ``after``, reading one
    more to know whether another page follows: no count) with the read's audit row, and the COMMIT. Any refusal is
    raised before anything commits; the cursor of the next page is None on the last. With them, the types they
    are rendered with: nothing may be looked up after the COMMIT in the block, so with ``types_with_read`` the
    organisation's type versions this process has not cached are asked in the same round trip (DRF's path renders
    in the block). The quick read renders after its block and asks for a version it meets uncached then
    (:func:`types_after_read`): a second statement on every read cost about 150 us of the worker's CPU, for what a
    process meets once per type version. ``run``: the read is a transaction of its own (``LoneStatement.rows``)."""
    purpose = purpose_of_use.read_purpose(identity, purpose=purpose, consent_purpose=consent_purpose)
    with types_sent_with_read(identity) if types_with_read else nullcontext():
        commit_with_next_statement()  # the read, with its audit row, is the request's one statement
        with purpose_of_use.refused_as_such(patient_id=patient_id, purpose=purpose):
            rows = selectors.memory_list_current_rows(
                identity=identity, patient_id=patient_id, memory_type=memory_type, consent_purpose=purpose,
                limit=limit + 1, after=after,
                audit=audit.insert_statement(action="memory.list", resource_type="memory", patient_id=patient_id,
                                             purpose=purpose, outcome_by_access=purpose is None,
                                             require_purpose=purpose is not None), run=run)
    next_cursor = None
    if len(rows) > limit:
        rows = rows[:limit]
        next_cursor = key_cursor(tuple(rows[-1][i] for i in _KEY_INDEXES))
    return rows, type_registry.cached_specs(identity.org_id, ((row[3], row[4]) for row in rows)), next_cursor


_KEY_INDEXES = tuple(selectors.ITEM_COLUMNS.index(name) for name in selectors.CURRENT_KEY)


def list_after(cursor: str | None) -> tuple[str, str, str] | None:
    """The key a list cursor holds (None for the first page); ValueError for a cursor the list never gave."""
    if cursor is None:
        return None
    memory_type, attribute, consent_purpose = cursor_key(cursor, len(selectors.CURRENT_KEY))
    return memory_type, attribute, consent_purpose


def types_after_read(identity, rows: list, specs: dict) -> dict:
    """``specs`` with the type versions of ``rows`` this process had not cached (another process made them), asked
    in a transaction of their own once the read's block is over."""
    if not type_registry.uncached_keys(identity.org_id, ((row[3], row[4]) for row in rows)):
        return specs
    with identity_context(identity), connection.cursor() as types:
        types.execute(*type_registry.uncached_statement(identity.org_id))
        type_registry.cache_rows(identity.org_id, types.fetchall())
    keys = [(row[3], row[4]) for row in rows]
    type_registry.cache_absent(identity.org_id, type_registry.uncached_keys(identity.org_id, keys))
    return type_registry.cached_specs(identity.org_id, keys)


@contextmanager
def types_sent_with_read(identity):
    """The organisation's type versions this process has not looked up, asked in the same round trip as the read
    the block runs (which may carry the COMMIT), and kept (memory.types.registry.uncached_statement)."""
    with connection.cursor() as types:
        with sent_with_next():
            types.execute(*type_registry.uncached_statement(identity.org_id))
        yield
        type_registry.cache_rows(identity.org_id, types.fetchall())


def list_data(read: tuple[list, dict, str | None]) -> dict:
    rows, specs, next_cursor = read
    return {"items": [memory_item(row, specs=specs) for row in rows], "next_cursor": next_cursor}
