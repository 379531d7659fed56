"""Control inputs that keep a training graph's variable reads before its updates, in
TensorFlow's executor as in devsession's, for ``tf_export.py``.

devsession's kernels read a variable as a snapshot: ``w/read`` holds ``w``'s value as it
was when the read ran.  In TensorFlow an ``Identity`` of a reference variable (and a
``Reshape``... of it) is the variable's own buffer, which ``ApplyAdam`` then changes in
place; an op reading it sees the value as it is when *that op* runs.  So in a training
step the gradient ``MatMul`` reading ``w2/read`` (for the layer below) may run after
``w2``'s update and compute with the new ``w2``.  TF1's optimizers keep it from happening
with ``gate_gradients=GATE_OP`` (each op's input gradients released together, through
``tuple``s devsession's gradients do not build); the export says it directly instead:

``reads_before_writes(graph)`` gives, per op that changes a variable (a ref input, as
``Apply*``, ``Assign*``, ``Scatter*``), the ops reading that variable's buffer (through
``Identity``-like ops, which alias it in TF) that must run first: those that neither
depend on the update nor precede it already, but share a descendant with it (the train
op: they run in the same step).  A read no run needs beside the update (a Saver's, a
summary's) gets no edge, which would make every update run it.  Reads and updates whose
order cannot be kept (a cycle) are ``UnimplementedError`` naming the update.
"""

from __future__ import annotations

from .errors import UnimplementedError
from .ops.registry import get_op_def

__all__ = ["reads_before_writes"]

# ops whose output is their input's buffer in TF (so reading it reads the variable)
_ALIASES = frozenset({"Identity", "_ReadVariable", "Reshape", "Squeeze", "ExpandDims",
                      "StopGradient", "PreventGradient", "Snapshot"})
# ops with a ref input that leave the variable as it is
_READS_ONLY = frozenset({"_ReadVariable", "IsVariableInitialized"})


def reads_before_writes(graph) -> dict:
    """``{update op name: [reader op names]}``: the control inputs to add (see the module
    docstring)."""
    ops = graph.get_operations()
    index = {op: k for k, op in enumerate(ops)}
    descendants = _descendants(ops, index)
    uses: dict = {}                                  # tensor -> [(op, input index)]
    for op in ops:
        for i, t in enumerate(op.inputs):
            uses.setdefault(t, []).append((op, i))
    edges: dict = {}
    for variable in ops:
        if not _is_variable(variable):
            continue
        readers, writers = _readers_and_writers(variable, uses)
        for writer in writers:
            w = index[writer]
            for reader in readers:
                r = index[reader]
                if reader is writer or descendants[w] >> r & 1 or descendants[r] >> w & 1:
                    continue
                if descendants[r] & descendants[w]:
                    edges.setdefault(writer.name, []).append(reader.name)
    _check_acyclic(ops, edges)
    return edges


def _is_variable(op) -> bool:
    return op.type in ("VariableV2", "Variable") and len(op.outputs) == 1


def _readers_and_writers(variable, uses: dict) -> tuple:
    """The ops reading ``variable``'s buffer by value, through aliasing ops, and the ops
    changing it (``uses``: each tensor's consumers and the input it is to them)."""
    readers, writers, tensors = [], [], [variable.outputs[0]]
    while tensors:
        tensor = tensors.pop()
        for consumer, at in uses.get(tensor, ()):
            ref = at in get_op_def(consumer.type).ref_inputs
            if ref and consumer.type not in _READS_ONLY and tensor.op is variable:
                if consumer not in writers:
                    writers.append(consumer)
            elif consumer.type in _ALIASES and consumer.outputs:
                tensors.append(consumer.outputs[0])
            elif consumer not in readers:
                readers.append(consumer)
    return readers, writers


def _descendants(ops, index) -> list:
    """Per op (by index), a bit set of the ops depending on it (itself included)."""
    consumers = [set() for _ in ops]
    for op in ops:
        for t in op.inputs:
            consumers[index[t.op]].add(index[op])
        for c in op.control_inputs:
            consumers[index[c]].add(index[op])
    bits = [0] * len(ops)
    for k in _topological(len(ops), consumers)[::-1]:
        value = 1 << k
        for c in consumers[k]:
            value |= bits[c]
        bits[k] = value
    return bits


def _topological(n: int, consumers: list) -> list:
    pending = [0] * n
    for outs in consumers:
        for c in outs:
            pending[c] += 1
    ready = [k for k in range(n) if not pending[k]]
    order = []
    while ready:
        k = ready.pop()
        order.append(k)
        for c in consumers[k]:
            pending[c] -= 1
            if not pending[c]:
                ready.append(c)
    return order


def _check_acyclic(ops, edges: dict) -> None:
    if not edges:
        return
    index = {op.name: k for k, op in enumerate(ops)}
    consumers = [set() for _ in ops]
    for op in ops:
        for t in op.inputs:
            consumers[index[t.op.name]].add(index[op.name])
        for c in op.control_inputs:
            consumers[index[c.name]].add(index[op.name])
    for writer, readers in edges.items():
        for reader in readers:
            consumers[index[reader]].add(index[writer])
    if len(_topological(len(ops), consumers)) < len(ops):
        writer = sorted(edges)[0]
        raise UnimplementedError(
            f"Node '{writer}': the graph reads and changes variables in an order "
            f"TensorFlow's executor cannot be made to keep (each read first would make a "
            f"cycle).", writer)
