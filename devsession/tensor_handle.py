"""``TensorHandle``: what fetching a ``tf.get_session_handle`` tensor gives (TF1's
``session_ops.TensorHandle``): the handle string of a value the session keeps, its dtype
and its session.  ``eval()`` reads the value back, ``delete()`` frees it; a TensorHandle
given as a feed_dict value feeds its value (TF moves the stored tensor there).

The ops that read and delete are built once per (session graph, dtype) and reused, so
evaluating many handles does not grow the graph.  Unlike TF, a handle is not deleted
when the TensorHandle is garbage collected: ``delete()`` (or closing the session) frees
it.
"""

from __future__ import annotations

import threading

__all__ = ["TensorHandle"]

_READERS_LOCK = threading.Lock()


class TensorHandle:
    """A persistent tensor of a session, by handle."""

    def __init__(self, handle, dtype, session):
        self._handle = handle.decode() if isinstance(handle, bytes) else str(handle)
        self._dtype = dtype
        self._session = session
        self._deleted = False

    @property
    def handle(self) -> str:
        """The handle string, to feed into ``get_session_tensor``'s placeholder."""
        return self._handle

    def get_raw_handle(self) -> str:
        return self._handle

    def __str__(self) -> str:
        return self._handle

    def eval(self):
        """The value kept under this handle.  Raises TypeError (TF's) once deleted."""
        self._check_alive()
        holder, reader = self._ops("reader", self._dtype)
        return self._session.run(reader, feed_dict={holder: self._handle})

    def delete(self) -> None:
        """Free the value kept under this handle (TF's TypeError if already deleted)."""
        self._check_alive()
        self._deleted = True
        holder, deleter = self._ops("deleter", None)
        self._session.run(deleter, feed_dict={holder: self._handle})

    def _check_alive(self) -> None:
        if self._deleted:
            raise TypeError(f"Persistent tensor {self._handle} may have already been "
                            f"deleted.")

    def _ops(self, kind: str, dtype) -> tuple:
        """The (placeholder, op) pair of ``kind`` for the session's graph, made once."""
        from .ops.session_ops import delete_session_tensor, get_session_tensor

        graph = self._session.graph
        with _READERS_LOCK:
            made = graph.__dict__.setdefault("_session_tensor_ops", {})
            key = (kind, dtype)
            if key not in made:
                with graph.as_default():
                    made[key] = get_session_tensor(self._handle, dtype) if kind == "reader" \
                        else delete_session_tensor(self._handle)
            return made[key]
