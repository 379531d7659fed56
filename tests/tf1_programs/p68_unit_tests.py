"""A TF1 project's unit tests: tf.test.TestCase subclasses using the sessions it offers
(session, cached_session, test_session, evaluate), its assertions on tensors, nests and
arrays, get_temp_dir, checkedThread and tf.test.assert_equal_graph_def.  Each test method
runs on its own (``Case(name).run()``, as unittest runs it); the program records which
pass, fail, error or are skipped, the last line of each failure, and values the tests
saw.  Some tests fail on purpose: the assertions must fail where TensorFlow's do."""

import numpy as np


# the failures whose last line (the assertion's message) is compared too; the others'
# name each library's own text (its error messages, its files)
MESSAGES = {"testAllCloseDictKeys", "testAllCloseMismatch", "testAllCloseShapeMismatch",
            "testAllEqualMismatch", "testAllLessFails", "testCheckedThreadFailure",
            "testInRangeNaN", "testInRangeOpenBound", "testInSetFails", "testNearFails",
            "testNotAllClose", "testRaisesOpErrorNothingRaised", "testShapeEqualFails"}


def _outcome(name: str, result) -> str:
    """pass, skipped, fail (with the message's last line where MESSAGES names the test)
    or error (with the exception's class)."""
    if result.failures:
        last = result.failures[0][1].strip().splitlines()[-1]
        return f"fail: {last}" if name in MESSAGES else "fail"
    if result.errors:
        return "error: " + result.errors[0][1].strip().splitlines()[-1].split(":")[0]
    return "skipped" if result.skipped else "pass"


def main(tf, out):
    seen = {}

    class Pair(tuple):
        """A namedtuple's shape (the programs import only numpy, os and tempfile)."""

        def __new__(cls, left, right):
            return super().__new__(cls, (left, right))

        def _asdict(self):
            return {"left": self[0], "right": self[1]}

    class SessionTests(tf.test.TestCase):
        def testSetUpGivesAFreshSeededGraph(self):
            seen["graph_seed"] = tf.get_default_graph().seed
            seen["ops_at_start"] = len(tf.get_default_graph().get_operations())
            seen["numpy_draw"] = np.random.rand()       # np.random seeded by setUp

        def testSessionIsTheDefault(self):
            with self.session() as sess:
                self.assertIs(tf.get_default_session(), sess)
                self.assertIs(sess.graph, tf.get_default_graph())
                seen["session_run"] = sess.run(tf.constant([1.0, 2.0]) * 3.0)

        def testCachedSessionIsKept(self):
            with self.cached_session() as first:
                x = tf.constant(2.0)
            with self.cached_session() as second:
                seen["cached_same"] = first is second
                seen["cached_value"] = self.evaluate(x * x)

        def testCachedSessionWithAnotherGraphIsAnError(self):
            with self.cached_session():
                pass
            with self.cached_session(graph=tf.Graph()):
                pass

        def testTestSessionWithoutGpuPinsToTheCpu(self):
            with self.test_session(use_gpu=False):
                y = tf.constant(1.0) + 1.0
            seen["pinned_device"] = y.op.device

        def testEvaluateNests(self):
            v = tf.Variable([1.0, 2.0])
            with self.cached_session():
                self.evaluate(tf.global_variables_initializer())
                seen["evaluated"] = self.evaluate(
                    {"sum": tf.reduce_sum(v), "pair": (v * 2.0, tf.constant(3))})

        def testTempDirIsTheTests(self):
            first = self.get_temp_dir()
            seen["temp_dir_kept"] = first == self.get_temp_dir()

    class AssertionTests(tf.test.TestCase):
        def testAllCloseNests(self):
            self.assertAllClose({"a": tf.constant([1.0, 2.0]), "b": Pair(1.0, [2.0, 3.0])},
                                {"a": [1.0, 2.0 + 1e-7], "b": Pair(1.0, [2.0, 3.0])})

        def testAllCloseMismatch(self):
            self.assertAllClose([1.0, 2.0, 3.0], [1.0, 2.5, 3.0])

        def testAllCloseShapeMismatch(self):
            self.assertAllClose(tf.zeros([2, 3]), np.zeros([3, 2]))

        def testAllCloseDictKeys(self):
            self.assertAllClose({"a": 1.0}, {"b": 1.0})

        def testAllCloseAccordingToHalf(self):
            self.assertAllCloseAccordingToType(np.float16([1.0, 2.0]), [1.0005, 2.001])

        def testNotAllClose(self):
            self.assertNotAllClose([1.0], [1.0])

        def testAllEqualStringsAndBytes(self):
            self.assertAllEqual(tf.constant(["ab", "c"]), ["ab", "c"])
            self.assertAllEqual([np.nan, 1.0], [np.nan, 1.0])

        def testAllEqualMismatch(self):
            self.assertAllEqual(tf.range(4), [0, 1, 2, 4])

        def testOrderings(self):
            x = tf.constant([1, 2, 3])
            self.assertAllGreater(x, 0)
            self.assertAllLessEqual(x, 3)
            self.assertAllInRange(x, 1, 3)
            self.assertAllInSet(x, {1, 2, 3, 4})

        def testAllLessFails(self):
            self.assertAllLess(tf.constant([1, 2, 3]), 3)

        def testInRangeOpenBound(self):
            self.assertAllInRange(np.array([0.0, 0.5, 1.0]), 0.0, 1.0, open_upper_bound=True)

        def testInRangeNaN(self):
            self.assertAllInRange(np.array([0.5, np.nan]), 0.0, 1.0)

        def testInSetFails(self):
            self.assertAllInSet([1, 5], [1, 2])

        def testNear(self):
            self.assertNear(1.0, 1.05, 0.1)
            self.assertArrayNear([1.0, 2.0], [1.01, 1.99], 0.02)
            self.assertNDArrayNear(np.ones([2, 2]), np.ones([2, 2]) + 1e-4, 1e-3)

        def testNearFails(self):
            self.assertNear(1.0, 1.5, 0.1)

        def testShapesDtypesDevices(self):
            t = tf.placeholder(tf.float32, [2, 3])
            self.assertShapeEqual(np.zeros([2, 3]), t)
            self.assertDTypeEqual(np.float32([1.0]), np.float32)
            self.assertDeviceEqual("/cpu:0", "/device:CPU:0")

        def testShapeEqualFails(self):
            self.assertShapeEqual(np.zeros([2, 4]), tf.placeholder(tf.float32, [2, 3]))

        def testRaisesOpError(self):
            with self.cached_session():
                with self.assertRaisesOpError(r"indices\[0\] = 5 is not in \[0, 3\)"):
                    self.evaluate(tf.gather(tf.constant([1, 2, 3]), tf.constant([5])))

        def testRaisesOpErrorNothingRaised(self):
            with self.assertRaisesOpError("anything"):
                pass

        def testRaisesOpErrorOtherMessage(self):
            with self.cached_session():
                with self.assertRaisesOpError("something else"):
                    self.evaluate(tf.gather(tf.constant([1, 2, 3]), tf.constant([5])))

        def testRaisesWithPredicate(self):
            with self.assertRaisesWithPredicateMatch(ValueError, lambda e: "Shapes" in str(e)):
                tf.constant([1, 2]) + tf.constant([1, 2, 3])

        def testProtoEquals(self):
            self.assertProtoEquals("dim { size: 2 } dim { size: 3 }",
                                   tf.TensorShape([2, 3]).as_proto())

        def testCheckedThreadFailure(self):
            def work():
                raise RuntimeError("boom")
            thread = self.checkedThread(work)
            thread.start()
            thread.join()

        def testCheckedThreadValues(self):
            results = []
            threads = [self.checkedThread(results.append, args=(k,)) for k in range(3)]
            for thread in threads:
                thread.start()
            for thread in threads:
                thread.join()
            seen["thread_results"] = sorted(results)

        def testGraphDefsEqual(self):
            def build():
                with tf.Graph().as_default() as g:
                    a = tf.placeholder(tf.float32, [None, 2], name="a")
                    tf.identity(tf.matmul(a, tf.ones([2, 2])) + 1.0, name="out")
                return g.as_graph_def()
            tf.test.assert_equal_graph_def(build(), build())

        def testGraphDefsDiffer(self):
            with tf.Graph().as_default() as g1:
                tf.constant(1.0, name="c")
            with tf.Graph().as_default() as g2:
                tf.constant(2.0, name="c")
            tf.test.assert_equal_graph_def(g1.as_graph_def(), g2.as_graph_def())

    outcomes = {}
    for case in (SessionTests, AssertionTests):
        for name in sorted(n for n in dir(case) if n.startswith("test")):
            outcomes[f"{case.__name__}.{name}"] = _outcome(name, case(name).run())
    out["outcomes"] = outcomes
    out["seen"] = seen
