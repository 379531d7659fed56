"""TF1's ``tf.logging`` (``ds.logging``): leveled messages through Python's ``logging``,
on the library's own logger ("devsession", where TF1 used "tensorflow"), so that
``set_verbosity`` governs a script's messages and devsession's alike.

    ds.logging.set_verbosity(ds.logging.INFO)
    ds.logging.info("step %d, loss %.3f", step, loss)
    ds.logging.log_every_n(ds.logging.INFO, "step %d", 100, step)

The levels are the standard library's numbers, as TF1's (DEBUG 10, INFO 20, WARN 30,
ERROR 40, FATAL 50); ``fatal`` logs at FATAL and does not exit, as TF1's.  As TF1, the
first use gives the logger a stderr handler ("INFO:devsession:message") unless the root
logger already has handlers (then those print, and nothing is printed twice).  The
module is named ``tf_logging`` so that it never shadows the standard ``logging`` for
the package's other modules.

``log_every_n`` and ``log_first_n`` count calls per call site (file and line), as TF1's.
"""

from __future__ import annotations

import logging as _logging
import sys
import threading

__all__ = ["DEBUG", "INFO", "WARN", "ERROR", "FATAL", "get_logger", "set_verbosity",
           "get_verbosity", "log", "debug", "info", "warn", "warning", "error", "fatal",
           "vlog", "log_if", "log_every_n", "log_first_n", "flush",
           "TaskLevelStatusMessage"]

DEBUG = _logging.DEBUG
INFO = _logging.INFO
WARN = _logging.WARN
ERROR = _logging.ERROR
FATAL = _logging.FATAL

_LOGGER_NAME = "devsession"
_lock = threading.Lock()
_configured = False
_calls_per_site: dict = {}


def get_logger() -> _logging.Logger:
    """The "devsession" logger, given a stderr handler on first use unless the root
    logger prints already."""
    global _configured
    logger = _logging.getLogger(_LOGGER_NAME)
    with _lock:
        if not _configured:
            _configured = True
            if not _logging.getLogger().handlers and not logger.handlers:
                handler = _logging.StreamHandler(sys.stderr)
                handler.setFormatter(_logging.Formatter(_logging.BASIC_FORMAT))
                logger.addHandler(handler)
    return logger


def set_verbosity(level):
    """Messages below ``level`` are dropped from now on."""
    get_logger().setLevel(level)


def get_verbosity() -> int:
    """The level below which messages are dropped (the logger's effective level)."""
    return get_logger().getEffectiveLevel()


# stacklevel=2 makes a record name the caller of these functions, not this module.
def log(level, msg, *args, **kwargs):
    get_logger().log(level, msg, *args, stacklevel=2, **kwargs)


def debug(msg, *args, **kwargs):
    get_logger().debug(msg, *args, stacklevel=2, **kwargs)


def info(msg, *args, **kwargs):
    get_logger().info(msg, *args, stacklevel=2, **kwargs)


def warning(msg, *args, **kwargs):
    get_logger().warning(msg, *args, stacklevel=2, **kwargs)


warn = warning


def error(msg, *args, **kwargs):
    get_logger().error(msg, *args, stacklevel=2, **kwargs)


def fatal(msg, *args, **kwargs):
    get_logger().critical(msg, *args, stacklevel=2, **kwargs)


def vlog(level, msg, *args, **kwargs):
    """``log``, as TF1's (which had no separate verbose levels)."""
    get_logger().log(level, msg, *args, stacklevel=2, **kwargs)


def log_if(level, msg, condition, *args):
    """``msg % args`` at ``level`` only when ``condition`` holds."""
    if condition:
        get_logger().log(level, msg, *args, stacklevel=2)


def _next_count_here() -> int:
    """How many times the calling site (of our caller) was reached before, per file
    and line."""
    frame = sys._getframe(2)
    site = (frame.f_code.co_filename, frame.f_lineno)
    with _lock:
        count = _calls_per_site.get(site, -1) + 1
        _calls_per_site[site] = count
    return count


def log_every_n(level, msg, n, *args):
    """``msg % args`` on this call site's 1st, (n+1)th, (2n+1)th... call."""
    if _next_count_here() % n == 0:
        get_logger().log(level, msg, *args, stacklevel=2)


def log_first_n(level, msg, n, *args):
    """``msg % args`` on this call site's first ``n`` calls only."""
    if _next_count_here() < n:
        get_logger().log(level, msg, *args, stacklevel=2)


def TaskLevelStatusMessage(msg):
    """TF1's: ``msg`` at ERROR level."""
    get_logger().error(msg, stacklevel=2)


def flush():
    """Flushes the logger's handlers (and stderr)."""
    for handler in get_logger().handlers:
        handler.flush()
    sys.stderr.flush()


def __getattr__(name: str):
    from .unsupported import missing

    raise missing("logging", name)
