"""Elementwise fusion: a connected region of elementwise ops becomes one kernel.

A chain of k elementwise ops run one by one reads and writes k full arrays; fused into
one generated loop it reads its inputs once and writes its output once.  A region
grows from a root (an elementwise op, visited last to first) through producers that
are elementwise, on the same device, not fed, not fetched, and whose every consumer is
already in the region (so no intermediate needs to exist outside it); growth repeats
until nothing more joins, which also takes in diamonds (x feeding both a and b that
meet again).  float16 ops are left alone: fused float16 would round once instead of
per op and differ from the unfused result.

The region becomes a ``_FusedElementwise`` PlanOp producing the root's tensor, whose
``expression`` attribute is a program in the kernels' expression language
(``kernels/codegen/expressions.py``): one ``tN = ...`` line per member, inputs named
``i0..ik``; ``members`` and ``member_ops`` name the graph nodes it runs and their
types, in order, so that traces still report every node.  Broadcasting stays correct
because every leaf is broadcast to the region's output shape, which is the broadcast
of all the leaves.
"""

from __future__ import annotations

import ast
import functools

from ..kernels.codegen.expressions import ELEMENTWISE_OPS, expression_for
from ..kernels.codegen.frontend import parse
from .ir import PlanOp

__all__ = ["fuse_elementwise", "FUSED_OP"]

FUSED_OP = "_FusedElementwise"
_FUSIBLE = frozenset(ELEMENTWISE_OPS) | {"Cast"}


# strings: numpy objects, no generated loop; complex values: the host's numpy kernels
_NOT_FUSED_DTYPES = ("float16", "string", "complex64", "complex128")


def _fusible(op: PlanOp) -> bool:
    return (op.type in _FUSIBLE and len(op.outputs) == 1
            and op.outputs[0].dtype.name not in _NOT_FUSED_DTYPES
            and all(t.dtype.name not in _NOT_FUSED_DTYPES for t in op.inputs)
            and not _real_div_of_integers(op))


def _real_div_of_integers(op: PlanOp) -> bool:
    """TF's RealDiv of integers has no kernel: it stays alone, whose kernel raises."""
    return op.type == "RealDiv" and op.outputs[0].dtype.is_integer


def fuse_elementwise(ops: list[PlanOp], fed: set, protected: set, placements: dict) -> list:
    """The ops with each fusible region replaced by one op named after its root."""
    producer = {op.outputs[0]: op for op in ops if op.outputs}
    consumers: dict = {}
    for op in ops:
        for t in op.inputs:
            consumers.setdefault(t, []).append(op)
    position = {id(op): i for i, op in enumerate(ops)}
    region_of: dict = {}
    fused_for_root: dict = {}
    for root in reversed(ops):
        if id(root) in region_of or not _fusible(root):
            continue
        members = _grow(root, producer, consumers, fed, protected, placements, region_of)
        if len(members) < 2:
            continue
        members.sort(key=lambda op: position[id(op)])
        for op in members:
            region_of[id(op)] = root
        fused_for_root[id(root)] = _fused_op(root, members)
    out = []
    for op in ops:
        if id(op) in fused_for_root:
            out.append(fused_for_root[id(op)])
        elif id(op) not in region_of:
            out.append(op)
    return out


def _grow(root, producer, consumers, fed, protected, placements, region_of) -> list:
    members = [root]
    inside = {id(root)}
    device = placements[root.name].device
    changed = True
    while changed:
        changed = False
        for op in list(members):
            for t in op.inputs:
                p = producer.get(t)
                if (p is None or id(p) in inside or id(p) in region_of or t in fed
                        or t in protected or not _fusible(p)
                        or placements[p.name].device != device
                        or not all(id(c) in inside for c in consumers.get(t, ()))):
                    continue
                members.append(p)
                inside.add(id(p))
                changed = True
    return members


class _Rename(ast.NodeTransformer):
    def __init__(self, names: dict):
        self.names = names

    def visit_Name(self, node):
        if node.id in self.names:
            return ast.copy_location(ast.Name(self.names[node.id], ast.Load()), node)
        return node


@functools.lru_cache(maxsize=None)
def _with_slots(names: tuple, template: str) -> str:
    """``template`` parsed and unparsed once, its k-th input name replaced by the slot
    NUL k NUL that ``_fused_op`` fills in: a plan of thousands of fused members would
    otherwise parse and unparse the same few templates thousands of times."""
    slots = {name: f"\0{k}\0" for k, name in enumerate(names)}
    return ast.unparse(_Rename(slots).visit(parse(template, mode="eval")))


def _fused_op(root: PlanOp, members: list) -> PlanOp:
    value_name: dict = {}     # tensor -> name in the program
    leaves: list = []
    lines = []
    for k, op in enumerate(members):
        names, template = expression_for(op.type, op.attrs)
        text = _with_slots(tuple(names), template)
        for slot, t in enumerate(op.inputs[:len(names)]):
            if t not in value_name:
                value_name[t] = f"i{len(leaves)}"
                leaves.append(t)
            text = text.replace(f"\0{slot}\0", value_name[t])
        value_name[op.outputs[0]] = f"t{k}"
        lines.append(f"t{k} = {text}")
    lines.append(f"t{len(members) - 1}")
    return PlanOp(
        name=root.name, type=FUSED_OP, inputs=tuple(leaves), outputs=root.outputs,
        attrs={"expression": "\n".join(lines),
               "input_names": tuple(f"i{k}" for k in range(len(leaves))),
               "members": tuple(op.name for op in members),
               "member_ops": tuple(op.type for op in members)},
        device=root.device, control_inputs=(), source=root.source)
