"""TF1's ``tf.train.init_from_checkpoint``: variables whose initializers load them from a
checkpoint, the way fine-tuning scripts start from weights trained elsewhere (by
TensorFlow or by devsession).  Nothing is read when it is called: each variable's
initializer becomes an ``Assign`` of an output of one ``RestoreV2`` per call
(``ops/checkpoint_io.py``; TF makes one per variable, which would open and check the
checkpoint once per variable here), so ``global_variables_initializer()`` reads the
checkpoint when it runs, as in TF.

``assignment_map`` keys name tensors of the checkpoint, values the graph's variables:

    ds.train.init_from_checkpoint("/runs/base", {
        "encoder/": "model/encoder/",        # every variable under a scope, by its rest
        "head/w": "model/head/w",            # one tensor into one variable (by name)
        "emb": embedding_variable,           # ... or into a Variable object
        "/": "pretrained/",                  # the checkpoint's root into a scope
    })

As TF, a scope mapping covers the variables ``get_variable`` made (the layers' kernels
and biases); a name mapping takes those first, then any global variable of that name.
Errors, at the call as TF's: a tensor the checkpoint lacks, a shape that differs, or a
scope mapped to a variable's name is ``ValueError``; a missing checkpoint is
``NotFoundError`` (a directory without one: ``ValueError``, as TF's ``load_checkpoint``).
"""

from __future__ import annotations

import logging
import os

from ..graph import device, get_default_graph, name_scope
from ..ops.checkpoint_io import restore_v2
from ..ops.state import assign
from ..tensor_shape import TensorShape
from ..variable_scope import _store
from ..variables import Variable, global_variables
from .checkpoint_reader import CheckpointReader
from .saver import latest_checkpoint

__all__ = ["init_from_checkpoint", "load_checkpoint"]

_log = logging.getLogger("devsession")


def load_checkpoint(ckpt_dir_or_file) -> CheckpointReader:
    """TF1's ``tf.train.load_checkpoint``: a reader of a checkpoint prefix, or of the
    latest checkpoint of a directory."""
    return CheckpointReader(_checkpoint_file(ckpt_dir_or_file))


def init_from_checkpoint(ckpt_dir_or_file, assignment_map) -> None:
    """Make the mapped variables' initializers load them from the checkpoint (see the
    module docstring)."""
    prefix = _checkpoint_file(ckpt_dir_or_file)
    shapes = CheckpointReader(prefix).get_variable_to_shape_map()
    graph = get_default_graph()
    store = _store(graph)["variables"]
    pairs = []                              # (variable, checkpoint tensor name)
    for tensor_name, target in sorted(assignment_map.items(), key=lambda kv: kv[0]):
        variable = target if isinstance(target, Variable) else _variable_named(graph, store,
                                                                               target)
        if variable is not None:
            _check_shape(variable, tensor_name, shapes, ckpt_dir_or_file)
            pairs.append((variable, tensor_name))
            continue
        for relative, variable, full_name in _scope_pairs(store, tensor_name, target):
            if full_name not in shapes:
                raise ValueError(f"Tensor {full_name} ({relative} in {tensor_name}) is not found "
                                 f"in {os.fspath(ckpt_dir_or_file)} checkpoint")
            _check_shape(variable, full_name, shapes, ckpt_dir_or_file)
            pairs.append((variable, full_name))
    if pairs:
        _initialize_from(graph, prefix, pairs)


def _checkpoint_file(ckpt_dir_or_file) -> str:
    path = os.fspath(ckpt_dir_or_file)
    if os.path.isdir(path):
        latest = latest_checkpoint(path)
        if latest is None:
            raise ValueError(f"Couldn't find 'checkpoint' file or checkpoints in given "
                             f"directory {path}")
        return latest
    return path


def _variable_named(graph, store: dict, name) -> Variable | None:
    if not isinstance(name, str):
        raise TypeError(f"init_from_checkpoint: an assignment_map value is a variable's or a "
                        f"scope's name or a Variable, got {type(name).__name__}.")
    name = name[:-2] if name.endswith(":0") else name
    if name in store:
        return store[name]
    with graph.as_default():
        return next((v for v in global_variables() if v.op.name == name), None)


def _scope_pairs(store: dict, tensor_name: str, target: str) -> list:
    """(name within the scope, variable, checkpoint name) for each variable
    ``get_variable`` made under scope ``target``, as TF pairs them."""
    scope = target[:target.rindex("/")] if "/" in target else ""
    if not tensor_name.endswith("/"):
        raise ValueError(f"Assignment map with scope only name {scope} should map to scope "
                         f"only {tensor_name}. Should be 'scope/': 'other_scope/'.")
    pairs = []
    for name in sorted(store):
        if scope and not name.startswith(scope + "/"):
            continue
        full_name = name[len(scope):]
        if target != "/":
            full_name = full_name[1:]
        if tensor_name != "/":
            full_name = tensor_name + full_name
        pairs.append((name[len(scope) + 1:] if scope else name, store[name],
                      full_name.rstrip("/")))
    return pairs


def _check_shape(variable: Variable, tensor_name: str, shapes: dict, where) -> None:
    if tensor_name not in shapes:
        raise ValueError(f"Tensor {tensor_name} is not found in {os.fspath(where)} "
                         f"checkpoint {shapes}")
    if not variable.shape.is_compatible_with(TensorShape(shapes[tensor_name])):
        raise ValueError(f"Shape of variable {variable.name} ({variable.shape}) doesn't match "
                         f"with shape of tensor {tensor_name} ({shapes[tensor_name]}) from "
                         f"checkpoint reader.")


def _initialize_from(graph, prefix: str, pairs: list) -> None:
    """Each variable's initializer now assigns its tensor, all read by one ``RestoreV2``
    (on the host, as TF places its restores on the CPU): the checkpoint is opened and
    checked once when the initializers run, not once per variable."""
    with graph.as_default(), name_scope(None), device("/cpu:0"):
        values = restore_v2(prefix, [name for _, name in pairs], [""] * len(pairs),
                            [variable.dtype for variable, _ in pairs],
                            name="checkpoint_initializer")
    for (variable, tensor_name), value in zip(pairs, values):
        value.set_shape(variable.shape)
        with graph.as_default(), name_scope(variable.op.name + "/"), device(variable.device):
            variable._initializer = assign(variable, value).op
        variable._initial_value = value
        _log.debug("Initialize variable %s from checkpoint %s with %s", variable.name, prefix,
                   tensor_name)
