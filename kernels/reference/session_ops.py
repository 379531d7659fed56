"""The kernels of ``GetSessionHandle``, ``GetSessionTensor`` and ``DeleteSessionTensor``
(``devsession/ops/session_ops.py``), on the host, over the session's ``TensorStore``: a
dict of handle -> value with a counter for new handles, one per session (a resource in
the session's own container ``_session_tensors``), guarded by a lock since steps run
concurrently."""

from __future__ import annotations

import itertools
import threading

import numpy as np

from devsession.devices import local_device_name
from devsession.errors import InternalError, InvalidArgumentError

from ..registry import HOST, register_kernel

__all__ = ["TensorStore"]

# TF's DataTypeString names where they differ from numpy's (its messages use them).
_TF_NAMES = {"float32": "float", "float64": "double", "float16": "half", "object": "string"}


class TensorStore:
    """The values a session keeps under handles."""

    def __init__(self):
        self._values: dict = {}
        self._ids = itertools.count()
        self._lock = threading.Lock()

    def put(self, node_name: str, device: str, value) -> str:
        with self._lock:
            handle = f"{node_name};{next(self._ids)};{device}"
            self._values[handle] = value
        return handle

    def get(self, handle: str, node_name: str):
        with self._lock:
            found = self._values.get(handle)
        if found is None:
            raise InvalidArgumentError(f"The tensor with handle '{handle}' is not in the "
                                       f"session store.", node_name)
        return found

    def delete(self, handle: str, node_name: str) -> None:
        with self._lock:
            if self._values.pop(handle, None) is None:
                raise InvalidArgumentError(f"Failed to delete a tensor with handle "
                                           f"'{handle}' in the session store.", node_name)


def _store(node) -> TensorStore:
    return node.context.resources.get_or_put("_session_tensors", "store", TensorStore)


def _handle_text(handle) -> str:
    value = handle[()] if isinstance(handle, np.ndarray) else handle
    return value.decode() if isinstance(value, bytes) else str(value)


def _tf_name(dtype) -> str:
    name = np.dtype(dtype).name
    return _TF_NAMES.get(name, name)


@register_kernel("GetSessionHandle", HOST)
def build_get_session_handle(node):
    device = local_device_name(node.device.device_type, node.device.index)

    def get_session_handle(value):
        handle = _store(node).put(node.name, device, np.array(value, copy=True))
        return np.array(handle.encode(), dtype=object)
    return get_session_handle


@register_kernel("GetSessionTensor", HOST)
def build_get_session_tensor(node):
    want = np.dtype(node.attrs["dtype"])

    def get_session_tensor(handle):
        value = _store(node).get(_handle_text(handle), node.name)
        if value.dtype != want:
            raise InternalError(f"Output 0 of type {_tf_name(value.dtype)} does not match "
                                f"declared output type {_tf_name(want)} for node "
                                f"{{{{node {node.name}}}}}", node.name)
        return value.copy()
    return get_session_tensor


@register_kernel("DeleteSessionTensor", HOST)
def build_delete_session_tensor(node):
    def delete_session_tensor(handle):
        _store(node).delete(_handle_text(handle), node.name)
    return delete_session_tensor
