"""The global step, as TF1's ``training_util``: one int64 variable named ``global_step``
in the graph's ``"global_step"`` collection (and ``"variables"``), never trained, that
``Optimizer.apply_gradients(..., global_step=gs)`` increments once per step."""

from __future__ import annotations

import logging

import numpy as np

from ..dtypes import int64
from ..graph import Tensor, control_dependencies, get_default_graph, name_scope
from ..ops.elementwise import add
from ..variables import GLOBAL_VARIABLES, Variable, global_variables

__all__ = ["GLOBAL_STEP", "get_global_step", "create_global_step",
           "get_or_create_global_step", "global_step", "step_read", "assert_global_step"]

GLOBAL_STEP = "global_step"
_log = logging.getLogger("devsession.train")


def get_global_step(graph=None):
    """The graph's global step variable, or None (also, as TF1's, with an error logged,
    when the collection holds several).  ``TypeError`` for a non-integer one."""
    graph = graph or get_default_graph()
    found = graph.get_collection(GLOBAL_STEP)
    if not found:
        found = [v for v in global_variables(graph=graph) if v.op.name == "global_step"]
    if not found:
        return None
    if len(found) > 1:              # TF1's: an error logged, no global step
        _log.error("Multiple tensors in global_step collection.")
        return None
    step = found[0]
    if not step.dtype.is_integer:
        raise TypeError(f"Existing 'global_step' ('{step.name}') does not have integer "
                        f"type: {step.dtype.name}.")
    return step


def create_global_step(graph=None) -> Variable:
    """Create the global step (0, int64); ``ValueError`` if the graph has one."""
    graph = graph or get_default_graph()
    if get_global_step(graph) is not None:
        raise ValueError('"global_step" already exists.')
    # As TF1's, a get_variable: the variable scope names it ("Model/global_step" in the
    # PTB tutorial's) and the device scope places it (under replica_device_setter on a
    # ps task, where every replica's steps count it).
    from ..initializers import zeros_initializer
    from ..variable_scope import get_variable

    with graph.as_default(), control_dependencies(None), name_scope(None):
        return get_variable(GLOBAL_STEP, shape=[], dtype=int64, trainable=False,
                            initializer=zeros_initializer(),
                            collections=[GLOBAL_VARIABLES, GLOBAL_STEP])


def get_or_create_global_step(graph=None) -> Variable:
    step = get_global_step(graph)
    return step if step is not None else create_global_step(graph)


STEP_READ_CACHE = "global_step_read_op_cache"    # TF1's collection of that name


def step_read(step):
    """``step + 0`` made once per graph (TF1's ``_get_or_create_global_step_read``): a
    copy of the step's value computed when the run reads it, so the step an update of
    that run makes does not show, where fetching the variable shows it."""
    graph = step.graph
    cached = graph.get_collection(STEP_READ_CACHE)
    if cached:
        return cached[0]
    with graph.as_default(), control_dependencies(None), name_scope(step.op.name + "/"):
        value = add(step, np.int64(0), name="add")
    graph.add_to_collection(STEP_READ_CACHE, value)
    return value


def global_step(sess, global_step_tensor) -> int:
    """The value of the global step, as a Python int (TF1's ``tf.train.global_step``)."""
    return int(sess.run(global_step_tensor))


def assert_global_step(global_step_tensor) -> None:
    """TF1's ``tf.train.assert_global_step``: ``TypeError`` unless ``global_step_tensor``
    is an integer scalar Variable or Tensor (an unknown shape passes, as TF's)."""
    if not isinstance(global_step_tensor, (Variable, Tensor)):
        raise TypeError(f'Existing "global_step" must be a Variable or Tensor: '
                        f'{global_step_tensor}.')
    if not global_step_tensor.dtype.base_dtype.is_integer:
        raise TypeError(f'Existing "global_step" does not have integer type: '
                        f'{global_step_tensor.dtype}')
    shape = global_step_tensor.get_shape()
    if shape.ndims != 0 and shape.is_fully_defined():
        raise TypeError(f'Existing "global_step" is not scalar: {shape}')
