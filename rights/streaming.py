"""Streaming a response body that reads the database under the caller's identity.

A view's identity context (and its transaction) ends when the view returns, but a ``StreamingHttpResponse`` body
is produced later, while the server writes it out. The settings row-level security reads are transaction-local,
so a body iterated after the view returned would see no rows at all (never someone else's). The generator made
here therefore opens its own transaction and identity context when the server starts iterating it. When it is the
outermost transaction, it is REPEATABLE READ and READ ONLY, so every section of one export comes from the same
snapshot even though rows are fetched in chunks by several server-side cursors.

The whole body is written to a spooled file (in memory up to ``SPOOL_IN_MEMORY_BYTES``, then an unlinked temporary
file) inside that transaction, which then ends and gives its connection back; only then is the body sent. The
transaction lasts as long as the database takes to read the patient, never as long as the client takes to read
the answer: a download over a slow link (the write timeout cuts off only a client that takes nothing for
``WEB_RESPONSE_WRITE_TIMEOUT_SECONDS``) held a snapshot open, keeping VACUUM from every row changed meanwhile, and
one of the pool's connections, for as long as it lasted.
"""

from __future__ import annotations

import logging
import tempfile
from collections.abc import Callable, Iterator
from contextlib import ExitStack

from django.db import connection, transaction

from core.identity import Identity, identity_context

log = logging.getLogger("anamnesis.rights")

FLUSH_BYTES = 64 * 1024
SPOOL_IN_MEMORY_BYTES = 8 * 1024 * 1024


def stream_in_identity(identity: Identity, produce: Callable[[], Iterator[str]]) -> Iterator[bytes]:
    """Iterate ``produce()`` inside a snapshot transaction with ``identity`` into a spooled file, end the
    transaction, then yield the UTF-8 body in ~64 KB pieces."""
    with tempfile.SpooledTemporaryFile(max_size=SPOOL_IN_MEMORY_BYTES) as spool:
        outermost = not connection.in_atomic_block
        with ExitStack() as stack:
            if outermost:
                stack.enter_context(transaction.atomic())
                with connection.cursor() as cursor:
                    cursor.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY")
            stack.enter_context(identity_context(identity))
            try:
                for piece in produce():
                    spool.write(piece.encode())
            except Exception as exc:
                # Nothing of the body has been sent: the server answers 500 instead.
                log.error("export stream failed: %s", type(exc).__name__)
                raise
        if outermost:
            connection.close()  # back to the pool (or closed), not held while the client reads
        spool.seek(0)
        try:
            while piece := spool.read(FLUSH_BYTES):
                yield piece
        except GeneratorExit:
            log.info("export stream closed by the client")
            raise
