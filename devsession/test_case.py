"""``tf.test.TestCase``: TF1's ``unittest`` base class for graph-mode tests, so a TF1
project's test files run with only their import changed.

Each test starts from a fresh default graph with TF's seeds (``DEFAULT_GRAPH_SEED`` for
the graph, Python's ``random`` and numpy's); ``session()`` opens a new session and
``cached_session()`` / ``test_session()`` one kept for the whole test (closed in
``tearDown``), each as the default session with its graph as the default graph, and
``use_gpu=False`` pins the ops built inside to the CPU (the defaults are TF 2's
``tf.compat.v1``: ``use_gpu=True``, where TF 1.15's were False).
``evaluate`` runs tensors (any nest of them) in the default session or the cached one.
The assertions take tensors (evaluated) or array-likes, as TF's do, and fail with
TF's messages: where the values differ, by how much, at which path of a nest.
"""

from __future__ import annotations

import atexit
import collections.abc
import contextlib
import random
import copy
import re
import shutil
import tempfile
import threading
import unittest

import numpy as np

from . import defaults, nest
from .device_listing import gpu_device_name
from .device_spec import DeviceSpec
from .errors import InvalidArgumentError, OpError
from .config import ConfigProto
from .graph import Tensor, reset_default_graph
from .ops.random import set_random_seed
from .session import Session, get_default_session

__all__ = ["TestCase", "DEFAULT_GRAPH_SEED", "temp_root"]

DEFAULT_GRAPH_SEED = 87654321      # TF's random_seed.DEFAULT_GRAPH_SEED
_TEMP_ROOT: list = []


def temp_root() -> str:
    """This process's folder for tests' files (``tf.test.get_temp_dir``), removed when
    the process exits."""
    if not _TEMP_ROOT:
        _TEMP_ROOT.append(tempfile.mkdtemp(prefix="devsession_test_"))
        atexit.register(shutil.rmtree, _TEMP_ROOT[0], ignore_errors=True)
    return _TEMP_ROOT[0]


class TestCase(unittest.TestCase):
    """TF1's ``tf.test.TestCase`` for graph-mode tests (module docstring)."""

    def __init__(self, methodName: str = "runTest"):
        super().__init__(methodName)
        self._cached_session = None
        self._cached_with = None          # (graph, config, force_gpu) it was asked with
        self._tempdir = None
        self._threads: list = []

    # --- fixture ---------------------------------------------------------------------------

    def setUp(self):
        super().setUp()
        self._close_cached_session()
        random.seed(DEFAULT_GRAPH_SEED)
        np.random.seed(DEFAULT_GRAPH_SEED)
        del defaults.graph_stack()[:]     # a failed test may have left a graph entered
        reset_default_graph()
        set_random_seed(DEFAULT_GRAPH_SEED)
        if self.id().endswith(".test_session"):
            self.skipTest("A test named 'test_session' is skipped, as TF's fixture skips "
                          "it: the name is the session method's.")

    def tearDown(self):
        for thread in self._threads:
            thread.check_termination()
        self._close_cached_session()
        super().tearDown()

    def get_temp_dir(self) -> str:
        """A folder of this test's own, the same one for each call within the test."""
        if self._tempdir is None:
            self._tempdir = tempfile.mkdtemp(dir=temp_root())
        return self._tempdir

    # --- sessions --------------------------------------------------------------------------

    @contextlib.contextmanager
    def session(self, graph=None, config=None, use_gpu: bool = True,
                force_gpu: bool = False):
        """A new session on ``graph`` (default: the default graph), closed on exit."""
        with self._new_session(graph, config, force_gpu) as sess:
            with self._as_default(sess, use_gpu, force_gpu):
                yield sess

    @contextlib.contextmanager
    def cached_session(self, graph=None, config=None, use_gpu: bool = True,
                       force_gpu: bool = False):
        """The session this test keeps: made on the first call, on the graph then the
        default; a later call asking with another graph, config or force_gpu is a
        ValueError (use ``session()`` for another one)."""
        sess = self._kept_session(graph, config, force_gpu, strict=True)
        with self._as_default(sess, use_gpu, force_gpu):
            yield sess

    @contextlib.contextmanager
    def test_session(self, graph=None, config=None, use_gpu: bool = True,
                     force_gpu: bool = False):
        """TF1's older name: the kept session without ``graph``, else a new one."""
        if graph is None:
            sess = self._kept_session(graph, config, force_gpu, strict=False)
            with self._as_default(sess, use_gpu, force_gpu):
                yield sess
        else:
            with self.session(graph, config, use_gpu, force_gpu) as sess:
                yield sess

    def evaluate(self, tensors):
        """The values of ``tensors`` (a tensor or any nest of them), run in the default
        session, or in the kept one when there is none."""
        flat = nest.flatten(tensors)
        sess = get_default_session()
        if sess is None:
            with self.test_session() as sess:
                values = sess.run(flat)
        else:
            values = sess.run(flat)
        return nest.pack_sequence_as(tensors, values)

    def _new_session(self, graph, config, force_gpu: bool) -> Session:
        """Soft placement unless ``force_gpu`` (a given config is copied, not changed)."""
        if config is None:
            config = ConfigProto(allow_soft_placement=not force_gpu)
        elif force_gpu and config.allow_soft_placement:
            config = copy.deepcopy(config)
            config.allow_soft_placement = False
        return Session(graph=graph, config=config)

    def _kept_session(self, graph, config, force_gpu: bool, strict: bool) -> Session:
        asked = (graph, config, force_gpu)
        if self._cached_session is None:
            self._cached_session = self._new_session(graph, config, force_gpu)
            self._cached_with = asked
        elif strict:
            for what, now, then in zip(("graph", "config", "force_gpu"), asked,
                                       self._cached_with):
                if now is not then and now != then:
                    raise ValueError(
                        f"The {what} asked for differs from the one the cached session "
                        f"was made with: use self.session() for a session of its own.")
        return self._cached_session

    @contextlib.contextmanager
    def _as_default(self, sess: Session, use_gpu: bool, force_gpu: bool):
        """``sess`` and its graph as the defaults; the ops built inside on a GPU with
        ``force_gpu``, on the CPU without ``use_gpu``, where placement puts them else."""
        with sess.graph.as_default(), sess.as_default():
            if force_gpu:
                with sess.graph.device(gpu_device_name() or "/device:GPU:0"):
                    yield sess
            elif not use_gpu:
                with sess.graph.device("/device:CPU:0"):
                    yield sess
            else:
                yield sess

    def _close_cached_session(self) -> None:
        if self._cached_session is not None:
            self._cached_session.close()
            self._cached_session = self._cached_with = None

    # --- threads ---------------------------------------------------------------------------

    def checkedThread(self, target, args=None, kwargs=None) -> "CheckedThread":  # noqa: N802
        """A thread whose exception fails the test when it is joined, and which must
        have been joined by the end of the test."""
        thread = CheckedThread(self, target, args, kwargs)
        self._threads.append(thread)
        return thread

    # --- values ----------------------------------------------------------------------------

    def _as_array(self, value) -> np.ndarray:
        if _is_graph_value(value):
            value = self.evaluate(value)
        if isinstance(value, np.ndarray):
            return value
        try:
            return np.array(value)
        except ValueError as e:
            if "inhomogeneous" not in str(e):
                raise
            return np.array(value, dtype=object)

    def _both_evaluated(self, a, b):
        """Two tensors run in one step (seeded random ops then agree), else as given."""
        if _is_graph_value(a) and _is_graph_value(b):
            return self.evaluate((a, b))
        return a, b

    # --- closeness -------------------------------------------------------------------------

    def assertNear(self, f1, f2, err, msg=None):  # noqa: N802
        f1, f2 = np.squeeze(f1), np.squeeze(f2)
        if f1 != f2:
            diff = abs(float(f1) - float(f2))
            self.assertTrue(diff <= err, f"{float(f1):f} != {float(f2):f} +/- {err:f} "
                            f"(difference: {diff:g})" + (f" ({msg})" if msg else ""))

    def assertArrayNear(self, farray1, farray2, err, msg=None):  # noqa: N802
        self.assertEqual(len(farray1), len(farray2), msg=msg)
        for f1, f2 in zip(farray1, farray2):
            self.assertNear(float(f1), float(f2), err, msg=msg)

    def assertNDArrayNear(self, ndarray1, ndarray2, err, msg=None):  # noqa: N802
        """The Frobenius norm of the difference below ``err``."""
        self.assertTrue(np.linalg.norm(np.asarray(ndarray1) - np.asarray(ndarray2)) < err,
                        msg=msg)

    def assertAllClose(self, a, b, rtol=1e-6, atol=1e-6, msg=None):  # noqa: N802
        """``a`` and ``b`` close element by element (NaN where NaN), through nests of
        dicts, namedtuples, lists and tuples; tensors are evaluated."""
        self._all_close(a, b, rtol, atol, [], msg or "")

    def assertAllCloseAccordingToType(self, a, b, rtol=1e-6, atol=1e-6,  # noqa: N802
                                      float_rtol=1e-6, float_atol=1e-6, half_rtol=1e-3,
                                      half_atol=1e-3, bfloat16_rtol=1e-2,
                                      bfloat16_atol=1e-2, msg=None):
        """``assertAllClose`` with the tolerances widened to the values' precision
        (devsession has no bfloat16: its tolerances are TF's signature only)."""
        a, b = self._both_evaluated(a, b)
        a, b = self._as_array(a), self._as_array(b)
        kinds = {a.dtype, b.dtype}
        if kinds & {np.dtype(np.float32), np.dtype(np.complex64)}:
            rtol, atol = max(rtol, float_rtol), max(atol, float_atol)
        if np.dtype(np.float16) in kinds:
            rtol, atol = max(rtol, half_rtol), max(atol, half_atol)
        self.assertAllClose(a, b, rtol=rtol, atol=atol, msg=msg)

    def assertNotAllClose(self, a, b, rtol=1e-6, atol=1e-6, msg=None):  # noqa: N802
        try:
            self.assertAllClose(a, b, rtol=rtol, atol=atol, msg=msg)
        except AssertionError:
            return
        raise AssertionError(f"The two values are close at all elements. {msg or ''}")

    def _all_close(self, a, b, rtol, atol, path: list, msg: str) -> None:
        where = "".join(f"[{p}]" for p in path)
        a = a._asdict() if hasattr(a, "_asdict") else a
        b = b._asdict() if hasattr(b, "_asdict") else b
        if isinstance(a, collections.abc.Mapping) != isinstance(b, collections.abc.Mapping):
            raise ValueError(f"Can't compare dict to non-dict, a{where} vs b{where}. {msg}")
        mismatch = f"Mismatched value: a{where} is different from b{where}. {msg}"
        if isinstance(a, collections.abc.Mapping):
            self.assertCountEqual(a.keys(), b.keys(),
                                  msg=f"mismatched keys: a{where} has keys {a.keys()}, but "
                                      f"b{where} has keys {b.keys()}. {msg}")
            for key in a:
                self._all_close(a[key], b[key], rtol, atol, path + [key], msg)
        elif isinstance(a, (list, tuple)):
            try:                              # as one array where the items stack
                a, b = self._both_evaluated(a, b)
                self._arrays_close(self._as_array(a), self._as_array(b), rtol, atol,
                                   mismatch)
            except (ValueError, TypeError, NotImplementedError):
                if len(a) != len(b):
                    raise ValueError(f"Mismatched length: a{where} has {len(a)} items, but "
                                     f"b{where} has {len(b)} items. {msg}") from None
                for k, (a_item, b_item) in enumerate(zip(a, b)):
                    self._all_close(a_item, b_item, rtol, atol, path + [str(k)], msg)
        else:
            try:
                self._arrays_close(a, b, rtol, atol, mismatch)
            except TypeError as e:
                e.args = (f"{e.args[0] if e.args else e} : Error: a{where} has {type(a)}, "
                          f"but b{where} has {type(b)}. {msg}",) + e.args[1:]
                raise

    def _arrays_close(self, a, b, rtol, atol, msg: str) -> None:
        a, b = self._both_evaluated(a, b)
        a, b = self._as_array(a), self._as_array(b)
        self.assertEqual(a.shape, b.shape, _shape_mismatch(a, b))
        if np.allclose(a, b, rtol=rtol, atol=atol, equal_nan=True):
            return
        with np.errstate(invalid="ignore"):
            far = np.logical_or(np.abs(a - b) > atol + rtol * np.abs(b),
                                np.isnan(a) != np.isnan(b))
        lines = [msg]
        x, y = (a[np.nonzero(far)], b[np.nonzero(far)]) if a.ndim else (a, b)
        if a.ndim:
            lines.append(f"not close where = {np.nonzero(far)}")
        lines += [f"not close lhs = {x}", f"not close rhs = {y}",
                  f"not close dif = {np.abs(x - y)}",
                  f"not close tol = {atol + rtol * np.abs(y)}",
                  f"dtype = {a.dtype}, shape = {a.shape}"]
        np.testing.assert_allclose(a, b, rtol=rtol, atol=atol, err_msg="\n".join(lines),
                                   equal_nan=True)

    # --- equality and order ----------------------------------------------------------------

    def assertAllEqual(self, a, b, msg=None):  # noqa: N802
        """Same shape and equal elements (NaN equals NaN); str and bytes compare as
        bytes, as TF's strings are."""
        msg = msg or ""
        a, b = self._both_evaluated(a, b)
        a, b = self._as_array(a), self._as_array(b)
        self.assertEqual(a.shape, b.shape, f"{_shape_mismatch(a, b)} {msg}")
        a, b = _as_bytes_if_text(a, b)
        same = a == b
        if a.dtype.kind in "fc" and b.dtype.kind in "fc":
            same = np.logical_or(same, np.logical_and(np.isnan(a), np.isnan(b)))
        if np.all(same):
            return
        lines = [msg]
        x, y = (a[np.nonzero(~same)], b[np.nonzero(~same)]) if a.ndim else (a, b)
        if a.ndim:
            lines.append(f"not equal where = {np.nonzero(~same)}")
        lines += [f"not equal lhs = {x!r}", f"not equal rhs = {y!r}"]
        np.testing.assert_array_equal(a, b, err_msg="\n".join(lines))

    def assertNotAllEqual(self, a, b, msg=None):  # noqa: N802
        try:
            self.assertAllEqual(a, b)
        except AssertionError:
            return
        raise AssertionError(f"The two values are equal at all elements. {msg or ''}")

    def assertAllGreater(self, a, comparison_target):  # noqa: N802
        a, comparison_target = self._both_evaluated(a, comparison_target)
        self.assertGreater(np.min(self._as_array(a)), comparison_target)

    def assertAllLess(self, a, comparison_target):  # noqa: N802
        a, comparison_target = self._both_evaluated(a, comparison_target)
        self.assertLess(np.max(self._as_array(a)), comparison_target)

    def assertAllGreaterEqual(self, a, comparison_target):  # noqa: N802
        a, comparison_target = self._both_evaluated(a, comparison_target)
        self.assertGreaterEqual(np.min(self._as_array(a)), comparison_target)

    def assertAllLessEqual(self, a, comparison_target):  # noqa: N802
        a, comparison_target = self._both_evaluated(a, comparison_target)
        self.assertLessEqual(np.max(self._as_array(a)), comparison_target)

    def assertAllInRange(self, target, lower_bound, upper_bound,  # noqa: N802
                         open_lower_bound=False, open_upper_bound=False):
        """Every element within the bounds (open or closed) and none NaN."""
        target = self._as_array(target)
        if target.dtype.kind not in "iuf":
            raise AssertionError(f"The value of {target} does not have an ordered numeric "
                                 f"type, instead it has type: {target.dtype}")
        nans = np.nonzero(np.isnan(target)) if target.dtype.kind == "f" else ()
        if np.size(nans):
            raise AssertionError(
                f"{len(nans[0])} of the {target.size} element(s) are NaN. Subscripts(s) "
                f"and value(s) of the NaN element(s):\n" + _listed(nans, target))
        below = target <= lower_bound if open_lower_bound else target < lower_bound
        above = target >= upper_bound if open_upper_bound else target > upper_bound
        outside = np.nonzero(np.logical_or(below, above))
        if np.size(outside):
            bounds = (("(" if open_lower_bound else "[") + f"{lower_bound}, {upper_bound}"
                      + (")" if open_upper_bound else "]"))
            raise AssertionError(
                f"{len(outside[0])} of the {target.size} element(s) are outside the range "
                f"{bounds}. Subscript(s) and value(s) of the offending elements:\n"
                + _listed(outside, target))

    def assertAllInSet(self, target, expected_set):  # noqa: N802
        extra = np.setdiff1d(self._as_array(target).flatten(), list(expected_set))
        if np.size(extra):
            raise AssertionError(f"{np.size(extra)} unique element(s) are not in the set "
                                 f"{expected_set}: {extra}")

    def assertDTypeEqual(self, target, expected_dtype):  # noqa: N802
        self.assertEqual(self._as_array(target).dtype, expected_dtype)

    def assertShapeEqual(self, input_a, input_b, msg=None):  # noqa: N802
        """A numpy array's shape against a tensor's static shape (or either way)."""
        shapes = []
        for name, value in (("input_a", input_a), ("input_b", input_b)):
            if not isinstance(value, (np.ndarray, np.generic, Tensor)):
                raise TypeError(f"{name} must be a Numpy ndarray, Numpy scalar, or a Tensor."
                                f"Instead received {type(value)}")
            shapes.append(value.get_shape().as_list() if isinstance(value, Tensor)
                          else value.shape)
        self.assertAllEqual(shapes[0], shapes[1], msg=msg)

    def assertDeviceEqual(self, device1, device2, msg=None):  # noqa: N802
        device1 = DeviceSpec.parse(device1 or "").to_string()
        device2 = DeviceSpec.parse(device2 or "").to_string()
        self.assertEqual(device1, device2,
                         f"Devices {device1} and {device2} are not equal. {msg}")

    def assertStartsWith(self, actual, expected_start, msg=None):  # noqa: N802
        if not actual.startswith(expected_start):
            self.fail(f"{actual!r} does not start with {expected_start!r}"
                      + (f" : {msg!r}" if msg else ""))

    # --- absltest's, which TF's TestCase inherits ------------------------------------------

    assertItemsEqual = unittest.TestCase.assertCountEqual          # noqa: N815

    def assertLen(self, container, expected_len, msg=None):  # noqa: N802
        if len(container) != expected_len:
            self.fail(f"{container!r} has length of {len(container)}, expected "
                      f"{expected_len}." + (f" : {msg}" if msg else ""))

    def assertEmpty(self, container, msg=None):  # noqa: N802
        if len(container):
            self.fail(f"{container!r} has length of {len(container)}."
                      + (f" : {msg}" if msg else ""))

    def assertNotEmpty(self, container, msg=None):  # noqa: N802
        if not len(container):
            self.fail(f"{container!r} has length of 0." + (f" : {msg}" if msg else ""))

    # --- errors and protos -----------------------------------------------------------------

    @contextlib.contextmanager
    def assertRaisesWithPredicateMatch(self, exception_type,  # noqa: N802
                                       expected_err_re_or_predicate):
        """The block raises ``exception_type`` whose message matches the regex (an
        OpError's message, its node's name appended) or satisfies the predicate."""
        if callable(expected_err_re_or_predicate):
            predicate = expected_err_re_or_predicate
        else:
            def predicate(e):
                text = e.message if isinstance(e, OpError) else str(e)
                if isinstance(e, OpError) and e.node_name:
                    text += f"\nCaused by: {e.node_name}"
                return re.search(expected_err_re_or_predicate, text)
        try:
            yield
            self.fail(f"{exception_type.__name__} not raised")    # reported as TF's is:
        except Exception as e:                     # noqa: BLE001  (below, as any other)
            if not isinstance(e, exception_type) or not predicate(e):
                raise AssertionError(f"Exception of type {type(e)}: {e}") from e

    def assertRaisesOpError(self, expected_err_re_or_predicate):  # noqa: N802
        return self.assertRaisesWithPredicateMatch(OpError, expected_err_re_or_predicate)

    def assertRaisesIncompatibleShapesError(  # noqa: N802
            self, exception_type=InvalidArgumentError):
        return self.assertRaisesWithPredicateMatch(
            exception_type, r"Incompatible shapes|Dimensions must be equal|"
                            r"required broadcastable shapes")

    def assertProtoEquals(self, expected_message_maybe_ascii, message, msg=None):  # noqa: N802
        """``message`` equals the proto given, or the one its text format describes."""
        from google.protobuf import text_format

        expected = expected_message_maybe_ascii
        if isinstance(expected, (str, bytes)):
            expected = text_format.Parse(expected, type(message)())
        elif type(expected) is not type(message):
            self.fail(f"Can't compare protos of type {type(expected).__name__} and "
                      f"{type(message).__name__}. {msg or ''}")
        self.assertMultiLineEqual(text_format.MessageToString(expected),
                                  text_format.MessageToString(message), msg)


class CheckedThread:
    """A thread for ``TestCase.checkedThread``: ``join`` fails the test with the
    exception the target raised; ``check_termination`` fails it if still running."""

    def __init__(self, testcase: TestCase, target, args=None, kwargs=None):
        self._testcase = testcase
        self._target, self._args, self._kwargs = target, args or (), kwargs or {}
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._exception = None
        self._started = False

    def _run(self):
        try:
            self._target(*self._args, **self._kwargs)
        except Exception as e:                     # noqa: BLE001  (reported at join)
            self._exception = e

    def start(self):
        self._started = True
        self._thread.start()

    def join(self):
        self._thread.join()
        if self._exception is not None:
            self._testcase.fail(f"Error in checkedThread: {self._exception}")

    def is_alive(self) -> bool:
        return self._thread.is_alive()

    def check_termination(self):
        if self._started and self._thread.is_alive():
            self._testcase.fail("Thread was not joined.")


def _is_graph_value(value) -> bool:
    from .variables import Variable

    return isinstance(value, (Tensor, Variable))


def _shape_mismatch(a: np.ndarray, b: np.ndarray) -> str:
    text = f"Shape mismatch: expected {a.shape}, got {b.shape}"
    return f"{text} with contents {b}." if b.ndim <= 3 or b.size < 500 else text + "."


def _as_bytes_if_text(a: np.ndarray, b: np.ndarray):
    """str against bytes compares as TF's strings (bytes) do."""
    if a.dtype.kind != b.dtype.kind and {a.dtype.kind, b.dtype.kind} <= set("USO"):
        def encoded(x):
            return np.array([v.encode() if isinstance(v, str) else v for v in x.flat],
                            dtype=object).reshape(x.shape)
        return encoded(a), encoded(b)
    return a, b


def _listed(subscripts, values: np.ndarray, limit: int = 10) -> str:
    if values.ndim == 0:
        return f"  [0] : {values}"
    rows = np.transpose(subscripts)
    lines = [f"  {row} : {values[tuple(row)]}" for row in rows[:limit]]
    return "\n".join(lines + (["  ..."] if len(rows) > limit else []))
