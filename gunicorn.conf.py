"""What gunicorn reads by default when started from the project folder: the service's own settings
(core/gunicorn_conf.py: the worker class and the metrics hooks)."""

from core.gunicorn_conf import *  # noqa: F403
