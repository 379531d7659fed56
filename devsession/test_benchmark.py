"""``tf.test.Benchmark``: TF1's base class for benchmarks of ops, so a project's
benchmark files run with only their import changed.

``run_op_benchmark(sess, op)`` runs the op ``burn_iters`` times unmeasured, then times
``min_iters`` runs, and reports the median seconds per run (with ``mbs``, the MB/s a run
of that many megabytes moves); ``report_benchmark`` prints TF's ``BenchmarkEntries`` as
text, or writes it to ``$TEST_REPORT_FILE_PREFIX<name>`` when that variable is set, as
TF's test tools expect.  A subclass registers itself: ``tf.test.main()`` given
``--benchmark_filter=REGEX`` (TF1's ``--benchmarks=`` too) runs the ``benchmark*``
methods whose ``module.Class.method`` matches (``all``: every one) instead of the tests.
A traced run adds the chrome trace to the returned extras (``store_trace``); the
allocators' peak bytes TF adds with ``store_memory_usage`` are not measured here.
"""

from __future__ import annotations

import inspect
import logging
import numbers
import os
import re
import statistics
import time

from .proto import test_log_pb2

__all__ = ["Benchmark", "benchmark_config", "run_benchmarks", "REPORT_PREFIX_ENV"]

REPORT_PREFIX_ENV = "TEST_REPORT_FILE_PREFIX"
_REGISTRY: set = set()
_log = logging.getLogger("devsession")


class _Registered(type):
    """Notes each concrete Benchmark subclass for ``run_benchmarks``."""

    def __new__(mcs, name, bases, attrs):
        cls = super().__new__(mcs, name, bases, attrs)
        if not cls.is_abstract():
            _REGISTRY.add(cls)
        return cls


class Benchmark(metaclass=_Registered):
    """TF1's ``tf.test.Benchmark`` (module docstring)."""

    @classmethod
    def is_abstract(cls) -> bool:
        return cls.__module__ == __name__ and cls.__name__ == "Benchmark"

    def report_benchmark(self, iters=None, cpu_time=None, wall_time=None, throughput=None,
                         extras=None, name=None, metrics=None) -> None:
        """Reports one benchmark named ``Class.method`` (the outermost benchmark method
        running; ``name`` replaces the method's name)."""
        caller, method = _outermost_benchmark_call()
        report(f"{type(caller).__name__}.{name or method}", iters, cpu_time, wall_time,
               throughput, extras, metrics)

    def run_op_benchmark(self, sess, op_or_tensor, feed_dict=None, burn_iters: int = 2,
                         min_iters: int = 10, store_trace: bool = False,
                         store_memory_usage: bool = True, name=None, extras=None,
                         mbs: float = 0) -> dict:
        """Times ``sess.run(op_or_tensor)``; reports and returns ``iters``, the median
        ``wall_time``, ``throughput`` (``mbs`` per second), ``name`` and ``extras``
        (with the runs' mean and sample standard deviation added after reporting)."""
        for _ in range(burn_iters):
            sess.run(op_or_tensor, feed_dict=feed_dict)
        deltas = []
        for _ in range(min_iters):
            start = time.perf_counter()
            sess.run(op_or_tensor, feed_dict=feed_dict)
            deltas.append(time.perf_counter() - start)
        extras = {} if extras is None else extras
        unreported = {}
        if store_trace:
            from .options import RunMetadata, RunOptions

            metadata = RunMetadata()
            sess.run(op_or_tensor, feed_dict=feed_dict, run_metadata=metadata,
                     options=RunOptions(trace_level=RunOptions.FULL_TRACE))
            unreported["full_trace_chrome_format"] = metadata.chrome_trace()
        median = statistics.median(deltas) if deltas else -1
        values = {"iters": min_iters, "wall_time": median, "extras": extras, "name": name,
                  "throughput": mbs / median}
        self.report_benchmark(**values)
        unreported["wall_time_mean"] = statistics.fmean(deltas) if deltas else -1
        unreported["wall_time_stdev"] = statistics.stdev(deltas) if len(deltas) > 1 else -1
        values["extras"].update(unreported)
        return values

    def evaluate(self, tensors):
        """``tensors``' values, run in the default session (else in a new one)."""
        from .session import Session, get_default_session

        sess = get_default_session()
        if sess is not None:
            return sess.run(tensors)
        with Session() as sess:
            return sess.run(tensors)


def _outermost_benchmark_call() -> tuple:
    """(the Benchmark, its method's name) of the outermost frame running a method of a
    Benchmark: the benchmark method, whatever helpers it calls."""
    for frame in reversed(inspect.stack()):
        owner = frame.frame.f_locals.get("self")
        if isinstance(owner, Benchmark):
            return owner, frame.function
    raise ValueError("Unable to determine calling Benchmark class.")


def report(name: str, iters=None, cpu_time=None, wall_time=None, throughput=None,
           extras=None, metrics=None) -> None:
    """One ``BenchmarkEntries`` entry, logged, and printed or written (module docstring)."""
    _log.info("Benchmark [%s] iters: %d, wall_time: %g, cpu_time: %g, throughput: %g, "
              "extras: %s, metrics: %s", name, _or(iters), _or(wall_time), _or(cpu_time),
              _or(throughput), extras or None, metrics or None)
    entries = test_log_pb2.BenchmarkEntries()
    entry = entries.entry.add(name=name)
    for field, value in (("iters", iters), ("cpu_time", cpu_time), ("wall_time", wall_time),
                         ("throughput", throughput)):
        if value is not None:
            setattr(entry, field, value)
    if extras is not None:
        if not isinstance(extras, dict):
            raise TypeError("extras must be a dict")
        for key, value in extras.items():
            if isinstance(value, numbers.Number):
                entry.extras[key].double_value = value
            else:
                entry.extras[key].string_value = str(value)
    for metric in _checked_metrics(metrics):
        added = entry.metrics.add(name=metric["name"], value=metric["value"])
        if "min_value" in metric:
            added.min_value.value = metric["min_value"]
        if "max_value" in metric:
            added.max_value.value = metric["max_value"]
    prefix = os.environ.get(REPORT_PREFIX_ENV)
    if prefix is None:
        print(entries)
        return
    path = prefix + name.replace("/", "__")
    if os.path.exists(path):
        raise OSError(f"File already exists: {path}")
    with open(path, "wb") as f:
        f.write(entries.SerializeToString())


def _checked_metrics(metrics) -> list:
    if metrics is None:
        return []
    if not isinstance(metrics, list):
        raise TypeError("metrics must be a list")
    for metric in metrics:
        for key in ("name", "value"):
            if key not in metric:
                raise TypeError(f"metric must has a '{key}' field")
    return metrics


def _or(value):
    return -1 if value is None else value


def benchmark_config():
    """A ConfigProto for benchmarks (TF's turns a graph rewrite off: devsession has none
    of TF's rewrites to turn off)."""
    from .config import ConfigProto

    return ConfigProto()


def run_benchmarks(pattern: str) -> list:
    """Runs the ``benchmark*`` methods of the registered classes whose
    ``module.Class.method`` matches ``pattern`` (``all``: every one); their names.
    ValueError when none does."""
    ran = []
    for cls in sorted(_REGISTRY, key=lambda c: (c.__module__, c.__qualname__)):
        instance = None
        for attr in sorted(dir(cls)):
            if not attr.startswith("benchmark") or not callable(getattr(cls, attr)):
                continue
            full = f"{cls.__module__}.{cls.__name__}.{attr}"
            if pattern == "all" or re.search(pattern, full):
                instance = instance or cls()
                getattr(instance, attr)()
                ran.append(full)
    if not ran:
        raise ValueError(f"No benchmarks matched the pattern: '{pattern}'")
    return ran
