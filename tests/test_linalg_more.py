"""The tf.linalg functions beyond the dense solves and decompositions, against the values
TF 2.21 computed for the cases of tests/data/linalg_more_cases.py (recorded by
make_linalg_more.py):

* ``lu`` (TF's Lu op: the packed factors and permutation, Eigen's pivots, the first of
  equal magnitudes) and TF's compositions ``lu_solve``, ``lu_reconstruct``,
  ``lu_matrix_inverse``; Lu's missing gradient (TF registers none);
* ``sqrtm``/``matrix_square_root``, ``logm`` (diagonalisable and defective matrices, TF's
  NaNs), ``expm`` (every Pade order), ``pinv``, ``matrix_rank``;
* ``tridiagonal_solve`` (three formats, pivoting, Thomas, ``perturb_singular``),
  ``tridiagonal_matmul``, ``eigh_tridiagonal``;

* a NaN or inf in a matrix: TF's (Eigen's) pivots and verdicts for Lu, the inverse, the
  solves and the determinants (values TF 2.21 computed, written in the test);

batches, 1 x 1 and empty matrices, float32, float64 and complex where TF allows; TF's
run-time InvalidArgumentErrors, build-time ValueErrors and TypeErrors, static shapes;
the gradients TF computes and finite differences; a GraphDef TF wrote.
"""

from __future__ import annotations

import os

import numpy as np
import pytest

import devsession as ds
import linalg_more_cases as cases
from devsession.kernels.reference.linalg_lu import lu_factor
from test_linalg_ops import check_graph_gradient

RECORDED = np.load(os.path.join(os.path.dirname(cases.__file__), "linalg_more.npz"))


@pytest.fixture(scope="module")
def values():
    graph = ds.Graph()
    with graph.as_default():
        fetches = cases.build(ds)
        with ds.Session(graph=graph) as sess:
            return sess.run(fetches)


def _parts(value):
    return value if isinstance(value, tuple) else (value,)


@pytest.mark.parametrize("name", sorted({k.split(":")[0] for k in RECORDED
                                          if not k.startswith("error:")}))
def test_values_are_tfs(values, name):
    for k, got in enumerate(_parts(values[name])):
        want = RECORDED[f"{name}:{k}"]
        assert got.dtype == want.dtype, (name, k, got.dtype, want.dtype)
        assert got.shape == want.shape, (name, k)
        if want.dtype.kind in "iu":
            np.testing.assert_array_equal(got, want)
        else:
            tol = 1e-5 if want.dtype in (np.float32, np.complex64) else 1e-10
            np.testing.assert_allclose(got, want, rtol=tol, atol=tol)


@pytest.mark.parametrize("name", sorted(cases.ERRORS))
def test_run_time_errors_are_tfs(name):
    graph = ds.Graph()
    with graph.as_default():
        fetch, feed = cases.build_error(ds, name)
        with ds.Session(graph=graph) as sess, \
                pytest.raises(ds.errors.InvalidArgumentError) as info:
            sess.run(fetch, feed)
    assert str(RECORDED[f"error:{name}"]) in str(info.value)
    assert fetch[0].op.name in str(info.value)


def test_float16_has_no_kernel_as_in_tf():
    with ds.Graph().as_default(), ds.Session() as sess:
        lu = ds.linalg.lu(ds.constant([[1.0, 2.0], [3.0, 4.0]], ds.float16))
        with pytest.raises(ds.errors.InvalidArgumentError, match="No OpKernel.*T=DT_HALF"):
            sess.run(lu)


def test_static_shapes_and_build_errors():
    with ds.Graph().as_default():
        lu, p = ds.linalg.lu(ds.placeholder(ds.float32, [None, 5, 5]),
                             output_idx_type=ds.int64)
        assert lu.shape.as_list() == [None, 5, 5] and p.shape.as_list() == [None, 5]
        assert p.dtype == ds.int64 and lu.op.type == "Lu"
        assert lu.op.get_attr("output_idx_type") == ds.int64
        unknown = ds.linalg.lu(ds.placeholder(ds.float64))
        assert unknown.lu.shape.ndims is None and unknown.p.shape.ndims is None
        with pytest.raises(ValueError, match="Dimensions must be equal, but are 2 and 3"):
            ds.linalg.lu(ds.zeros([2, 3]))
        with pytest.raises(ValueError, match="at least rank 2"):
            ds.linalg.lu(ds.zeros([3]))
        with pytest.raises(TypeError, match="int32 not in list of allowed values"):
            ds.linalg.lu(ds.zeros([3, 3], ds.int32))
        with pytest.raises(TypeError, match="output_idx_type"):
            ds.linalg.lu(ds.zeros([3, 3]), output_idx_type=ds.float32)
        square = ds.zeros([3, 3])
        with pytest.raises(ValueError, match="rhs.shape"):
            ds.linalg.lu_solve(square, ds.zeros([3], ds.int32), ds.zeros([2, 2]))
        with pytest.raises(ValueError, match="Input `rhs` must have at least 2"):
            ds.linalg.lu_solve(square, ds.zeros([3], ds.int32), ds.zeros([3]))
        with pytest.raises(ValueError, match="must equal `rank\\(perm\\) \\+ 1`"):
            ds.linalg.lu_reconstruct(square, ds.zeros([1, 3], ds.int32))
        with pytest.raises(ValueError, match="`lower_upper` must be square"):
            ds.linalg.lu_matrix_inverse(ds.zeros([3, 2]), ds.zeros([3], ds.int32))
        with pytest.raises(ValueError, match="at least 2 dimensions"):
            ds.linalg.lu_reconstruct(ds.zeros([3]), ds.zeros([], ds.int32))


def test_lu_compositions_are_named_as_tfs():
    """The names TF 2.21 gives (the batch's inverse permutation indexes a range by
    ``[:, newaxis]``, a StridedSlice: the result is the third Reshape)."""
    with ds.Graph().as_default():
        lu = ds.placeholder(ds.float32, [2, 3, 3], name="lu")
        p = ds.placeholder(ds.int32, [2, 3], name="p")
        got = [ds.linalg.lu_reconstruct(lu, p).name, ds.linalg.lu_reconstruct(lu[0], p[0]).name,
               ds.linalg.lu_solve(lu, p, ds.ones([2, 3, 1])).name,
               ds.linalg.lu_reconstruct(ds.placeholder(ds.float32), p).name]
    assert got == ["lu_reconstruct/Reshape_2:0", "lu_reconstruct_1/GatherV2:0",
                   "lu_solve/triangular_solve_1/MatrixTriangularSolve:0",
                   "lu_reconstruct_2/Reshape_2:0"]


def test_expm_is_named_as_tfs():
    """TF 2.21's names: the l1 norm takes its two new axes by ``[..., newaxis, newaxis]``
    (StridedSlice), so the result is the second Reshape, whatever the shape known."""
    with ds.Graph().as_default():
        got = [ds.linalg.expm(ds.eye(2)).name,
               ds.linalg.expm(ds.placeholder(ds.float64, [2, 3, 3])).name,
               ds.linalg.expm(ds.placeholder(ds.float32)).name]
    assert got == ["matrix_exponential/Reshape_1:0", "matrix_exponential_1/Reshape_1:0",
                   "matrix_exponential_2/Reshape_1:0"]


def test_lu_has_no_gradient_as_in_tf():
    with ds.Graph().as_default():
        a = ds.placeholder(ds.float64, [3, 3])
        with pytest.raises(LookupError, match="Lu"):
            ds.gradients(ds.reduce_sum(ds.linalg.lu(a).lu), a)


NAN = np.nan
# TF 2.21's results for matrices holding a NaN: Eigen's PartialPivLU never picks a NaN
# below the diagonal as the pivot, and refuses the factor (Lu, MatrixInverse,
# MatrixSolve) only when its first pivot is NaN; triangular solves substitute row by row;
# no numpy RuntimeWarning on the way
NAN_CASES = {
    "first_pivot": ([[NAN, 1.0], [1.0, 2.0]], {
        "inv": None, "lu": None, "solve": None, "tri": [NAN, NAN], "slogdet": [NAN, NAN],
        "det": NAN}),
    "below_diagonal": ([[1.0, 2.0], [NAN, 3.0]], {
        "inv": [[NAN, NAN], [NAN, NAN]], "lu": [[1.0, 2.0], [NAN, NAN]], "solve": [NAN, NAN],
        "tri": [1.0, NAN], "upper_adjoint": [1.0, -1.0 / 3.0], "slogdet": [NAN, NAN],
        "det": NAN}),
    "last_pivot": ([[1.0, 1.0], [1.0, NAN]], {
        "inv": [[NAN, NAN], [NAN, NAN]], "lu": [[1.0, 1.0], [1.0, NAN]], "solve": [NAN, NAN],
        "tri": [1.0, NAN], "slogdet": [NAN, NAN], "det": NAN}),
    "infinite": ([[np.inf, 1.0], [1.0, 2.0]], {
        "inv": [[0.0, 0.0], [0.0, 0.5]], "lu": [[np.inf, 1.0], [0.0, 2.0]], "solve": [0.0, 0.5],
        "tri": [0.0, 0.5], "slogdet": [1.0, np.inf], "det": np.inf}),
}


@pytest.mark.parametrize("case", sorted(NAN_CASES))
def test_a_nan_or_inf_in_a_matrix_is_tfs_verdict(case, recwarn):
    value, want = NAN_CASES[case]
    with ds.Graph().as_default():
        x = ds.placeholder(ds.float32, [2, 2])
        ops = {"inv": ds.matrix_inverse(x), "lu": ds.linalg.lu(x).lu,
               "solve": ds.linalg.solve(x, ds.ones([2, 1]))[:, 0],
               "tri": ds.linalg.triangular_solve(x, ds.ones([2, 1]))[:, 0],
               "upper_adjoint": ds.linalg.triangular_solve(x, ds.ones([2, 1]), lower=False,
                                                           adjoint=True)[:, 0],
               "slogdet": ds.stack(ds.linalg.slogdet(x)), "det": ds.linalg.det(x)}
        with ds.Session() as sess:
            for key, expected in want.items():
                if expected is None:
                    with pytest.raises(ds.errors.InvalidArgumentError,
                                       match="Input (matrix )?is not invertible"):
                        sess.run(ops[key], {x: value})
                else:
                    np.testing.assert_allclose(sess.run(ops[key], {x: value}), expected,
                                               rtol=1e-6, err_msg=key)
    assert not [w for w in recwarn if issubclass(w.category, RuntimeWarning)]


def test_lu_solve_gradients_against_finite_differences():
    lu, p = lu_factor(cases.INPUTS["batch"][0])             # [3, 4, 4], [3, 4]
    p = p.astype(np.int32)
    rhs = cases.INPUTS["rhs"][0]
    check_graph_gradient(lambda f, r: ds.linalg.lu_solve(f, p, r), [lu, rhs])
    check_graph_gradient(lambda f: ds.linalg.lu_reconstruct(f, p), [lu])


def test_matrix_functions_build_errors_and_shapes():
    with ds.Graph().as_default():
        with pytest.raises(TypeError, match="float64 not in list of allowed values: "
                                            "complex64, complex128"):
            ds.linalg.logm(ds.zeros([2, 2], ds.float64))
        with pytest.raises(TypeError, match="int32 not in list of allowed values"):
            ds.linalg.sqrtm(ds.zeros([2, 2], ds.int32))
        with pytest.raises(ValueError, match="Dimensions must be equal"):
            ds.matrix_square_root(ds.zeros([2, 3]))
        with pytest.raises(TypeError, match="Input `a` must have `float`-like `dtype`"):
            ds.linalg.pinv(ds.zeros([2, 2], ds.int32))
        with pytest.raises(ValueError, match="Input `a` must have at least 2 dimensions"):
            ds.linalg.matrix_rank(ds.zeros([2]))
        with pytest.raises(ValueError, match="tf.linalg.expm does not support"):
            ds.linalg.expm(ds.zeros([2, 2], ds.int32))
        assert ds.linalg.sqrtm(ds.placeholder(ds.float32, [None, 4, 4])).shape.as_list() \
            == [None, 4, 4]
        assert ds.linalg.pinv(ds.placeholder(ds.float32, [3, 5, 2])).shape.as_list() \
            == [3, 2, 5]
        assert ds.linalg.expm(ds.placeholder(ds.float64, [2, 3, 3])).shape.as_list() \
            == [2, 3, 3]
        assert ds.linalg.matrix_rank(ds.placeholder(ds.float64, [2, 3, 4])).dtype == ds.int32


def test_matrix_functions_with_unknown_shapes():
    x = ds.placeholder(ds.float64)
    e, p, r = ds.linalg.expm(x), ds.linalg.pinv(x), ds.linalg.matrix_rank(x)
    value = cases.INPUTS["expm"]
    with ds.Session() as sess:
        got = sess.run([e, p, r], {x: value})
    np.testing.assert_allclose(got[0], RECORDED["expm:0"], rtol=1e-10)
    np.testing.assert_allclose(got[1], np.linalg.pinv(value), rtol=1e-8, atol=1e-10)
    np.testing.assert_array_equal(got[2], [3] * 5)


def test_sqrtm_float16_has_no_kernel_as_in_tf():
    with ds.Graph().as_default(), ds.Session() as sess:
        root = ds.linalg.sqrtm(ds.constant([[4.0]], ds.float16))
        with pytest.raises(ds.errors.InvalidArgumentError, match="No OpKernel.*T=DT_HALF"):
            sess.run(root)


def test_sqrtm_gradient_against_finite_differences():
    from gradient_check import check_op_gradient

    check_op_gradient(ds.linalg.sqrtm, [cases.INPUTS["spd"]], rtol=1e-5)
    check_graph_gradient(ds.linalg.expm, [cases.INPUTS["expm"][1:4]])


def test_tridiagonal_gradients_against_finite_differences():
    from gradient_check import check_op_gradient

    tri, rhs = cases.INPUTS["tri_dominant"], cases.INPUTS["tri_rhs"]
    check_op_gradient(lambda d, r: ds.linalg.tridiagonal_solve(d, r), [tri, rhs])
    check_op_gradient(lambda d, r: ds.linalg.tridiagonal_solve(d, r, partial_pivoting=False),
                      [tri, rhs])
    check_graph_gradient(lambda d, r: ds.linalg.tridiagonal_matmul(d, r), [tri, rhs])


def test_tridiagonal_build_errors_as_tfs():
    with ds.Graph().as_default():
        tri, rhs = ds.zeros([2, 3, 4]), ds.zeros([2, 4, 1])
        with pytest.raises(ValueError, match="Expected 3 diagonals got 2"):
            ds.linalg.tridiagonal_solve(ds.zeros([2, 2, 4]), rhs)
        with pytest.raises(ValueError, match="Expected number of left-hand sided and "
                                             "right-hand sides to be equal, got 4 and 5"):
            ds.linalg.tridiagonal_solve(tri, ds.zeros([2, 5, 1]))
        with pytest.raises(ValueError, match="Expected the rank of rhs to be 2 or 3, got 1"):
            ds.linalg.tridiagonal_solve(tri, ds.zeros([4]))
        with pytest.raises(ValueError, match="Batch shapes"):
            ds.linalg.tridiagonal_solve(tri, ds.zeros([3, 4, 1]))
        with pytest.raises(ValueError, match="sequence of length 3"):
            ds.linalg.tridiagonal_solve([ds.zeros([4])] * 2, ds.zeros([4, 1]),
                                        diagonals_format="sequence")
        with pytest.raises(ValueError, match="Expected subdiagonal to be have length 4 or 3"):
            ds.linalg.tridiagonal_solve([ds.zeros([4]), ds.zeros([4]), ds.zeros([2])],
                                        ds.zeros([4, 1]), diagonals_format="sequence")
        with pytest.raises(ValueError, match="Expected last two dimensions"):
            ds.linalg.tridiagonal_matmul(ds.zeros([3, 4]), ds.zeros([4, 1]),
                                         diagonals_format="matrix")
        with pytest.raises(ValueError, match="Unrecognized diagonals_format: band"):
            ds.linalg.tridiagonal_solve(tri, rhs, diagonals_format="band")
        with pytest.raises(ValueError, match="partial_pivoting must be True"):
            ds.linalg.tridiagonal_solve(tri, rhs, partial_pivoting=False,
                                        perturb_singular=True)
        with pytest.raises(TypeError, match="int32 not in list"):
            ds.linalg.tridiagonal_solve(ds.zeros([3, 4], ds.int32), ds.zeros([4, 1], ds.int32))
        assert ds.linalg.tridiagonal_solve(tri, rhs).shape.as_list() == [2, 4, 1]
        assert ds.linalg.tridiagonal_matmul(tri, rhs).op.type == "TridiagonalMatMul"


def test_eigh_tridiagonal_errors_and_vectors():
    with ds.Graph().as_default():
        with pytest.raises(ValueError, match="'alpha' and 'beta' must have the same type"):
            ds.linalg.eigh_tridiagonal(ds.zeros([3]), ds.zeros([2], ds.float64))
        with pytest.raises(ValueError, match="'select must have a value in"):
            ds.linalg.eigh_tridiagonal(ds.zeros([3]), ds.zeros([2]), select="x")
        alpha, beta = np.array([2.0, -1.0, 0.5]), np.array([1.0, 0.3])
        values, vectors = ds.linalg.eigh_tridiagonal(alpha, beta, eigvals_only=False)
        with ds.Session() as sess:
            e, v = sess.run([values, vectors])
    t = np.diag(alpha) + np.diag(beta, 1) + np.diag(beta, -1)
    np.testing.assert_allclose(t @ v, v * e, atol=1e-12)


def test_a_graph_def_written_by_tensorflow_runs_with_tfs_values_and_shapes():
    """tests/data/tf_linalg_more.pb (make_tf_linalg_more_graph.py): TF's Lu,
    MatrixSquareRoot, MatrixLogarithm, TridiagonalSolve and TridiagonalMatMul nodes (and
    lu_solve's graph) import and run with TF's values and static shapes."""
    from tf_recorded import run_recorded, tf_static_shape

    graph, names, values, data = run_recorded("tf_linalg_more")
    assert len(names) == 9
    for name, value in zip(names, values):
        want = data[f"fetch:{name}"]
        assert value.dtype == want.dtype and value.shape == want.shape, name
        assert graph.get_tensor_by_name(name).shape == tf_static_shape(data, name), name
        if want.dtype.kind in "iu":
            np.testing.assert_array_equal(value, want, err_msg=name)
        else:
            np.testing.assert_allclose(value, want, rtol=1e-10, atol=1e-10, err_msg=name)
