"""TF1's ``tf.test``, the part graph-mode tests use: ``TestCase`` (``test_case.py``)
and ``main``, ``get_temp_dir``, ``mock``; ``compute_gradient`` and
``compute_gradient_error`` (TF1's gradient checker: the Jacobian ``ds.gradients``
builds against central differences, both run in the default session);
``assert_equal_graph_def`` (``graph_def_equality.py``); ``create_local_cluster`` (its
servers in this process); the device and build queries ``is_gpu_available``,
``gpu_device_name``, ``is_built_with_cuda``, ``is_built_with_gpu_support``,
``is_built_with_rocm``, ``is_built_with_xla``; ``Benchmark`` and ``benchmark_config``
(``test_benchmark.py``).  Every other ``tf.test`` name is ``UnsupportedTF1Error``."""

from __future__ import annotations

import sys
import types
import unittest
from unittest import mock

import numpy as np

from .device_listing import gpu_device_name, is_built_with_cuda, is_gpu_available
from .graph import constant_from_array
from .graph_def_equality import assert_equal_graph_def
from .ops.array import identity
from .session import get_default_session
from .test_benchmark import Benchmark, benchmark_config, run_benchmarks
from .test_case import TestCase, temp_root
from .test_stubs import (StubOutForTesting, disable_with_predicate, is_cpu_target_available,
                         with_eager_op_as_function)

__all__ = ["TestCase", "Benchmark", "benchmark_config", "main", "get_temp_dir", "mock",
           "compute_gradient",
           "compute_gradient_error", "assert_equal_graph_def", "create_local_cluster",
           "is_gpu_available", "gpu_device_name", "is_built_with_cuda",
           "is_built_with_gpu_support", "is_built_with_rocm", "is_built_with_xla",
           "StubOutForTesting", "disable_with_predicate", "with_eager_op_as_function",
           "is_cpu_target_available", "experimental"]

is_built_with_gpu_support = is_built_with_cuda


def _sync_devices():
    """TF2's wait for eager ops' pending work: TF refuses it in graph mode, the only mode
    devsession has (a session's run has finished its work when it returns)."""
    raise RuntimeError("sync_devices() must only be called in Eager mode, outside "
                       "tf.functions")


experimental = types.SimpleNamespace(sync_devices=_sync_devices)     # tf.test.experimental


def is_built_with_rocm() -> bool:
    return False


def is_built_with_xla() -> bool:
    return False


def get_temp_dir() -> str:
    """A folder for this process's tests (``TestCase.get_temp_dir`` makes one per test
    inside it)."""
    return temp_root()


def main(argv=None):
    """Runs the ``__main__`` module's tests, as TF1's ``tf.test.main``: the flags it
    defines (``ds.flags``) are parsed from ``argv`` first (default ``sys.argv``), the
    rest go to ``unittest``; exits with its status.  With ``--benchmark_filter=REGEX``
    (or TF1's ``--benchmarks=REGEX``) it runs the matching benchmarks instead."""
    from . import flags

    argv = sys.argv if argv is None else list(argv)
    pattern = None
    for arg in list(argv[1:]):
        for option in ("--benchmark_filter=", "-benchmark_filter=", "--benchmarks="):
            if arg.startswith(option):
                argv.remove(arg)
                pattern = arg[len(option):]
    try:
        remaining = flags.FLAGS(argv, known_only=True)
    except flags.Error as e:
        print(f"FATAL Flags parsing error: {e}", file=sys.stderr)
        sys.exit(1)
    if pattern is not None:
        run_benchmarks(pattern)
        sys.exit(0)
    unittest.main(module="__main__", argv=[a for a in remaining if a != "--"])


def create_local_cluster(num_workers: int, num_ps: int, protocol: str = "grpc",
                         worker_config=None, ps_config=None):
    """``(workers, ps_servers)``: started servers of a cluster of ``num_workers`` worker
    and ``num_ps`` ps tasks on free ports of 127.0.0.1, all in this process."""
    from .distributed.local_processes import free_ports
    from .distributed.server import Server

    ports = free_ports(num_workers + num_ps)
    cluster = {"worker": [f"127.0.0.1:{p}" for p in ports[:num_workers]],
               "ps": [f"127.0.0.1:{p}" for p in ports[num_workers:]]}
    workers = [Server(cluster, "worker", k, protocol=protocol, config=worker_config)
               for k in range(num_workers)]
    ps_servers = [Server(cluster, "ps", k, protocol=protocol, config=ps_config)
                  for k in range(num_ps)]
    return workers, ps_servers


def compute_gradient(x, x_shape, y, y_shape, x_init_value=None, delta=1e-3,
                     init_targets=None, extra_feed_dict=None):
    """``(theoretical, numerical)`` Jacobians of ``y`` with respect to ``x``, each of
    shape (x size, y size): the first from ``ds.gradients`` (one run per element of
    y), the second from central differences of step ``delta`` (two runs per element
    of x), at ``x_init_value`` (default: uniform in [0, 1)).  ``x`` may be a list (with
    ``x_shape`` and ``x_init_value`` lists too): then a list of pairs.  Runs
    ``init_targets`` first; needs a default session (TF1's)."""
    session = get_default_session()
    if session is None:
        raise ValueError("compute_gradient runs in the default session: call it inside "
                         "'with ds.Session():'.")
    for target in init_targets or ():
        session.run(target)
    if isinstance(x, (list, tuple)):
        inits = x_init_value if x_init_value is not None else [None] * len(x)
        return [_jacobians(session, xi, si, y, y_shape, ii, delta, extra_feed_dict)
                for xi, si, ii in zip(x, x_shape, inits)]
    return _jacobians(session, x, x_shape, y, y_shape, x_init_value, delta, extra_feed_dict)


def compute_gradient_error(x, x_shape, y, y_shape, x_init_value=None, delta=1e-3,
                           init_targets=None, extra_feed_dict=None) -> float:
    """The largest difference between the theoretical and the numerical Jacobian."""
    found = compute_gradient(x, x_shape, y, y_shape, x_init_value, delta, init_targets,
                             extra_feed_dict)
    pairs = found if isinstance(found, list) else [found]
    return max((float(np.max(np.abs(t - n))) if t.size else 0.0) for t, n in pairs)


def _jacobians(session, x, x_shape, y, y_shape, x_init_value, delta, extra_feed_dict):
    from .gradients import UnconnectedGradients, gradients

    if not x.dtype.is_floating:
        raise TypeError(f"compute_gradient differentiates floating-point tensors, not "
                        f"{x.dtype.name} ('{x.name}').")
    x_shape, y_shape = tuple(int(d) for d in x_shape), tuple(int(d) for d in y_shape)
    if x_init_value is not None:
        x_data = np.asarray(x_init_value, x.dtype.np)
        if x_data.shape != x_shape:
            raise ValueError(f"x_shape = {list(x_shape)}, init_data shape = "
                             f"{list(x_data.shape)}")
    else:
        x_data = np.random.default_rng().random(x_shape).astype(x.dtype.np)
    with y.graph.as_default():
        dy = identity(constant_from_array(np.ones(y_shape, y.dtype.np), name="dy"))
        (dx,) = gradients(y, x, dy, unconnected_gradients=UnconnectedGradients.ZERO)
    feeds = dict(extra_feed_dict or {})
    x_size, y_size = x_data.size, int(np.prod(y_shape, dtype=np.int64))
    theoretical = np.zeros((x_size, y_size), x.dtype.np)
    for col in range(y_size):
        one_hot = np.zeros(y_size, y.dtype.np)
        one_hot[col] = 1
        got = session.run(dx, {**feeds, x: x_data, dy: one_hot.reshape(y_shape)})
        theoretical[:, col] = np.asarray(got).reshape(x_size)
    numerical = np.zeros((x_size, y_size), x.dtype.np)
    flat = x_data.reshape(-1).copy()
    for row in range(x_size):
        values = []
        for step in (delta, -delta):
            moved = flat.copy()
            moved[row] += step
            values.append(np.asarray(session.run(y, {**feeds, x: moved.reshape(x_shape)}),
                                     np.float64).reshape(-1))
        numerical[row, :] = (values[0] - values[1]) / (2 * delta)
    return theoretical, numerical


def __getattr__(name: str):
    from .unsupported import missing

    raise missing("test", name)
