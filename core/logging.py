import contextvars
import logging

# The request id of the work in progress (an HTTP request, or a worker's operation): log lines, problem bodies
# and audit rows carry it so one can be found from another.
request_id_var: contextvars.ContextVar[str] = contextvars.ContextVar("request_id", default="-")


class RequestIdFilter(logging.Filter):
    def filter(self, record: logging.LogRecord) -> bool:
        record.request_id = request_id_var.get()
        return True
