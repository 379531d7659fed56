"""The TF1 session surface shared by every session type.

``BaseSession`` implements ``run``, ``make_callable``, feeds, fetch structures, the
closed state, the default-session stack and the cache of steps per (feeds, fetches,
targets) signature; a concrete session (direct, gRPC) supplies only
``_build_step(feeds, fetches, targets)``, which returns a function that runs one step on
already-validated numpy feeds and returns the fetched arrays.  ``run`` resolves and
validates everything before any kernel runs, so bad input costs nothing and leaves the
session usable.

``ds.Session(target, graph, options)`` is the convenience constructor: it builds options,
asks the factory registry for a session, creates it with the graph, and returns it.
"""

from __future__ import annotations

import abc
import contextlib
import logging
import threading

from . import defaults
from .errors import InvalidArgumentError, OpError
from .feeds import expand_feed, feed_parts, feed_validator, is_composite, validate_feed
from .fetches import FetchMapper, fetched
from .graph import Graph, Tensor, get_default_graph
from .options import RunMetadata, RunOptions, SessionOptions
from .runtime.deadline import Deadline
from .runtime.placement import moved_node_warnings
from .tensor_handle import TensorHandle

__all__ = ["BaseSession", "Session", "InteractiveSession", "get_default_session"]

_CLOSED_MESSAGE = "Attempted to use a closed Session."
log = logging.getLogger("devsession")
placement_log = logging.getLogger("devsession.placement")


get_default_session = defaults.default_session


class BaseSession:
    """A session bound to one graph; subclasses implement ``_build_step``."""

    def __init__(self, options: SessionOptions):
        self._options = options
        self._graph: Graph | None = None
        self._closed = False
        self._lock = threading.RLock()
        self._steps: dict = {}

    # --- the subclass interface ------------------------------------------------------

    def _build_step(self, feeds: tuple, fetches: tuple, targets: tuple,
                    timeout: float | None = None):
        """A function ``step(feed_values, deadline, stats) -> list of fetched arrays``;
        building it may take at most ``timeout`` seconds (None: no bound asked)."""
        raise NotImplementedError

    def _close(self) -> None:
        """Release what the session holds (called once)."""

    def _prepare(self, feeds: tuple, fetches: tuple, targets: tuple,
                 timeout: float | None = None):
        """The step for this signature, built once (lock-free on a hit: the hot path)."""
        key = (feeds, fetches, targets)
        step = self._steps.get(key)
        if step is None:
            with self._lock:
                step = self._steps.get(key)
                if step is None:
                    step = self._steps[key] = self._build_step(feeds, fetches, targets,
                                                               timeout)
        return step

    def _log_placement(self, entries, said: str = "") -> None:
        """Warn about the nodes that moved (soft placement), once per reason, and with
        ``log_device_placement`` log each node's device as TF1 does.  ``entries`` are
        (node name, device name, note) triples; ``said``: a note already warned about
        (the session's own fallback), not repeated for each node it moved."""
        entries = list(entries)
        for line in moved_node_warnings(((name, note) for name, _, note in entries), said):
            log.warning("%s", line)
        if self._options.log_device_placement:
            if not placement_log.handlers and not logging.getLogger().handlers:
                placement_log.addHandler(logging.StreamHandler())
                placement_log.setLevel(logging.INFO)
            for name, device, _ in entries:
                placement_log.info("%s: %s", name, device)

    def _forget_steps(self) -> None:
        """Drop every cached step (the graph's placement or the cluster changed)."""
        with self._lock:
            self._steps.clear()

    def list_devices(self) -> list:
        raise NotImplementedError

    # --- lifecycle -----------------------------------------------------------------------

    @property
    def options(self) -> SessionOptions:
        return self._options

    @property
    def graph(self) -> Graph:
        return self._graph

    @property
    def graph_def(self):
        """The session's graph as a GraphDef (TF1's ``sess.graph_def``, what
        ``tf.train.write_graph(sess.graph_def, ...)`` saves)."""
        return self._graph.as_graph_def()

    @property
    def sess_str(self) -> str:
        return self._options.target

    def create(self, graph=None) -> "BaseSession":
        """Bind the session to ``graph`` (a Graph, or a GraphDef imported into a new one)."""
        self._check_open()
        with self._lock:
            if self._graph is not None:
                raise InvalidArgumentError("Session.create() was already called; use "
                                           "extend() to add nodes.")
            if graph is None:
                graph = get_default_graph()
            elif not isinstance(graph, Graph):
                from .graph_def import import_graph_def

                graph_def, graph = graph, Graph()
                import_graph_def(graph_def, graph=graph)
            self._graph = graph
        return self

    def extend(self, graph_def) -> None:
        """Add nodes: a GraphDef's nodes are imported; the session's own Graph may just
        have grown, which the session sees without being told."""
        self._check_open()
        if self._graph is None:
            self.create(graph_def)
        elif isinstance(graph_def, Graph):
            if graph_def is not self._graph:
                raise InvalidArgumentError("extend() takes the session's own graph or a "
                                           "GraphDef of new nodes.")
        else:
            from .graph_def import import_graph_def

            import_graph_def(graph_def, graph=self._graph)

    def close(self) -> None:
        with self._lock:
            if self._closed:
                return
            self._closed = True
        self._close()
        leave = getattr(self, "_leave_interactive", None)
        if leave is not None:
            leave()

    @property
    def closed(self) -> bool:
        return self._closed

    def _check_open(self) -> None:
        if self._closed:
            raise RuntimeError(_CLOSED_MESSAGE)

    def __enter__(self):
        """``with sess:`` makes this the default session and its graph the default graph."""
        self._default_ctx = contextlib.ExitStack()
        if self._graph is not None:
            self._default_ctx.enter_context(self._graph.as_default())
        self._default_ctx.enter_context(self.as_default())
        return self

    def __exit__(self, *exc):
        self._default_ctx.__exit__(*exc)
        self.close()
        return False

    @contextlib.contextmanager
    def as_default(self):
        """Make this the default session inside; the default graph stays what it was (as
        TF1's: ``with sess.graph.as_default():`` makes its graph the default)."""
        stack = defaults.session_stack()
        stack.append(self)
        try:
            yield self
        finally:
            defaults.remove_innermost(stack, self)

    def __del__(self):
        try:
            if not self._closed:
                self.close()
        except Exception:
            pass

    # --- running ---------------------------------------------------------------------------

    def run(self, fetches, feed_dict=None, options: RunOptions | None = None,
            run_metadata: RunMetadata | None = None):
        """Run the graph for ``fetches``; returns values in the same structure (see API.md)."""
        self._check_open()
        if self._graph is None:
            self.create()
        mapper = FetchMapper(self._graph, fetches)
        feeds, values = self._resolve_feeds(feed_dict)
        if not mapper.tensors and not mapper.targets:
            return mapper.build([])
        deadline = self._deadline(options)     # bounds preparing the step too
        step = self._prepare(feeds, tuple(mapper.tensors), tuple(mapper.targets),
                             deadline.remaining() if deadline is not None else None)
        out = self._call_step(step, values, options, run_metadata, deadline)
        if mapper.handles:      # a GetSessionHandle's handle comes back as a TensorHandle
            out = list(out)
            for i in mapper.handles:
                out[i] = TensorHandle(out[i][()], mapper.tensors[i].op.inputs[0].dtype, self)
        return mapper.build(out)

    def make_callable(self, fetches, feed_list=None, accept_options: bool = False):
        """A function of the feeds (in ``feed_list`` order) that runs the fetches.

        Fetches, feeds and the plan are resolved once, so each call only validates the
        feed values and runs the kernels.
        """
        self._check_open()
        if self._graph is None:
            self.create()
        mapper = FetchMapper(self._graph, fetches)
        keys = list(feed_list or ())
        sparse = any(is_composite(key) for key in keys)
        feeds = tuple(self._feed_tensor(k) for key in keys for k in feed_parts(key))
        timeout = self._options.operation_timeout_s
        step = self._prepare(feeds, tuple(mapper.tensors), tuple(mapper.targets), timeout) \
            if (mapper.tensors or mapper.targets) else None
        session = self
        build, single = mapper.build, mapper.is_single_tensor
        validators = [feed_validator(t) for t in feeds]

        def run_callable(*feed_values, options=None, run_metadata=None):
            if session._closed:
                raise RuntimeError(_CLOSED_MESSAGE)
            if len(feed_values) != len(keys):
                raise TypeError(f"This callable takes {len(keys)} feed value(s), got "
                                f"{len(feed_values)}.")
            if sparse:      # a SparseTensor's (RaggedTensor's) value feeds its tensors
                feed_values = [v for key, value in zip(keys, feed_values)
                               for _, v in expand_feed(key, value)]
            values = [check(v) for check, v in zip(validators, feed_values)]
            if step is None:
                return build([])
            if options is None and run_metadata is None and timeout is None:
                try:
                    out = step(values, None, None)
                except OpError as e:
                    session._name_the_op(e)
                    raise
            else:
                out = session._call_step(step, values, options, run_metadata)
            return fetched(out[0]) if single else build(out)

        return run_callable

    def _deadline(self, options: RunOptions | None) -> Deadline | None:
        """The deadline of a run: ``RunOptions.timeout_s``, else the session's
        ``operation_timeout_s``, else none."""
        timeout = options.timeout_s if options is not None and options.timeout_s else \
            self._options.operation_timeout_s
        return Deadline.after(timeout) if timeout else None

    def _call_step(self, step, values, options, run_metadata, deadline=False) -> list:
        if deadline is False:
            deadline = self._deadline(options)
        stats = [] if (options is not None and options.trace) else None
        try:
            out = step(values, deadline, stats)
        except OpError as e:
            self._name_the_op(e)
            raise
        if stats is not None and run_metadata is not None:
            run_metadata.add(stats)
        return out

    def _name_the_op(self, error: OpError) -> None:
        """A run's error carries the graph's Operation at fault as ``op``, as TF's (code
        reads ``e.op.name``), when its node is one of the graph's."""
        if error.op is None and error.node_name and self._graph is not None:
            try:
                error.op = self._graph.get_operation_by_name(error.node_name)
            except (KeyError, ValueError):
                pass

    # --- partial runs (partial_run.py) ------------------------------------------------------

    def partial_run_setup(self, fetches, feeds=None) -> str:
        """TF1's ``partial_run_setup``: declare the fetches (Operations among them run
        when their feeds have come) and the feeds of one step fed piecewise; returns its
        handle.  Nodes that need no feed run now."""
        self._check_open()
        if self._graph is None:
            self.create()
        mapper = FetchMapper(self._graph, fetches)
        keys = tuple(self._feed_tensor(k) for key in (feeds or ()) for k in feed_parts(key))
        return self._partial_runs().setup(self._graph, keys, tuple(mapper.tensors),
                                          tuple(mapper.targets))

    def partial_run(self, handle: str, fetches, feed_dict=None):
        """TF1's ``partial_run``: feed some of the handle's feeds (each once) and fetch
        some of its fetches (each once); raises InvalidArgumentError as TF's."""
        self._check_open()
        mapper = FetchMapper(self._graph, fetches)
        if mapper.targets:
            raise RuntimeError(f"partial_run() requires empty `target_list`. Received: "
                               f"target_list={mapper.targets} (non-empty)")
        feeds, values = self._resolve_feeds(feed_dict)
        if not mapper.tensors and not feeds:
            return mapper.build([])
        return mapper.build(self._partial_runs().run(handle, feeds, values,
                                                     tuple(mapper.tensors)))

    def _partial_runs(self):
        with self._lock:
            if getattr(self, "_partial", None) is None:
                from .partial_run import PartialRuns

                self._partial = PartialRuns(self._run_partial_step)
            return self._partial

    def _run_partial_step(self, feeds, fetches, targets, values) -> list:
        deadline = self._deadline(None)
        step = self._prepare(feeds, fetches, targets,
                             deadline.remaining() if deadline is not None else None)
        return self._call_step(step, values, None, None, deadline)

    # --- feeds -------------------------------------------------------------------------------

    def _feed_tensor(self, key) -> Tensor:
        """The tensor a feed_dict key names (an operation or its name: its first output);
        TypeError where it names none of this graph's (another graph's tensor, a missing
        name), as TF's."""
        try:
            element = self._graph.as_graph_element(key)
        except (KeyError, ValueError, TypeError) as e:
            raise TypeError(f"Cannot interpret feed_dict key as Tensor: "
                            f"{e.args[0] if e.args else e}") from None
        if not isinstance(element, Tensor):
            if not element.outputs:
                raise TypeError(f"Cannot interpret feed_dict key as Tensor: operation "
                                f"'{element.name}' has no output.")
            element = element.outputs[0]
        if not self._graph.is_feedable(element):
            raise ValueError(f"Tensor {element.name} may not be fed.")
        return element

    def _resolve_feeds(self, feed_dict) -> tuple[tuple, list]:
        if not feed_dict:
            return (), []
        tensors, values = [], []
        for key, value in (pair for item in feed_dict.items() for pair in expand_feed(*item)):
            tensor = self._feed_tensor(key)
            if isinstance(value, TensorHandle):    # feeds the value it keeps, as TF's
                value = value.eval()
            tensors.append(tensor)
            values.append(validate_feed(tensor, value))
        if len(set(tensors)) != len(tensors):
            raise ValueError("The same tensor is fed twice in feed_dict (by object and by name).")
        return tuple(tensors), values


class Session(abc.ABC):
    """``ds.Session(target="", graph=None, options=None)``: a ready, created session.

    Returns the session the one accepting factory makes (e.g. a DirectSession), which
    counts as a ``ds.Session`` for ``isinstance``.
    """

    def __new__(cls, target: str = "", graph=None, options: SessionOptions | None = None,
                config=None):
        from .config import ConfigProto, session_defaults, session_options
        from .session_factory import new_session

        if isinstance(options, ConfigProto):      # TF1's third positional is config
            options, config = None, options
        options = options or session_defaults()
        if config is not None:
            if not isinstance(config, ConfigProto):
                raise TypeError(f"config must be a ds.ConfigProto, not "
                                f"{type(config).__name__}; devsession's own settings go in "
                                f"options=ds.SessionOptions(...).")
            options = session_options(config, options)
        if target:
            options = options.replace(target=target)
        session = new_session(options)
        session.create(graph)
        return session


Session.register(BaseSession)


class InteractiveSession:
    """TF1's ``tf.InteractiveSession(target="", graph=None, config=None)``: a session
    that makes itself the default session (and ``graph``, when given, the default graph)
    until it is closed, so ``t.eval()`` and ``op.run()`` need no ``with`` block."""

    def __new__(cls, target: str = "", graph=None, config=None, options=None):
        session = Session(target, graph, options=options, config=config)
        # this thread's stacks, kept: close() may come from another thread, or while an
        # inner as_default() is open, and must take out only what it put in
        sessions, graphs = defaults.session_stack(), defaults.graph_stack()
        sessions.append(session)
        if graph is not None:
            graphs.append(graph)

        def leave():
            defaults.remove_innermost(sessions, session)
            if graph is not None:
                defaults.remove_innermost(graphs, graph)
        session._leave_interactive = leave
        return session
