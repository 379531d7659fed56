"""TF's object-based checkpoints in graph mode: ``tf.compat.v1.train.Checkpoint``, its
restore statuses, and ``CheckpointOptions`` (``CheckpointManager`` is in
``checkpoint_manager.py``).

    ckpt = ds.train.Checkpoint(model=model, optimizer=opt)
    path = ckpt.save("/runs/ckpt", session=sess)        # "/runs/ckpt-1"
    status = ckpt.restore(path)
    status.assert_consumed().run_restore_ops(sess)

The files are TensorFlow's: a tensor bundle (``tf_checkpoint_writer.py``) holding each
value under its object-graph key (``model/layer/kernel/.ATTRIBUTES/VARIABLE_VALUE``,
``save_counter/...``, slots under ``.OPTIMIZER_SLOT``; ``object_graph.py``) and the
serialized ``TrackableObjectGraph`` under ``_CHECKPOINTABLE_OBJECT_GRAPH``, so
TensorFlow restores what devsession saves and the other way round.

Saving reads the values with one ``session.run``; the bundle is written in Python.
``restore`` reads the checkpoint's object graph at once (a missing checkpoint is
``NotFoundError``, as TF's) and matches objects lazily: ``run_restore_ops`` and
``initialize_or_restore`` match what exists when they run (slots made after the
restore included) and assign the values through cached placeholders, one run.  The
assertions are TF's, with TF's ``AssertionError`` messages.
"""

from __future__ import annotations

import os

import numpy as np

from .. import dtypes
from ..errors import InvalidArgumentError, NotFoundError
from ..graph import control_dependencies, device, name_scope
from ..ops.state import assign, placeholder
from ..session import get_default_session
from ..variables import Variable
from . import object_graph
from .saver import _as_op_errors, _write_state, checkpoint_exists
from .tf_checkpoint import TFCheckpoint, is_tf_checkpoint
from .tf_checkpoint_writer import write_tf_checkpoint

__all__ = ["Checkpoint", "CheckpointOptions", "CheckpointLoadStatus",
           "InitializationOnlyStatus"]


class CheckpointOptions:
    """TF's ``tf.train.CheckpointOptions``: accepted; devsession writes and reads on the
    host whatever ``experimental_io_device`` says."""

    def __init__(self, experimental_io_device=None, experimental_enable_async_checkpoint=False,
                 experimental_write_callbacks=None, enable_async=False,
                 experimental_skip_slot_variables=False, experimental_sharding_callback=None):
        self.experimental_io_device = experimental_io_device
        self.experimental_enable_async_checkpoint = experimental_enable_async_checkpoint
        self.experimental_write_callbacks = experimental_write_callbacks
        self.enable_async = enable_async
        self.experimental_skip_slot_variables = experimental_skip_slot_variables
        self.experimental_sharding_callback = experimental_sharding_callback


# Values a Checkpoint cannot hold (devsession has no Trackable base: anything else that
# holds variables is walked as a container, see object_graph.py)
_NOT_TRACKABLE = (int, float, complex, str, bytes, type(None), np.ndarray, np.generic)


def _session(session):
    if session is None:
        session = get_default_session()
    if session is None:
        raise ValueError("Checkpoint in graph mode needs a session: pass session= or run "
                         "inside `with sess.as_default():`.")
    return session


class Checkpoint:
    """TF1's ``tf.compat.v1.train.Checkpoint(**kwargs)``: the root of an object graph
    whose children are ``kwargs`` (sorted by name, as TF's), then ``save_counter`` and any
    attribute set later."""

    def __init__(self, **kwargs):
        object.__setattr__(self, "_children", {})
        object.__setattr__(self, "_save_counter", None)
        object.__setattr__(self, "_save_assign", None)
        object.__setattr__(self, "_restorer", _Restorer())
        for name, value in sorted(kwargs.items()):
            if isinstance(value, _NOT_TRACKABLE):
                raise ValueError(
                    f"`Checkpoint` was expecting a trackable object (an object derived from "
                    f"`Trackable`), got {value}. If you believe this object should be "
                    f"trackable (i.e. it is part of the TensorFlow Python API and manages "
                    f"state), please open an issue.")
            setattr(self, name, value)

    def __setattr__(self, name, value):
        """Attributes set later are tracked too (TF's AutoTrackable), plain values not."""
        if not name.startswith("_") and not isinstance(value, _NOT_TRACKABLE):
            self._children[name] = value
        object.__setattr__(self, name, value)

    def _trackable_children(self) -> list:
        return list(self._children.items())

    @property
    def save_counter(self) -> Variable:
        """The number of ``save`` calls, an int64 variable made on first use (TF's)."""
        if self._save_counter is None:
            with control_dependencies(None), device("/cpu:0"):     # as TF's
                counter = Variable(np.int64(0), name="save_counter", dtype=dtypes.int64,
                                   trainable=False)
            object.__setattr__(self, "_save_counter", counter)
            self._children["save_counter"] = counter
        return self._save_counter

    def write(self, file_prefix, session=None, options=None) -> str:
        """Write the checkpoint at ``file_prefix`` (no counter, no state file), making its
        directory if need be, as TF does."""
        file_prefix = os.fspath(file_prefix)
        session = _session(session)
        graph, variables = object_graph.serialize(self)
        keys = list(variables)
        values = session.run([variables[k].value() for k in keys]) if keys else []
        tensors = dict(zip(keys, values))
        tensors[object_graph.OBJECT_GRAPH_KEY] = graph.SerializeToString()
        directory = os.path.dirname(os.path.abspath(file_prefix))
        with _as_op_errors(file_prefix):
            os.makedirs(directory, exist_ok=True)        # as TF's BundleWriter
            # the data in node order, the object graph last, as TF lays them out
            write_tf_checkpoint(file_prefix, tensors,
                                data_order=list(variables) + [object_graph.OBJECT_GRAPH_KEY])
        for callback in getattr(options, "experimental_write_callbacks", None) or ():
            callback(file_prefix)
        return file_prefix

    def save(self, file_prefix, session=None, options=None) -> str:
        """Count this save, write ``<file_prefix>-<save_counter>`` and make it the
        directory's latest in its ``checkpoint`` file; returns the path."""
        file_prefix = os.fspath(file_prefix)
        session = _session(session)
        if self._save_counter is None:
            session.run(self.save_counter.initializer)
        number = session.run(self._counter_increment())
        path = self.write(f"{file_prefix}-{int(number)}", session=session, options=options)
        _write_state(os.path.dirname(os.path.abspath(path)), path, [path], "checkpoint")
        return path

    def _counter_increment(self):
        if self._save_assign is None:
            counter = self.save_counter
            with counter.graph.as_default(), control_dependencies(None), \
                    device(counter.device or None):
                object.__setattr__(self, "_save_assign", counter.assign_add(1))
        return self._save_assign

    def read(self, save_path, options=None):
        """``restore`` without the save counter (TF's ``read``)."""
        return self._restore(save_path, create_counter=False)

    def restore(self, save_path, options=None):
        """A status for ``save_path`` (a prefix; None: initialize only).  Nothing runs
        until ``status.run_restore_ops(sess)`` or ``initialize_or_restore(sess)``.
        ``NotFoundError`` if there is no checkpoint at ``save_path``."""
        return self._restore(save_path, create_counter=True)

    def _restore(self, save_path, create_counter: bool):
        if save_path is None:
            return InitializationOnlyStatus(self)
        save_path = os.fspath(save_path)
        if not is_tf_checkpoint(save_path) and not checkpoint_exists(save_path):
            raise NotFoundError(f"Unsuccessful TensorSliceReader constructor: Failed to find "
                                f"any matching files for {save_path}")
        reader = TFCheckpoint(save_path) if is_tf_checkpoint(save_path) else None
        if reader is None or object_graph.OBJECT_GRAPH_KEY not in reader.names():
            raise NotFoundError(f"The checkpoint {save_path} has no object graph "
                                f"({object_graph.OBJECT_GRAPH_KEY}): it was written by a "
                                f"name-based Saver; restore it with tf.train.Saver.")
        proto = object_graph.trackable_object_graph_pb2.TrackableObjectGraph()
        proto.ParseFromString(reader.string_scalar(object_graph.OBJECT_GRAPH_KEY))
        if create_counter:
            self.save_counter       # noqa: B018 -- made now, so that it is restored
        return CheckpointLoadStatus(self, reader, proto, self._restorer)


class _Restorer:
    """Placeholders and assign ops per variable, made once per variable and reused by
    every restore (a training loop restoring often does not grow the graph)."""

    def __init__(self):
        self._ops = {}        # id(variable): (variable, placeholder, assign op)

    def prepare(self, variable) -> tuple:
        """(the assign op, its placeholder) of ``variable``, made on first use."""
        if id(variable) not in self._ops:
            with variable.graph.as_default(), control_dependencies(None), \
                    name_scope("checkpoint_restore"), device(None), \
                    device(variable.device or None):
                value_in = placeholder(variable.dtype, variable.shape, name="value")
                self._ops[id(variable)] = (variable, value_in, assign(variable, value_in).op)
        _, value_in, op = self._ops[id(variable)]
        return op, value_in

    def feeds(self, variable, value: np.ndarray, key: str) -> tuple:
        """``prepare``'s pair, once ``value`` is checked against the variable."""
        op, value_in = self.prepare(variable)
        if value.dtype != variable.dtype.np:
            raise InvalidArgumentError(
                f"Checkpoint key {key} is {value.dtype}, but the variable "
                f"{variable.op.name} it restores is {variable.dtype.name}.")
        if variable.shape.is_fully_defined() and list(value.shape) != variable.shape.as_list():
            raise InvalidArgumentError(
                f"Assign requires shapes of both tensors to match. lhs shape= "
                f"{variable.shape.as_list()} rhs shape= {list(value.shape)} (checkpoint "
                f"key {key}, variable {variable.op.name}).")
        return op, value_in


class _Status:
    """What TF's statuses share."""

    def expect_partial(self):
        """Silence the warnings about unused values (devsession logs none)."""
        return self


class CheckpointLoadStatus(_Status):
    """TF's status of ``Checkpoint.restore(path)`` in graph mode."""

    def __init__(self, checkpoint, reader, proto, restorer):
        self._root, self._reader, self._proto, self._restorer = \
            checkpoint, reader, proto, restorer
        # the restore ops of what matches now are made now, as TF's: a graph finalized
        # before run_restore_ops (a MonitoredSession's) needs nothing new then
        for node_id, obj in self._matched().items():
            if isinstance(obj, Variable) and proto.nodes[node_id].attributes:
                restorer.prepare(obj)

    def _matched(self) -> dict:
        return object_graph.match(self._root, self._proto)

    def assert_consumed(self):
        """Every value in the checkpoint has an object, and every object a value;
        ``AssertionError`` otherwise (TF's messages)."""
        self.assert_existing_objects_matched()
        matched = self._matched()
        names = object_graph.node_names(self._proto)
        for node_id, node in enumerate(self._proto.nodes):
            if node.attributes and node_id not in matched:
                raise AssertionError(f"Unresolved object in checkpoint {names.get(node_id)}: "
                                     f"{node}")
        return self

    def assert_existing_objects_matched(self):
        """Every variable below the root has a value in the checkpoint."""
        matched = {id(obj) for obj in self._matched().values()}
        unused = [obj for obj in object_graph.all_objects(self._root)
                  if isinstance(obj, Variable) and id(obj) not in matched]
        if unused:
            shown = min(10, len(unused))
            raise AssertionError(
                f"Found {len(unused)} Python objects that were not bound to checkpointed "
                f"values, likely due to changes in the Python program. Showing {shown} of "
                f"{len(unused)} unmatched objects: {unused[:shown]}")
        return self

    def assert_nontrivial_match(self):
        """Something besides the root matched."""
        matched = self._matched()
        if len(matched) <= 1:
            ids = {id(obj) for obj in matched.values()}
            unused = [obj for obj in object_graph.all_objects(self._root)
                      if id(obj) not in ids]
            if unused:
                raise AssertionError(
                    "Nothing except the root object matched a checkpointed value. "
                    "Typically this means that the checkpoint does not match the Python "
                    f"program. The following objects have no matching checkpointed value: "
                    f"{unused}")
            raise AssertionError(f"Nothing to load. No dependencies have been added to "
                                 f"{self._root} yet.")
        return self

    def run_restore_ops(self, session=None) -> None:
        """Assign every matched variable its checkpointed value, in one run."""
        session = _session(session)
        ops, feeds = [], {}
        for node_id, obj in sorted(self._matched().items()):
            attributes = self._proto.nodes[node_id].attributes
            if not isinstance(obj, Variable) or not attributes:
                continue
            key = attributes[0].checkpoint_key
            value = self._reader.tensor(key)
            op, value_in = self._restorer.feeds(obj, value, key)
            ops.append(op)
            feeds[value_in] = value
        if ops:
            session.run(ops, feeds)          # no group op: the graph may be finalized

    def initialize_or_restore(self, session=None) -> None:
        """Restore the matched variables and run the others' initializers."""
        session = _session(session)
        matched = {id(obj) for obj in self._matched().values()}
        initializers = [obj.initializer for obj in object_graph.all_objects(self._root)
                        if isinstance(obj, Variable) and id(obj) not in matched]
        self.run_restore_ops(session)
        if initializers:
            session.run(initializers)


class InitializationOnlyStatus(_Status):
    """TF's status of ``restore(None)``: nothing to restore; ``initialize_or_restore``
    initializes every variable below the root."""

    _MESSAGE = "No checkpoint specified (save_path=None); nothing is being restored."

    def __init__(self, root):
        self._root = root

    def assert_consumed(self):
        raise AssertionError(self._MESSAGE)

    def assert_existing_objects_matched(self):
        raise AssertionError(self._MESSAGE)

    def assert_nontrivial_match(self):
        raise AssertionError(self._MESSAGE)

    def run_restore_ops(self, session=None) -> None:
        """Nothing to restore."""

    def initialize_or_restore(self, session=None) -> None:
        session = _session(session)
        initializers = [obj.initializer for obj in object_graph.all_objects(self._root)
                        if isinstance(obj, Variable)]
        if initializers:
            session.run(initializers)
