import contextvars
import hashlib
import hmac
import logging
import os
import re
import traceback

# The request id of the work in progress (an HTTP request, or a worker's operation): log lines, problem bodies
# and audit rows carry it so one can be found from another.
request_id_var: contextvars.ContextVar[str] = contextvars.ContextVar("request_id", default="-")


class RequestIdFilter(logging.Filter):
    def filter(self, record: logging.LogRecord) -> bool:
        rid = request_id_var.get()
        if rid == "-":
            # Django logs a 4xx/5xx after the middleware that set the id has returned; its record names the request
            rid = getattr(getattr(record, "request", None), "request_id", None) or rid
        record.request_id = rid
        return True


# --- no patient identifiers in operational logs --------------------------------------------------------------
# Every UUID in a log line (paths name patients, memories, sessions) becomes a short keyed hash: the same id gives
# the same token within a deployment, so lines can still be correlated, but the log never holds the id itself.
_UUID = re.compile(r"[0-9A-Fa-f]{8}-?[0-9A-Fa-f]{4}-?[0-9A-Fa-f]{4}-?[0-9A-Fa-f]{4}-?[0-9A-Fa-f]{12}")


_PROCESS_KEY = os.urandom(32)


def _mask_key() -> bytes:
    from django.conf import settings

    try:
        secret = settings.SECRET_KEY.encode()
    except Exception:  # settings not loaded (a gunicorn master line): still masked, only not stable
        return _PROCESS_KEY
    return hmac.new(secret, b"anamnesis log ids", hashlib.sha256).digest()


def mask_ids(text: str, *, pattern: re.Pattern = _UUID) -> str:
    if not pattern.search(text):
        return text
    key = _mask_key()

    def token(match: re.Match) -> str:
        value = match.group(0).replace("-", "").lower()
        return "id:" + hmac.new(key, value.encode(), hashlib.sha256).hexdigest()[:10]

    return pattern.sub(token, text)


# In log messages, the ids that name people travel in URL paths (Django's request logging names the path). Our own
# log calls never name a patient; they do name operations and requests by id on purpose (workflows.worker), so only
# ids inside paths are masked there.
_PATH_UUID = re.compile(r"(?<=/)" + _UUID.pattern)


class RedactIdsFilter(logging.Filter):
    """Masks identifiers in paths within the message (Django's request logging names the path); the request id is
    kept. A traceback through a database error is logged without that error's text (see
    :func:`traceback_without_data`)."""

    def filter(self, record: logging.LogRecord) -> bool:
        if record.exc_info and record.exc_info[1] is not None and not record.exc_text:
            record.exc_text = traceback_without_data(record.exc_info[1])
        try:
            message = record.getMessage()
        except Exception:  # a malformed log call: keep Django's own behaviour
            return True
        masked = mask_ids(message, pattern=_PATH_UUID)
        if masked != message:
            record.msg, record.args = masked, None
        return True


def _is_database_error(exc: BaseException) -> bool:
    import psycopg
    from django.db import Error

    return isinstance(exc, Error | psycopg.Error)


def traceback_without_data(exc: BaseException) -> str | None:
    """The traceback as logging prints it, but a database error's message is replaced by its SQLSTATE: PostgreSQL
    quotes the offending values (``DETAIL: Key (...)=(...)``, ``CONTEXT: JSON data, line 1: ...``), which may be
    patient data. None (logging's own formatting) when no database error is in the chain."""
    chain: list[tuple[BaseException, str | None]] = []
    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        cause = current.__cause__
        context = None if current.__suppress_context__ else current.__context__
        chain.append((current, "cause" if cause is not None else "context" if context is not None else None))
        current = cause if cause is not None else context
    if not any(_is_database_error(e) for e, _ in chain):
        return None
    parts: list[str] = []
    for e, link in reversed(chain):  # the first cause first, as Python prints a chain
        if link is not None:  # how e follows the one printed before it
            parts.append("\n\nThe above exception was the direct cause of the following exception:\n\n"
                         if link == "cause" else
                         "\n\nDuring handling of the above exception, another exception occurred:\n\n")
        kind = f"{type(e).__module__}.{type(e).__qualname__}"
        if _is_database_error(e):
            state = getattr(e, "sqlstate", None) or getattr(e.__cause__, "sqlstate", None)
            text = f"{kind}: (message withheld: it may quote data) SQLSTATE {state or 'unknown'}"
        else:
            text = "".join(traceback.format_exception_only(e)).rstrip("\n")
        parts.append("Traceback (most recent call last):\n" + "".join(traceback.format_tb(e.__traceback__)) + text)
    return "".join(parts)


try:
    from gunicorn.glogging import Logger as _GunicornLogger
except ImportError:  # pragma: no cover - gunicorn is a runtime dependency of `manage.py serve`
    _GunicornLogger = object


class GunicornLogger(_GunicornLogger):
    """gunicorn's access log with ids in the request line, path and query masked (``manage.py serve``)."""

    def atoms(self, resp, req, environ, request_time):
        atoms = super().atoms(resp, req, environ, request_time)
        for name in ("r", "U", "q", "{raw_uri}e"):
            if isinstance(atoms.get(name), str):
                atoms[name] = mask_ids(atoms[name])
        return atoms
