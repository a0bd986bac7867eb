"""Streaming a response body that reads the database under the caller's identity.

A view's identity context (and its transaction) ends when the view returns, but a ``StreamingHttpResponse`` body
is produced later, while the server writes it out. The settings row-level security reads are transaction-local,
so a body iterated after the view returned would see no rows at all (never someone else's). The generator made
here therefore opens its own transaction and identity context when the server starts iterating it and keeps them
open until the last byte (or until the client goes away: closing the generator rolls the read-only transaction
back). When it is the outermost transaction, it is REPEATABLE READ and READ ONLY, so every section of one export
comes from the same snapshot even though rows are fetched in chunks by several server-side cursors.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterator
from contextlib import ExitStack

from django.db import connection, transaction

from core.identity import Identity, identity_context

log = logging.getLogger("anamnesis.rights")

FLUSH_BYTES = 64 * 1024


def stream_in_identity(identity: Identity, produce: Callable[[], Iterator[str]]) -> Iterator[bytes]:
    """Iterate ``produce()`` inside a snapshot transaction with ``identity``; yield UTF-8 in ~64 KB pieces."""
    with ExitStack() as stack:
        if not connection.in_atomic_block:
            stack.enter_context(transaction.atomic())
            with connection.cursor() as cursor:
                cursor.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY")
        stack.enter_context(identity_context(identity))
        pending: list[str] = []
        size = 0
        try:
            for piece in produce():
                pending.append(piece)
                size += len(piece)
                if size >= FLUSH_BYTES:
                    yield "".join(pending).encode()
                    pending, size = [], 0
        except GeneratorExit:
            log.info("export stream closed by the client")
            raise
        except Exception as exc:
            # The status line is already sent: the body stops short (invalid JSON), which clients detect.
            log.error("export stream failed: %s", type(exc).__name__)
            raise
        if pending:
            yield "".join(pending).encode()
