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
        "wide/emb": partitioned_variable,    # ... or each part its slice (or a list of parts)
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
from ..ops.array_index import slice as array_slice
from ..ops.checkpoint_io import restore_v2
from ..ops.state import assign
from ..partitioned_variables import PartitionedVariable
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
        if isinstance(target, (list, tuple, PartitionedVariable)):
            pairs += part_pairs(list(target), tensor_name, shapes, ckpt_dir_or_file)
            continue
        variable = target if isinstance(target, Variable) else _variable_named(graph, store,
                                                                               target)
        if variable is not None:
            _check_shape(variable, tensor_name, shapes, ckpt_dir_or_file)
            pairs.append((variable, tensor_name))
            continue
        partitioned: dict = {}             # checkpoint name -> the parts that load it
        for relative, variable, full_name in _scope_pairs(store, tensor_name, target):
            if "/part_" in full_name and variable._get_save_slice_info() is not None:
                # a part of a partitioned variable: its slice of the whole, as TF cuts
                # the name at "/part_" and collects the parts
                whole = full_name[:full_name.rindex("/part_")]
                partitioned.setdefault(whole, []).append(variable)
                continue
            if full_name not in shapes:
                raise ValueError(f"Tensor {full_name} ({relative} in {tensor_name}) is not found "
                                 f"in {os.fspath(ckpt_dir_or_file)} checkpoint")
            _check_shape(variable, full_name, shapes, ckpt_dir_or_file)
            pairs.append((variable, full_name))
        for whole, parts in partitioned.items():
            pairs += part_pairs(parts, whole, shapes, ckpt_dir_or_file)
    if pairs:
        initialize_from(graph, prefix, pairs)


def part_pairs(parts: list, tensor_name: str, shapes: dict, where) -> list:
    """(part, tensor name, its slice) for each part of one partitioned variable, the
    checkpoint's tensor checked against the full shape: as TF, each part loads its slice
    of the tensor (``ValueError`` for parts of different variables)."""
    full_names = {part._get_save_slice_info().full_name if part._get_save_slice_info()
                  else None for part in parts}
    if None in full_names or len(full_names) != 1:
        raise ValueError(f"Slices must all be from the same tensor: "
                         f"{' != '.join(sorted(map(str, full_names)))}")
    info = parts[0]._get_save_slice_info()
    if tensor_name not in shapes:
        raise ValueError(f"Tensor {tensor_name} is not found in {os.fspath(where)} "
                         f"checkpoint {shapes}")
    if list(shapes[tensor_name]) != info.full_shape:
        raise ValueError(f"Shape of variable {info.full_name} ({info.full_shape}) doesn't "
                         f"match with shape of tensor {tensor_name} ({shapes[tensor_name]}) "
                         f"from checkpoint reader.")
    return [(part, tensor_name, part._get_save_slice_info()) for part in parts]


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


def initialize_from(graph, prefix: str, pairs: list) -> None:
    """Each variable's initializer now assigns its tensor, all read by one ``RestoreV2``
    (on the host, as TF places its restores on the CPU): the checkpoint is opened and
    checked once when the initializers run, not once per variable.  A pair's third item,
    a part's ``SaveSliceInfo``, slices the whole tensor read (``RestoreV2`` reads whole
    tensors)."""
    with graph.as_default(), name_scope(None), device("/cpu:0"):
        values = restore_v2(prefix, [pair[1] for pair in pairs], [""] * len(pairs),
                            [pair[0].dtype for pair in pairs],
                            name="checkpoint_initializer")
    for (variable, tensor_name, *part), value in zip(pairs, values):
        if part:
            value.set_shape(part[0].full_shape)
            with graph.as_default(), name_scope(variable.op.name + "/"), \
                    device("/cpu:0"):
                value = array_slice(value, part[0].var_offset, part[0].var_shape)
        value.set_shape(variable.shape)
        with graph.as_default(), name_scope(variable.op.name + "/"), device(variable.device):
            variable._initializer = assign(variable, value).op
        variable._initial_value = value
        _log.debug("Initialize variable %s from checkpoint %s with %s", variable.name, prefix,
                   tensor_name)
