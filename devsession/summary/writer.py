"""``FileWriter``: TensorBoard event files, through the ``tensorboard`` package's own
event-file writer (the optional extra ``pip install 'devsession[tensorboard]'``), so the
TFRecord framing, CRCs and file naming are TensorBoard's and not re-implemented here.

    writer = ds.summary.FileWriter("logs/run1", sess.graph)   # the graph view
    writer.add_summary(sess.run(merged), step)                 # scalars, histograms...
    writer.close()

``add_graph`` writes devsession's GraphDef, re-encoded with TensorBoard's GraphDef
message (devsession's graph.proto is TensorFlow's layout; float attributes are written as
TF's ``f``), so TensorBoard's graph view shows the nodes, their ops, inputs and devices.
Without the ``tensorboard`` package, building a FileWriter raises ``ImportError`` naming the
extra to install; the summary ops themselves need nothing.
"""

from __future__ import annotations

import threading
import time

from ..devices import LOCAL_PREFIX

__all__ = ["FileWriter", "FileWriterCache", "tensorboard_graph_def", "run_metadata_proto",
           "tensorboard_installed"]

_INSTALL_HINT = ("ds.summary.FileWriter writes TensorBoard event files with the tensorboard "
                 "package, which is not installed: pip install 'devsession[tensorboard]'")


def tensorboard_installed() -> bool:
    """Whether FileWriters can be made (the ``tensorboard`` extra is installed)."""
    try:
        _tensorboard()
    except ImportError:
        return False
    return True


def _tensorboard():
    try:
        from tensorboard.compat.proto import event_pb2, graph_pb2, summary_pb2
        from tensorboard.summary.writer.event_file_writer import EventFileWriter
    except ImportError as e:
        raise ImportError(f"{_INSTALL_HINT} ({e}).") from None
    return EventFileWriter, event_pb2, graph_pb2, summary_pb2


def run_metadata_proto(run_metadata, graph_pb2):
    """TF's RunMetadata proto (TensorBoard's copy) for a ``ds.RunMetadata``: its step stats
    as ``step_stats.dev_stats`` (one DeviceStepStats per device, NodeExecStats in
    microseconds with TF's ``timeline_label``) and its ``partition_graphs``; a RunMetadata
    protobuf passes through."""
    from tensorboard.compat.proto import config_pb2

    if hasattr(run_metadata, "SerializeToString"):
        return config_pb2.RunMetadata.FromString(run_metadata.SerializeToString())
    proto = config_pb2.RunMetadata()
    for device in run_metadata.step_stats.dev_stats:
        dev = proto.step_stats.dev_stats.add(device=_full_device_name(device.device))
        for node in device.node_stats:
            dev.node_stats.add(
                node_name=node.node_name, timeline_label=node.timeline_label,
                all_start_micros=node.all_start_micros,
                op_start_rel_micros=node.op_start_rel_micros,
                op_end_rel_micros=node.op_end_rel_micros,
                all_end_rel_micros=node.all_end_rel_micros, thread_id=node.thread_id)
    for graph_def in run_metadata.partition_graphs:
        proto.partition_graphs.add().CopyFrom(tensorboard_graph_def(graph_def, graph_pb2))
    return proto


def _full_device_name(device: str) -> str:
    """A local device as TF names it in step stats ("CPU:0" ->
    "/job:localhost/replica:0/task:0/device:CPU:0"); a cluster device's name is full."""
    if device.startswith("/job:"):
        return device
    return f"{LOCAL_PREFIX}/device:{device.rpartition('device:')[2].lstrip('/')}"


class FileWriter:
    """TF1's ``tf.summary.FileWriter(logdir, graph=None, max_queue=10, flush_secs=120,
    graph_def=None, filename_suffix=None)``."""

    def __init__(self, logdir, graph=None, max_queue=10, flush_secs=120, graph_def=None,
                 filename_suffix=None, session=None):
        if session is not None:
            raise NotImplementedError("FileWriter(session=...) (TF2 summary writers) is not "
                                      "supported by devsession; pass a logdir.")
        writer_class, self._event_pb2, self._graph_pb2, self._summary_pb2 = _tensorboard()
        self._logdir = str(logdir)
        self._open = lambda: writer_class(self._logdir, max_queue_size=max_queue,
                                          flush_secs=flush_secs,
                                          filename_suffix=filename_suffix or "")
        self._writer = self._open()
        self._closed = False
        self._run_metadata_tags: set = set()
        if graph is not None or graph_def is not None:
            self.add_graph(graph, graph_def=graph_def)

    def get_logdir(self) -> str:
        return self._logdir

    def add_event(self, event) -> None:
        """Write ``event`` (``ds.Event``, or TensorBoard's ``Event``)."""
        if self._closed:
            raise RuntimeError(f"FileWriter for {self._logdir} is closed; reopen() it first.")
        if not isinstance(event, self._event_pb2.Event):      # ds.Event: the same fields
            event = self._event_pb2.Event.FromString(event.SerializeToString())
        self._writer.add_event(event)

    def add_summary(self, summary, global_step=None) -> None:
        """Write ``summary`` (the bytes a summary op fetched, or a Summary message) at
        ``global_step``."""
        if hasattr(summary, "SerializeToString"):
            summary = summary.SerializeToString()
        if not isinstance(summary, (bytes, bytearray)):
            raise TypeError(f"add_summary takes a fetched summary (bytes) or a Summary "
                            f"protobuf, not {type(summary).__name__}.")
        event = self._event_pb2.Event(wall_time=time.time(),
                                      summary=self._summary_pb2.Summary.FromString(bytes(summary)))
        if global_step is not None:
            event.step = int(global_step)
        self.add_event(event)

    def add_session_log(self, session_log, global_step=None) -> None:
        """Write a ``SessionLog`` (``ds.SessionLog``, TensorBoard's, or its bytes): the
        START, STOP and CHECKPOINT marks ``ds.train.Supervisor`` writes; a START at a step
        makes TensorBoard drop the events a crashed run wrote after that step."""
        if not isinstance(session_log, (bytes, bytearray, self._event_pb2.SessionLog)):
            session_log = session_log.SerializeToString()
        if isinstance(session_log, (bytes, bytearray)):
            session_log = self._event_pb2.SessionLog.FromString(bytes(session_log))
        event = self._event_pb2.Event(wall_time=time.time(), session_log=session_log)
        if global_step is not None:
            event.step = int(global_step)
        self.add_event(event)

    def add_graph(self, graph, global_step=None, graph_def=None) -> None:
        """Write ``graph`` (a ds.Graph) or ``graph_def`` for TensorBoard's graph view."""
        if graph is None and graph_def is None:
            raise ValueError("add_graph needs a graph or a graph_def.")
        graph_def = graph.as_graph_def() if graph is not None else graph_def
        event = self._event_pb2.Event(
            wall_time=time.time(),
            graph_def=tensorboard_graph_def(graph_def, self._graph_pb2).SerializeToString())
        if global_step is not None:
            event.step = int(global_step)
        self.add_event(event)

    def add_run_metadata(self, run_metadata, tag, global_step=None) -> None:
        """Write a traced run's ``run_metadata`` under ``tag`` (TensorBoard's graph view
        shows each node's compute time for it): an event's ``tagged_run_metadata``, the
        RunMetadata as TF's proto bytes (``run_metadata_proto``).  A tag used twice is
        TF1's ``ValueError``."""
        if tag in self._run_metadata_tags:
            raise ValueError("The provided tag was already used for this event type")
        self._run_metadata_tags.add(tag)
        data = run_metadata_proto(run_metadata, self._graph_pb2).SerializeToString()
        event = self._event_pb2.Event(
            wall_time=time.time(),
            tagged_run_metadata=self._event_pb2.TaggedRunMetadata(tag=tag, run_metadata=data))
        if global_step is not None:
            event.step = int(global_step)
        self.add_event(event)

    def flush(self) -> None:
        if not self._closed:
            self._writer.flush()

    def close(self) -> None:
        if not self._closed:
            self._writer.close()
            self._closed = True

    def reopen(self) -> None:
        """Write again after ``close()`` (into a new event file in the same logdir)."""
        if self._closed:
            self._writer = self._open()
            self._closed = False

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
        return False



class FileWriterCache:
    """TF1's ``tf.summary.FileWriterCache``: one ``FileWriter`` per logdir, made on first
    ``get`` with the default graph (as TF's), so several parts of a program append to the
    same event file instead of each opening its own; ``clear`` closes them all."""

    _cache: dict = {}
    _lock = threading.RLock()

    @staticmethod
    def get(logdir) -> FileWriter:
        from ..graph import get_default_graph

        with FileWriterCache._lock:
            if logdir not in FileWriterCache._cache:
                FileWriterCache._cache[logdir] = FileWriter(logdir, graph=get_default_graph())
            return FileWriterCache._cache[logdir]

    @staticmethod
    def clear() -> None:
        with FileWriterCache._lock:
            for writer in FileWriterCache._cache.values():
                writer.close()
            FileWriterCache._cache = {}


def tensorboard_graph_def(graph_def, graph_pb2):
    """``graph_def`` (devsession's) as ``graph_pb2.GraphDef`` (TensorBoard's, which is
    TensorFlow's): nodes copied field by field; attributes through their wire bytes, which
    are TF's, except the double-precision float (written as TF's float ``f``)."""
    out = graph_pb2.GraphDef()
    for node in graph_def.node:
        copy = out.node.add(name=node.name, op=node.op, device=node.device)
        copy.input.extend(name[:-2] if name.endswith(":0") else name   # TF's canonical form
                          for name in node.input)
        for key, value in node.attr.items():
            if value.WhichOneof("value") == "d":
                copy.attr[key].f = value.d
            else:
                copy.attr[key].ParseFromString(value.SerializeToString())
    return out
