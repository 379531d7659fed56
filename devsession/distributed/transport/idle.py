"""The idle connections a client pool keeps for its next calls: ``SocketPool``'s sockets
and ``ExchangePool``'s streams.

A connection is lent to one call at a time: ``take`` lends a kept one; ``lent`` wraps
the call, keeping the connection again after a call that succeeded (``give_back``) and
closing it after one that failed (what is left on it is unknown).  At most ``most`` are
kept; one idle for ``IDLE_CLOSE_S`` or found dead (its peer went away or restarted while
it was idle) is closed rather than lent, and after ``close`` none is kept.  A connection
has ``used`` (when it was last given back, ``time.monotonic``), ``alive()`` and
``close()``.
"""

from __future__ import annotations

import contextlib
import threading
import time

from ..timeouts import IDLE_CLOSE_S

__all__ = ["IdleConnections"]


class IdleConnections:
    """At most ``most`` idle connections to one peer, kept for reuse."""

    def __init__(self, most: int):
        self.most = most
        self._lock = threading.Lock()
        self._kept: list = []
        self.closed = False

    def __len__(self) -> int:
        return len(self._kept)

    def __getitem__(self, index: int):
        """The kept connections, in the order they were given back."""
        return self._kept[index]

    def take(self):
        """A kept connection still fresh and alive, or None (the others are closed)."""
        now = time.monotonic()
        with self._lock:
            while self._kept:
                conn = self._kept.pop()
                if now - conn.used < IDLE_CLOSE_S and conn.alive():
                    return conn
                conn.close()
        return None

    @contextlib.contextmanager
    def lent(self, conn):
        """Around one call on ``conn``: closed if the call raises, else given back."""
        try:
            yield conn
        except BaseException:
            conn.close()
            raise
        self.give_back(conn)

    def give_back(self, conn) -> None:
        """Keep ``conn`` for a later call, or close it when enough are kept already."""
        conn.used = time.monotonic()
        with self._lock:
            if not self.closed and len(self._kept) < self.most:
                self._kept.append(conn)
                return
        conn.close()

    def close(self) -> None:
        """Close the kept connections, and every one given back from now on."""
        with self._lock:
            self.closed = True
            kept, self._kept = self._kept, []
        for conn in kept:
            conn.close()
