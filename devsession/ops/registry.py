"""The op registry: one ``OpDef`` per op type, the single place an op is described.

An ``OpDef`` says how many inputs an op takes, which of them are references to a
variable rather than values, and how its output dtype and static shape follow from its
inputs and attributes.  The graph builder calls ``infer`` when a node is created (so a
shape mismatch is a ``ValueError`` at build time), the GraphDef importer calls it again
on every imported node, and the optimizer reads the ``elementwise`` and ``stateful``
flags.  Adding an op is one ``register_op`` call plus its kernels, and, when it is
differentiable, a gradient function registered with ``register_gradient`` in the family's
``<family>_grad.py`` (as TF keeps ``math_grad.py`` beside ``math_ops.py``).

A gradient function ``grad(op, *output_grads) -> [input_grad, ...]`` builds graph nodes:
it gets the forward ``Operation`` and one gradient tensor per output of the op (None for
an output no gradient flows into), and returns one tensor per input (None where no
gradient flows: integer inputs, shapes, axes).  ``not_differentiable`` marks ops through
which no gradient flows at all (shapes, comparisons, argmax...).
"""

from __future__ import annotations

import dataclasses
import threading
from typing import Callable, Mapping, Sequence

from ..dtypes import DType
from ..tensor_shape import TensorShape

__all__ = ["OpDef", "InputSpec", "register_op", "get_op_def", "registered_ops", "InferError",
           "register_gradient", "not_differentiable", "get_gradient"]


@dataclasses.dataclass(frozen=True)
class InputSpec:
    """What ``infer`` sees of one input: its dtype, static shape and display name, and
    its value when the graph already determines it (a constant, the shape of a tensor
    whose shape is known...), so a shape given as a tensor can still be inferred; and
    the tensor itself, for what the graph knows of a value only in part (a shape vector
    ``[tf.shape(x)[0], 3]``: ``array_operands.shape_operand``)."""

    dtype: DType
    shape: TensorShape
    name: str
    value: object = None        # np.ndarray or None
    tensor: object = None       # the input Tensor


# infer(inputs, attrs, node_name) -> (dtype, shape) of the one output, a list of them for
# an op with several outputs, or None for an op without outputs
InferFn = Callable[[Sequence[InputSpec], Mapping[str, object], str], "tuple | list | None"]


class InferError(ValueError):
    """Raised by an infer function; the graph re-raises it as ValueError or TypeError."""


@dataclasses.dataclass(frozen=True)
class OpDef:
    """The description of an op type.

    ``num_inputs`` is an int, or None for a variadic op (ConcatV2).  ``ref_inputs`` are
    input positions that name a variable to mutate (Assign's first input) rather than
    read.  ``stateful`` ops are never folded, merged or pruned as duplicates.
    ``elementwise`` ops map inputs to outputs element by element with broadcasting,
    so regions of them can be fused into one kernel.  ``host_inputs`` are input
    positions a kernel reads on the host whatever its device (shapes, axes: TF's
    HostMemory inputs), so a GPU node gets them without a copy to the GPU.
    ``static_value(op, value_of)`` returns the op's output value when the graph alone
    determines it (``value_of(tensor)`` gives an input's static value or None), which
    lets later ops infer shapes given as tensors.  ``function_attrs`` name the attrs
    holding function bodies (``If``'s branches, ``While``'s cond and body: see
    ``function_graph.py``); such an op's kernel gets the runtime's function service as
    its ``KernelNode.context``, to plan and run them.  ``draws`` ops take random values
    from a stream: a cond or loop holding one records what it drew, so that its
    gradient computes with those very values (``ops/control_flow.py``).  ``blocks`` ops
    may wait for another step (a queue's enqueue and dequeue): a step running one is
    tracked, so that its deadline or closing its session ends the wait.
    """

    name: str
    infer: InferFn
    num_inputs: int | None
    attr_defaults: Mapping[str, object] = dataclasses.field(default_factory=dict)
    ref_inputs: tuple = ()
    stateful: bool = False
    elementwise: bool = False
    has_output: bool = True
    host_inputs: tuple = ()
    static_value: Callable | None = None
    function_attrs: tuple = ()
    draws: bool = False
    blocks: bool = False


_OPS: dict[str, OpDef] = {}
_LOCK = threading.Lock()


def register_op(op_def: OpDef) -> OpDef:
    """Add an op type; raises ``AlreadyExistsError`` if the name is taken."""
    from ..errors import AlreadyExistsError

    with _LOCK:
        if op_def.name in _OPS:
            raise AlreadyExistsError(f"Op type '{op_def.name}' is already registered.")
        _OPS[op_def.name] = op_def
    return op_def


def get_op_def(op_type: str) -> OpDef:
    """The OpDef for ``op_type``; raises ``NotFoundError`` naming it, with the closest
    known name (``registered_ops()`` lists them all: hundreds, too many for a message)."""
    try:
        return _OPS[op_type]
    except KeyError:
        from ..errors import NotFoundError
        import difflib

        close = difflib.get_close_matches(op_type, _OPS, n=1)
        hint = f" Did you mean '{close[0]}'?" if close else ""
        raise NotFoundError(
            f"Op type not registered '{op_type}' in devsession.{hint} "
            f"(ds.ops.registry.registered_ops() lists the {len(_OPS)} it has.)") from None


def registered_ops() -> frozenset[str]:
    return frozenset(_OPS)


_GRADIENTS: dict[str, Callable | None] = {}


def register_gradient(op_type: str):
    """Decorator registering the gradient function of ``op_type`` (see the module
    docstring); ``AlreadyExistsError`` if it has one."""
    def decorate(fn):
        _add_gradient(op_type, fn)
        return fn
    return decorate


def not_differentiable(*op_types: str) -> None:
    """Mark ops no gradient flows through (their inputs get None)."""
    for op_type in op_types:
        _add_gradient(op_type, None)


def _add_gradient(op_type: str, fn) -> None:
    from ..errors import AlreadyExistsError

    with _LOCK:
        if op_type in _GRADIENTS:
            raise AlreadyExistsError(f"Op type '{op_type}' already has a gradient.")
        _GRADIENTS[op_type] = fn


def get_gradient(op_type: str):
    """The gradient function of ``op_type``, or None for a non-differentiable op;
    ``LookupError`` (as TF raises) when the op has neither."""
    try:
        return _GRADIENTS[op_type]
    except KeyError:
        raise LookupError(f"No gradient defined for op type '{op_type}'.") from None
