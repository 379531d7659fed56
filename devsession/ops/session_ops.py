"""TF1's persistent tensors: ``tf.get_session_handle``, ``tf.get_session_tensor`` and
``tf.delete_session_tensor`` (TF's ``GetSessionHandle``, ``GetSessionTensor`` and
``DeleteSessionTensor`` ops), a value kept in the session between runs and named by a
string handle.

``GetSessionHandle`` stores its input in the session's tensor store (a resource of the
session, ``kernels/reference/session_ops.py``) and outputs the handle,
``"<node>;<id>;<device>"`` as TF's; fetching it gives a ``TensorHandle``
(``devsession/tensor_handle.py``) whose ``eval()`` reads the value back and which a
feed_dict takes as that value.  ``get_session_tensor`` and ``delete_session_tensor``
return a string placeholder to feed the handle into and the op that reads (or deletes)
the stored value.  An unknown handle is TF's InvalidArgumentError; reading with another
dtype TF's InternalError.  All three are stateful, so two handles of one value stay two
stores, and none is differentiable.  (TF's ``GetSessionHandleV2``, whose handle is a
resource, is not there: devsession has no resource dtype.)
"""

from __future__ import annotations

from .. import dtypes
from ..graph import Tensor
from ..tensor_shape import TensorShape
from .common import make_op
from .registry import InferError, OpDef, not_differentiable, register_op

__all__ = ["get_session_handle", "get_session_tensor", "delete_session_tensor",
           "SESSION_OPS"]

SESSION_OPS = ("GetSessionHandle", "GetSessionTensor", "DeleteSessionTensor")


def _check_handle(inputs, node) -> None:
    if inputs[0].dtype != dtypes.string:
        raise InferError(f"Op '{node}': the handle must be a string, got "
                         f"{inputs[0].dtype.name}.")


def _infer_handle(inputs, attrs, node):
    return dtypes.string, TensorShape([])


def _infer_tensor(inputs, attrs, node):
    _check_handle(inputs, node)
    return dtypes.as_dtype(attrs["dtype"]), TensorShape(None)


def _infer_delete(inputs, attrs, node):
    _check_handle(inputs, node)
    return None


register_op(OpDef("GetSessionHandle", _infer_handle, 1, stateful=True))
register_op(OpDef("GetSessionTensor", _infer_tensor, 1, stateful=True))
register_op(OpDef("DeleteSessionTensor", _infer_delete, 1, stateful=True, has_output=False))
not_differentiable(*SESSION_OPS)


def get_session_handle(data, name=None) -> Tensor:
    """A string tensor: the handle of ``data``'s value, kept in the session when the
    handle is fetched (the fetch is a ``TensorHandle``).  Raises TypeError (TF's) for a
    ``data`` that is no Tensor."""
    if not isinstance(data, Tensor):
        raise TypeError("`data` must be of type Tensor.")
    with data.graph.colocate_with(data):
        return make_op("GetSessionHandle", [data], name=name)          # T: the data's


def _handle_placeholder():
    from .state import placeholder

    return placeholder(dtypes.string)


def get_session_tensor(handle, dtype, name=None) -> tuple:
    """(a string placeholder, the tensor of type ``dtype`` stored under the handle fed
    into it).  ``handle`` is TF's argument (it picks the device there); devsession's
    session tensors live on the host."""
    del handle
    holder = _handle_placeholder()
    return holder, make_op("GetSessionTensor", [holder], {"dtype": dtypes.as_dtype(dtype)},
                           name=name)


def delete_session_tensor(handle, name=None) -> tuple:
    """(a string placeholder, the op that deletes the tensor stored under the handle fed
    into it)."""
    del handle
    holder = _handle_placeholder()
    return holder, make_op("DeleteSessionTensor", [holder], name=name)


def is_handle_fetch(tensor) -> bool:
    """Whether fetching ``tensor`` gives a ``TensorHandle`` (a GetSessionHandle output)."""
    return tensor.op.type == "GetSessionHandle"

