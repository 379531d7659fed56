"""TF1's ``tf.nn.static_state_saving_rnn``: ``static_rnn`` whose initial state comes
from a state saver and whose final state goes back to it, TF's Python composition.

A state saver is any object with ``state(name) -> tensor`` and ``save_state(name,
value) -> op`` (TF1's was contrib's ``SequenceQueueingStateSaver``; variables that are
read and assigned do as well).  ``state_name`` is a name, or, for a cell whose
``state_size`` is nested (an LSTM's ``(c, h)``), a structure of names with as many
leaves.  The last output and the final state are ``identity``s that depend on every
``save_state``, so fetching either saves the state (TF's control dependencies).
"""

from __future__ import annotations

from .graph import control_dependencies
from .ops import identity, nest
from .rnn import static_rnn

__all__ = ["static_state_saving_rnn"]


def static_state_saving_rnn(cell, inputs, state_saver, state_name, sequence_length=None,
                            scope=None):
    """``(outputs, state)`` of ``static_rnn`` over ``inputs`` starting from the saved
    state (see the module docstring).  Raises ValueError when ``state_name`` is not
    nested as ``cell.state_size`` is, or has another number of names."""
    state_size = cell.state_size
    state_is_tuple = nest.is_nested(state_size)
    if state_is_tuple != nest.is_nested(state_name):
        raise ValueError(f"Argument `state_name` should be the same type as "
                         f"`cell.state_size`. Received: state_name={state_name!s}, "
                         f"cell.state_size={state_size!s}.")
    names = nest.flatten(state_name)
    if state_is_tuple:
        sizes = nest.flatten(state_size)
        if len(names) != len(sizes):
            raise ValueError(f"Number of elements in argument `state_name` and "
                             f"`cell.state_size` are mismatched. Received "
                             f"state_name={state_name} with {len(names)} elements and "
                             f"cell.state_size={state_size} with {len(sizes)} elements.")
        initial_state = nest.pack_sequence_as(state_size,
                                              [state_saver.state(n) for n in names])
    else:
        initial_state = state_saver.state(state_name)
    outputs, state = static_rnn(cell, inputs, initial_state=initial_state,
                                sequence_length=sequence_length, scope=scope)
    flat_state = nest.flatten(state)
    saves = [state_saver.save_state(name, part) for name, part in zip(names, flat_state)]
    with control_dependencies(saves):
        outputs[-1] = identity(outputs[-1])
        flat_state = [identity(part) for part in flat_state]
    return outputs, (nest.pack_sequence_as(state, flat_state) if state_is_tuple
                     else flat_state[0])
