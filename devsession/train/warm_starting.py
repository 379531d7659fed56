"""TF1's ``tf.train.warm_start`` and ``tf.train.VocabInfo``: fine-tuning a new model from a
checkpoint (devsession's or TensorFlow's), the variables' initializers made to load it, as
``init_from_checkpoint`` (``checkpoint_init.py``) does, but chosen by pattern:

    ds.train.warm_start("/runs/base")                        # every trainable variable
    ds.train.warm_start("/runs/base", vars_to_warm_start="enc/.*",
                        var_name_to_prev_var_name={"enc/w": "old_enc/w"},
                        var_name_to_vocab_info={"emb": ds.train.VocabInfo(
                            "new_vocab.txt", 6, num_oov_buckets=2,
                            old_vocab="old_vocab.txt")})

``vars_to_warm_start``: a regular expression over TRAINABLE_VARIABLES, a list of them
over GLOBAL_VARIABLES, a list of Variables, or None (only the VocabInfo ones).  The parts
of a partitioned variable are grouped by their full name and each loads its slice.

A ``VocabInfo`` remaps the rows (``axis=0``) or columns (``axis=1``) of a 2-D variable
from the old vocabulary file (one entry a line) to the new one, as TF's
``LoadAndRemapMatrix``: an entry of the new vocabulary found in the first
``old_vocab_size`` old entries takes that row of the checkpoint's tensor; the other cells
and the ``num_oov_buckets`` OOV rows (columns) come from ``backup_initializer`` (zeros by
default), called for the missing cells as one ``[n, 1]`` column in row-major order, as
TF's.  One difference: the vocabulary files are read at the call (TF reads them when the
initializer runs), so a missing file is an error at the call.

Errors as TF's: a name in ``var_name_to_prev_var_name`` or ``var_name_to_vocab_info``
that names no variable warm-started is ``ValueError``, as is a ``vars_to_warm_start`` of
another type.  TF2's object-based checkpoints (keys by object path) are not mapped.
"""

from __future__ import annotations

import collections
import logging

import numpy as np

from .. import dtypes
from ..graph import device, get_default_graph, name_scope
from ..graph_keys import GraphKeys, get_collection
from ..ops.array import concat, reshape
from ..ops.array_index import gather
from ..ops.checkpoint_io import restore_v2
from ..ops.state import assign
from ..partitioned_variables import PartitionedVariable
from ..variables import Variable
from .checkpoint_init import _check_shape, _checkpoint_file, initialize_from, part_pairs
from .checkpoint_reader import CheckpointReader

__all__ = ["VocabInfo", "warm_start"]

_log = logging.getLogger("devsession")


class VocabInfo(collections.namedtuple("VocabInfo", [
        "new_vocab", "new_vocab_size", "num_oov_buckets", "old_vocab", "old_vocab_size",
        "backup_initializer", "axis"])):
    """How a variable's rows (``axis=0``) or columns (``axis=1``) follow a vocabulary that
    changed between the checkpoint and the new model (see the module docstring)."""

    def __new__(cls, new_vocab, new_vocab_size, num_oov_buckets, old_vocab,
                old_vocab_size=-1, backup_initializer=None, axis=0):
        if axis not in (0, 1):
            raise ValueError(f"The only supported values for the axis argument are 0 and 1.  "
                             f"Provided axis: {axis}")
        return super().__new__(cls, new_vocab, new_vocab_size, num_oov_buckets, old_vocab,
                               old_vocab_size, backup_initializer, axis)


def warm_start(ckpt_to_initialize_from, vars_to_warm_start=".*", var_name_to_vocab_info=None,
               var_name_to_prev_var_name=None) -> None:
    """Make the chosen variables' initializers load them from the checkpoint (see the
    module docstring)."""
    _log.info("Warm-starting from: %s", ckpt_to_initialize_from)
    grouped = _grouped_variables(vars_to_warm_start)
    vocab_infos = var_name_to_vocab_info or {}
    renames = var_name_to_prev_var_name or {}
    prefix = _checkpoint_file(ckpt_to_initialize_from)
    shapes = CheckpointReader(prefix).get_variable_to_shape_map()
    graph = get_default_graph()
    pairs, count = [], 0
    for name, parts in grouped.items():
        tensor_name = renames.get(name) or name
        info = vocab_infos.get(name)
        if info:
            _warm_start_with_vocab(graph, parts, info, prefix, tensor_name, shapes)
        elif vars_to_warm_start:
            if len(parts) == 1:
                pairs.append(_whole_pair(parts[0], tensor_name, shapes,
                                         ckpt_to_initialize_from))
            else:
                pairs += part_pairs(parts, tensor_name, shapes, ckpt_to_initialize_from)
        else:
            continue
        count += 1
    if pairs:
        initialize_from(graph, prefix, pairs)
    _log.info("Warm-started %d variables.", count)
    for given, what in ((renames, "var_name_to_prev_var_name"),
                        (vocab_infos, "var_name_to_vocab_info")):
        unused = set(given) - set(grouped)
        if unused:
            raise ValueError(f"You provided the following variables in {what} that were not "
                             f"used: {unused}.  Perhaps you misspelled them?  Here is the list "
                             f"of viable variable names: {list(grouped)}")


def _grouped_variables(vars_to_warm_start) -> dict:
    """Full variable name: its variables (the parts of a partitioned one), as TF groups
    them."""
    if vars_to_warm_start is None or isinstance(vars_to_warm_start, str):
        variables = get_collection(GraphKeys.TRAINABLE_VARIABLES, scope=vars_to_warm_start)
    elif isinstance(vars_to_warm_start, list):
        if all(isinstance(v, str) for v in vars_to_warm_start):
            variables = [v for scope in vars_to_warm_start
                         for v in get_collection(GraphKeys.GLOBAL_VARIABLES, scope=scope)]
        elif all(isinstance(v, (Variable, PartitionedVariable)) for v in vars_to_warm_start):
            variables = [part for v in vars_to_warm_start
                         for part in (v if isinstance(v, PartitionedVariable) else [v])]
        else:
            raise ValueError(f"If `vars_to_warm_start` is a list, it must be all `Variable` "
                             f"or all `str`.  Given types are "
                             f"{[type(v) for v in vars_to_warm_start]}")
    else:
        raise ValueError(f"`vars_to_warm_start must be a `list` or `str`.  Given type is "
                         f"{type(vars_to_warm_start)}")
    grouped = {}
    for v in variables:
        info = v._get_save_slice_info()
        grouped.setdefault(info.full_name if info else v.op.name, []).append(v)
    return grouped


def _whole_pair(variable, tensor_name: str, shapes: dict, where) -> tuple:
    _check_shape(variable, tensor_name, shapes, where)
    return (variable, tensor_name)


# --- vocabulary remapping ---------------------------------------------------------------

def _warm_start_with_vocab(graph, parts: list, info: VocabInfo, prefix: str,
                           tensor_name: str, shapes: dict) -> None:
    """Each part's initializer: the checkpoint's matrix with its rows (or columns)
    re-ordered from the old vocabulary to the new, the rest from the backup initializer."""
    if not (info.new_vocab and info.new_vocab_size and prefix and info.old_vocab):
        raise ValueError("Invalid args: Must provide all of [current_vocab_path, "
                         "current_vocab_size, prev_ckpt, prev_vocab_path}.")
    if tensor_name not in shapes:
        raise ValueError(f"Tensor {tensor_name} is not found in {prefix} checkpoint {shapes}")
    old_shape = list(shapes[tensor_name])
    if len(old_shape) != 2:
        raise ValueError(f"Expected 2-dim shape, but received: {old_shape}")
    backup = info.backup_initializer or (lambda shape: np.zeros(shape, np.float32))
    old = _vocab_indices(info.old_vocab, info.old_vocab_size)
    new = _read_vocab(info.new_vocab)
    total_rows = sum(p.shape.as_list()[0] for p in parts)
    for part in parts:
        shape = part.shape.as_list()
        if len(shape) != 2:
            raise ValueError(f"Expected 2-dim shape, but received: {shape}")
        slice_info = part._get_save_slice_info()
        offset = slice_info.var_offset[0] if slice_info else 0
        if info.axis == 0:
            rows, oov_rows = info.new_vocab_size, info.num_oov_buckets
            cols, oov_cols = shape[1], 0
        else:
            rows, oov_rows = total_rows, 0
            cols, oov_cols = info.new_vocab_size, info.num_oov_buckets
            if shape[1] != cols + oov_cols:
                raise ValueError(f"Expected 2nd dim of shape to be new_col_vocab_size ({cols}) "
                                 f"+ num_col_oov_buckets ({oov_cols}) = {cols + oov_cols}, "
                                 f"but received shape: {shape}")
        if offset + shape[0] > rows + oov_rows:
            raise ValueError(f"Trying to initialize {shape[0]} additional rows after {offset} "
                             f"rows have already been initialized, which would exceed "
                             f"expected total row count of new_row_vocab_size ({rows}) + "
                             f"num_row_oov_buckets ({oov_rows}) = {rows + oov_rows}.")
        part_oov = min(shape[0], max(0, offset + shape[0] - rows))
        loaded = shape[0] - part_oov
        if info.axis == 0:
            row_map = _remapping(new, old, offset, loaded, info.new_vocab)
            col_map = np.arange(cols)
        else:
            row_map = np.arange(offset, offset + loaded)
            col_map = _remapping(new, old, 0, cols, info.new_vocab)
        with graph.as_default(), name_scope(part.op.name + "/"):
            value = _remapped(prefix, tensor_name, old_shape, row_map, col_map, backup)
            if part_oov:
                value = concat([value, backup([part_oov, cols])], 0)
            if oov_cols:
                value = concat([value, backup([shape[0], oov_cols])], 1)
            with device(part.device):
                part._initializer = assign(part, value).op
        part._initial_value = value


def _remapped(prefix, tensor_name, old_shape, row_map, col_map, backup):
    """``old[row_map[r], col_map[c]]`` where both are found (>= 0), else the next value
    of ``backup([missing, 1])``, row-major: TF's ``LoadAndRemapMatrix``, as a gather from
    the checkpoint's tensor flattened and the backup values after it."""
    found = (row_map[:, None] >= 0) & (col_map[None, :] >= 0)
    missing = int(found.size - found.sum())
    index = np.where(found, row_map[:, None] * old_shape[1] + col_map[None, :], 0)
    index[~found] = old_shape[0] * old_shape[1] + np.arange(missing)
    with device("/cpu:0"):
        old = restore_v2(prefix, [tensor_name], [""], [dtypes.float32],
                         name="checkpoint_initializer")[0]
        flat = concat([reshape(old, [-1]), reshape(backup([missing, 1]), [-1])], 0)
        return reshape(gather(flat, index.reshape(-1).astype(np.int64)),
                       [len(row_map), len(col_map)])


def _read_vocab(path) -> list:
    with open(path, encoding="utf-8") as f:
        return [line.rstrip("\n").rstrip("\r") for line in f]


def _vocab_indices(path, size: int) -> dict:
    """The old vocabulary's entry: its line, over its first ``size`` lines (all: -1)."""
    words = _read_vocab(path)
    if size is not None and size >= 0:
        words = words[:size]
    return {word: i for i, word in reversed(list(enumerate(words)))}


def _remapping(new: list, old: dict, offset: int, count: int, path) -> np.ndarray:
    """For the new vocabulary's entries ``offset .. offset+count``, their old line or -1."""
    if offset + count > len(new):
        raise ValueError(f"Number of new vocab entries found in {path} ({len(new)}) is "
                         f"less than offset ({offset}) + num_new_vocab ({count})")
    return np.array([old.get(word, -1) for word in new[offset:offset + count]], np.int64)
