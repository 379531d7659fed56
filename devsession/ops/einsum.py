"""``einsum``: TF1's ``tf.einsum(equation, *inputs)``, built from the ops devsession has
(reductions, transposes, reshapes and one MatMul per pair of operands), so its
gradient, fusion and kernels come with them.

Operands are contracted left to right.  For each pair, indices of one operand that
nothing later needs are summed away first; then the indices both share and the output
keeps are *batch* dimensions, those both share and nothing keeps are *contracted*, and
the rest are each side's free dimensions: ``a`` is transposed to (batch, free,
contracted) and ``b`` to (batch, contracted, free), each reshaped to three dimensions,
multiplied by one batched MatMul and reshaped back.  A last transpose puts the result
in the output's order.

Equations as numpy's: ``"ij,jk->ik"``, or implicit (``"ij,jk"``: the indices that appear
once, sorted).  An ellipsis (``"...ij,...jk->...ik"``) stands for the dimensions its
operand has beyond its letters (its rank must be known when the graph is built): each is
given letters of its own, aligned right across the operands, and a dimension of size 1
against a larger one is broadcast (squeezed from that operand, when the graph knows
both sizes), as numpy and TF do; implicit output puts them first.  An index repeated
within one operand (``"ii->i"``, ``"bii->b"``) takes the diagonal of those axes first
(``matrix_diag_part``), so a trace is that diagonal summed away as any index nothing
keeps.  Sizes of an index that differ (between operands, or where one operand repeats
it) are a ValueError when the graph knows them; an output repeating an index is one too,
as in TF.  An operand of unknown rank (without an ellipsis) takes the rank of its
subscripts, checked when run (an ``EnsureShape``): another rank fed is TF's
``InvalidArgumentError``, not a sum over the wrong axes.
"""

from __future__ import annotations

from ..graph import Tensor, convert_to_tensor, name_scope
from .array import reshape, squeeze, stack, transpose
from .array_fill import shape as shape_of
from .array_shapes import ensure_shape
from .common import graph_of
from .diagonals import matrix_diag_part
from .linalg import matmul
from .reduce import reduce_prod, reduce_sum

__all__ = ["einsum"]


def einsum(equation: str, *inputs, name=None) -> Tensor:
    """``equation`` (``"ij,jk->ik"``) applied to ``inputs`` (see the module docstring)."""
    graph = graph_of(*inputs)
    with name_scope(name or "einsum"):
        tensors = [convert_to_tensor(x, graph=graph) for x in inputs]
        written = equation
        if "." in equation:
            equation, tensors = _expand_ellipses(equation, tensors)
        subscripts, output = _parse(equation, len(inputs), written)
        for k, (t, indices) in enumerate(zip(tensors, subscripts)):
            if t.shape.ndims is None:       # TF's Einsum checks the rank fed, when run
                t = ensure_shape(t, [None] * len(indices))
            tensors[k], subscripts[k] = _diagonals(t, indices, written)
        sizes = _sizes(subscripts, tensors)
        value, indices = tensors[0], subscripts[0]
        for k in range(1, len(tensors)):
            later = set(output).union(*subscripts[k + 1:])
            value, indices = _contract(value, indices, tensors[k], subscripts[k], later,
                                       sizes)
        value, indices = _sum_away(value, indices, set(output))
        if indices != output:
            value = transpose(value, [indices.index(i) for i in output])
        return value


def _expand_ellipses(equation: str, tensors: list):
    """(the equation with each ``...`` spelled as letters of its own, the operands with
    their broadcast axes of size 1 squeezed); see the module docstring."""
    equation = equation.replace(" ", "")
    given, arrow, output = equation.partition("->")
    subscripts = given.split(",")
    if len(subscripts) != len(tensors) or any(
            part.replace("...", "", 1).count(".") for part in subscripts + [output]):
        return equation, tensors       # _parse says what is wrong
    counts = []
    for part, t in zip(subscripts, tensors):
        if "..." not in part:
            counts.append(0)
        elif t.shape.ndims is None:
            raise ValueError(f"einsum: '...' in {part!r} needs the rank of operand "
                             f"'{t.name}' known when the graph is built, in {equation!r}.")
        else:
            counts.append(t.shape.ndims - (len(part) - 3))
            if counts[-1] < 0:
                raise ValueError(f"einsum: operand '{t.name}' has rank {t.shape.ndims}, "
                                 f"fewer than the letters of {part!r}.")
    spare = [c for c in "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
             if c not in equation]
    broadcast = "".join(spare[:max(counts)])
    subscripts = [part.replace("...", broadcast[len(broadcast) - n:]) if "..." in part
                  else part for part, n in zip(subscripts, counts)]
    if not arrow:
        letters = "".join(subscripts)
        output = broadcast + "".join(sorted(i for i in set(letters) - set(broadcast)
                                            if letters.count(i) == 1))
    elif "..." in output:
        output = output.replace("...", broadcast)
    elif broadcast:
        raise ValueError(f"einsum: the output of {equation!r} has no '...' for the "
                         f"dimensions the operands' '...' stand for.")
    subscripts, tensors = _squeeze_broadcast(subscripts, list(tensors), set(broadcast))
    return ",".join(subscripts) + "->" + output, tensors


def _squeeze_broadcast(subscripts, tensors, broadcast: set):
    """Axes of size 1 that an ellipsis letter has where another operand's is larger,
    squeezed away (that operand then simply lacks the index)."""
    largest: dict = {}
    for part, t in zip(subscripts, tensors):
        for axis, index in enumerate(part):
            size = t.shape.dims[axis]
            if index in broadcast and size is not None:
                largest[index] = max(largest.get(index, 1), size)
    for k, (part, t) in enumerate(zip(subscripts, tensors)):
        axes = [axis for axis, index in enumerate(part)
                if t.shape.dims[axis] == 1 and largest.get(index, 1) > 1]
        if axes:
            tensors[k] = squeeze(t, axis=axes)
            subscripts[k] = "".join(i for axis, i in enumerate(part) if axis not in axes)
    return subscripts, tensors


def _parse(equation: str, count: int, written: str):
    """(subscripts, output) of ``equation``; errors quote the equation as ``written``."""
    equation = equation.replace(" ", "")
    if "." in equation:
        raise ValueError(f"einsum: a '.' is only allowed as one '...' per operand, in "
                         f"{written!r}.")
    given, arrow, output = equation.partition("->")
    subscripts = given.split(",")
    if len(subscripts) != count:
        raise ValueError(f"einsum: {written!r} names {len(subscripts)} operands, but "
                         f"{count} were given.")
    letters = "".join(subscripts)
    if not arrow:
        output = "".join(sorted(i for i in set(letters) if letters.count(i) == 1))
    for part in subscripts + [output]:
        if not part.isalpha() and part:
            raise ValueError(f"einsum: subscripts are letters, got {part!r} in "
                             f"{written!r}.")
    if len(set(output)) != len(output):
        raise ValueError(f"einsum: the output subscripts {output!r} repeat an index, in "
                         f"{written!r}.")
    missing = set(output) - set(letters)
    if missing:
        raise ValueError(f"einsum: output index {sorted(missing)} of {written!r} appears "
                         f"in no operand.")
    return subscripts, output


def _diagonals(value, indices: str, written: str):
    """(``value`` with the axes of each index it repeats replaced by their diagonal, the
    indices it has then, each once)."""
    while len(set(indices)) != len(indices):
        if value.shape.ndims is not None and value.shape.ndims != len(indices):
            raise ValueError(f"einsum: operand '{value.name}' has rank {value.shape.ndims} "
                             f"but subscripts {indices!r}.")
        index = next(i for i in indices if indices.count(i) > 1)
        first = indices.index(index)
        second = indices.index(index, first + 1)
        dims = value.shape.dims or [None] * len(indices)
        if None not in (dims[first], dims[second]) and dims[first] != dims[second]:
            raise ValueError(f"einsum: index {index!r} repeated in {indices!r} has sizes "
                             f"{dims[first]} and {dims[second]}, in {written!r}.")
        rest = [axis for axis in range(len(indices)) if axis not in (first, second)]
        order = rest + [first, second]
        if order != list(range(len(indices))):
            value = transpose(value, order)
        value = matrix_diag_part(value)
        indices = "".join(indices[axis] for axis in rest) + index
    return value, indices


def _sizes(subscripts, tensors) -> dict:
    """index -> a static size (or a size tensor); ValueError for ranks or sizes that
    disagree."""
    static: dict = {}
    dynamic: dict = {}
    for indices, t in zip(subscripts, tensors):
        if t.shape.ndims is not None and t.shape.ndims != len(indices):
            raise ValueError(f"einsum: operand '{t.name}' has rank {t.shape.ndims} but "
                             f"subscripts {indices!r}.")
        for axis, index in enumerate(indices):
            size = t.shape.dims[axis] if t.shape.ndims is not None else None
            if size is not None:
                if static.setdefault(index, size) != size:
                    raise ValueError(f"einsum: index {index!r} has sizes {static[index]} "
                                     f"and {size}.")
            else:
                dynamic.setdefault(index, shape_of(t)[axis])
    return {index: static.get(index, dynamic.get(index)) for index in {*static, *dynamic}}


def _sum_away(value, indices: str, keep: set):
    """``value`` with the axes of indices not in ``keep`` summed."""
    axes = [axis for axis, i in enumerate(indices) if i not in keep]
    if not axes:
        return value, indices
    return reduce_sum(value, axis=axes), "".join(i for i in indices if i in keep)


def _contract(a, sa: str, b, sb: str, later: set, sizes: dict):
    a, sa = _sum_away(a, sa, later | set(sb))
    b, sb = _sum_away(b, sb, later | set(sa))
    batch = [i for i in sa if i in sb and i in later]
    summed = [i for i in sa if i in sb and i not in later]
    left = [i for i in sa if i not in sb]
    right = [i for i in sb if i not in sa]
    a3 = _grouped(a, sa, [batch, left, summed], sizes)
    b3 = _grouped(b, sb, [batch, summed, right], sizes)
    product = matmul(a3, b3)
    indices = batch + left + right
    return reshape(product, _dims(indices, sizes)), "".join(indices)


def _grouped(value, indices: str, groups, sizes: dict):
    """``value`` transposed to the order of ``groups`` and reshaped to one dimension
    per group."""
    order = [i for group in groups for i in group]
    if list(indices) != order:
        value = transpose(value, [indices.index(i) for i in order])
    return reshape(value, [_product(group, sizes) for group in groups])


def _product(group, sizes: dict):
    values = [sizes[i] for i in group]
    if all(isinstance(v, int) for v in values):
        total = 1
        for v in values:
            total *= v
        return total
    return reduce_prod(stack([v if not isinstance(v, int) else convert_to_tensor(v)
                              for v in values]))


def _dims(indices, sizes: dict) -> list:
    return [sizes[i] for i in indices]
