"""TF1's ``tf.nn.raw_rnn``: a cell run in a ``while_loop`` that a ``loop_fn`` drives,
deciding each step's input, when each sequence is finished and what to emit (the
dynamic decoder of a seq2seq model is its example), TF's Python composition.

    (finished, next_input, state, emit_structure, loop_state) = loop_fn(0, None, None, None)
    while not all(finished):
        output, cell_state = cell(next_input, state)
        (next_finished, next_input, next_state, emit, loop_state) = loop_fn(
            time + 1, output, cell_state, loop_state)
        state = where(finished, state, next_state)      # a finished row keeps its state
        emit = where(finished, zeros, emit)             # and emits zeros
        emit_ta = emit_ta.write(time, emit)
        finished = finished | next_finished
    return emit_ta, state, loop_state

``emit_ta`` is a ``ds.TensorArray`` (or the nesting of them that ``emit_structure``,
or without one ``cell.output_size``, has): ``emit_ta.stack()`` is ``[time, batch,
...]``.  ``loop_state`` may carry tensors and TensorArrays; a ``None`` from the first
call is returned as ``None``.  The variables are TF1's (``rnn/lstm_cell/kernel``...):
a devsession loop body cannot create variables, so the cell is called once before
the loop, on the first input and state, in the same variable scope; that call makes
the variables the loop reads (captured, so their gradients flow out of it) and
nothing fetches it, so it never runs (``rnn.py``'s loop over unknown time does the
same).
"""

from __future__ import annotations

from . import dtypes
from .graph import Tensor, constant_value, convert_to_tensor
from .ops import concat, constant, expand_dims, zeros
from .ops import nest
from .ops.array_composites import select
from .ops.control_flow import while_loop
from .ops.elementwise import logical_not, logical_or
from .ops.reduce import reduce_all
from .tensor_array import TensorArray
from .tensor_shape import TensorShape
from .variable_scope import variable_scope

__all__ = ["raw_rnn", "assert_like_rnncell"]


def assert_like_rnncell(cell_name: str, cell) -> None:
    """TypeError, TF's message, unless ``cell`` has what an RNNCell has."""
    missing = [error for error, present in (
        ("'output_size' property is missing", hasattr(cell, "output_size")),
        ("'state_size' property is missing", hasattr(cell, "state_size")),
        ("either 'zero_state' or 'get_initial_state' method is required",
         hasattr(cell, "get_initial_state") or hasattr(cell, "zero_state")),
        ("is not callable", callable(cell))) if not present]
    if missing:
        raise TypeError(f"The argument {cell_name!r} ({cell}) is not an RNNCell: "
                        f"{', '.join(missing)}.")


def raw_rnn(cell, loop_fn, parallel_iterations=None, swap_memory=False, scope=None):
    """``(emit_ta, final_state, final_loop_state)`` of ``cell`` driven by ``loop_fn``
    (see the module docstring).  Raises TypeError for a ``cell`` that is no RNNCell or
    a ``loop_fn`` that is not callable; ValueError for inputs of different static
    batch sizes or a state without ``cell.state_size``'s structure."""
    assert_like_rnncell("cell", cell)
    if not callable(loop_fn):
        raise TypeError(f"Argument `loop_fn` must be a callable. Received: {loop_fn}.")
    with variable_scope(scope or "rnn"):
        time = constant(0, dtype=dtypes.int32)
        finished, next_input, initial_state, emit_structure, init_loop_state = loop_fn(
            time, None, None, None)
        loop_state = init_loop_state if init_loop_state is not None else \
            constant(0, dtype=dtypes.int32)
        next_input = _tensors(next_input)
        const_batch_size, batch_size = _batch_size(nest.flatten(next_input))
        nest.assert_same_structure(initial_state, cell.state_size)
        state = _tensors(initial_state)
        cell(next_input, state)        # makes the cell's variables; never runs
        emit_ta, zero_emit = _emit_arrays(cell, emit_structure, state, const_batch_size,
                                          batch_size)

        def condition(unused_time, elements_finished, *_):
            return logical_not(reduce_all(elements_finished))

        def body(time, elements_finished, current_input, emit_ta, state, loop_state):
            next_output, cell_state = cell(current_input, state)
            nest.assert_same_structure(state, cell_state)
            nest.assert_same_structure(cell.output_size, next_output)
            next_time = time + 1
            next_finished, next_input, next_state, emit_output, next_loop_state = loop_fn(
                next_time, next_output, cell_state, loop_state)
            nest.assert_same_structure(state, next_state)
            nest.assert_same_structure(current_input, next_input)
            nest.assert_same_structure(emit_ta, emit_output)
            loop_state = loop_state if next_loop_state is None else next_loop_state
            emit_output = _copy_some_through(elements_finished, zero_emit, emit_output)
            next_state = _copy_some_through(elements_finished, state, next_state)
            emit_ta = _pack(emit_ta, [ta.write(time, emit) for ta, emit in zip(
                nest.flatten(emit_ta), nest.flatten(emit_output))])
            return (next_time, logical_or(elements_finished, next_finished), next_input,
                    emit_ta, next_state, loop_state)

        returned = while_loop(condition, body,
                              [time, finished, next_input, emit_ta, state, loop_state],
                              parallel_iterations=parallel_iterations or 32,
                              swap_memory=swap_memory)
        emit_ta, final_state, final_loop_state = returned[-3:]
        return emit_ta, final_state, None if init_loop_state is None else final_loop_state


def _tensors(structure):
    """``structure`` with its leaves converted to tensors."""
    return _pack(structure, [convert_to_tensor(leaf) for leaf in nest.flatten(structure)])


def _pack(structure, flat):
    return nest.pack_sequence_as(structure, flat) if nest.is_nested(structure) else flat[0]


def _batch_size(flat_input):
    """``(the static batch size or None, the batch size as an int or a scalar
    tensor)`` of the inputs (their first dimension, which must agree)."""
    static = None
    for t in flat_input:
        dims = t.shape.dims
        size = dims[0] if dims else None
        if static is not None and size is not None and size != static:
            raise ValueError(f"Dimension {static} and {size} are not compatible")
        static = static if size is None else size
    if static is not None:
        return static, static
    from .ops.array_fill import shape

    return None, shape(flat_input[0])[0]


def _emit_arrays(cell, emit_structure, state, const_batch_size, batch_size):
    """The empty TensorArrays the loop writes and the zeros a finished row emits, in
    ``emit_structure``'s nesting (or ``cell.output_size``'s, of the state's dtype)."""
    if emit_structure is not None:
        flat = [convert_to_tensor(e) for e in nest.flatten(emit_structure)]
        sizes = [e.shape if e.shape.is_fully_defined() else _shape_of(e) for e in flat]
        flat_dtypes = [e.dtype for e in flat]
    else:
        emit_structure = cell.output_size
        sizes = nest.flatten(emit_structure)
        flat_dtypes = [nest.flatten(state)[0].dtype] * len(sizes)
    arrays = [TensorArray(dtype=dtype, dynamic_size=True, size=0,
                          element_shape=TensorShape([const_batch_size]).concatenate(
                              _static_shape(size)),
                          name=f"rnn_output_{i}")
              for i, (dtype, size) in enumerate(zip(flat_dtypes, sizes))]
    zero = [zeros(_concat(batch_size, size), dtype) for size, dtype in zip(sizes, flat_dtypes)]
    return _pack(emit_structure, arrays), _pack(emit_structure, zero)


def _shape_of(t):
    from .ops.array_fill import shape

    return shape(t)


def _static_shape(size) -> TensorShape:
    """A size (an int, a TensorShape, or a shape tensor) as a TensorShape: a tensor's
    value if the graph knows it, else of unknown rank (TF's
    ``_maybe_tensor_shape_from_tensor``)."""
    if isinstance(size, Tensor):
        value = constant_value(size)
        return TensorShape(None) if value is None else TensorShape([int(d) for d in value])
    return TensorShape(size if not isinstance(size, int) else [size])


def _concat(prefix, suffix):
    """The shape ``prefix + suffix`` as an int32 vector tensor (each an int, a
    TensorShape or a tensor; TF's ``rnn_cell_impl._concat``)."""
    def vector(part):
        if isinstance(part, Tensor):
            return expand_dims(part, 0) if part.shape.ndims == 0 else part
        dims = TensorShape(part if not isinstance(part, int) else [part])
        if not dims.is_fully_defined():
            raise ValueError(f"Provided a prefix or suffix of None: {prefix} and {suffix}")
        return constant(list(dims.as_list()), dtype=dtypes.int32)
    return concat([vector(prefix), vector(suffix)], 0)


def _copy_some_through(finished, current, candidate):
    """``candidate``, except where ``finished``: ``current`` (TensorArrays and scalars
    pass through as ``candidate``)."""
    def copy(cur, cand):
        if isinstance(cur, TensorArray) or cur.shape.ndims == 0:
            return cand
        return select(finished, cur, cand)     # TF1's where: whole rows
    return _pack(current, [copy(cur, cand) for cur, cand in zip(nest.flatten(current),
                                                                nest.flatten(candidate))])
