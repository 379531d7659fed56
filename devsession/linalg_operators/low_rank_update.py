"""``LinearOperatorLowRankUpdate``: ``A = L + U D V^H`` for a base operator ``L``,
``[..., M, K]`` factors ``U`` and ``V`` (``V = U`` when not given) and a diagonal
``D`` (the identity when not given).  Products never form ``A``; solves and
determinants use the ``K x K`` capacitance ``C = D^-1 + V^H L^-1 U`` (the Woodbury
identity and the matrix determinant lemma), through its Cholesky factor when ``L``
is self-adjoint positive definite, ``V = U`` and ``D`` is positive, as TF's."""

from __future__ import annotations

from . import tf_api as ds

from . import util
from .base import LinearOperator
from .basic import LinearOperatorDiag
from .identity import LinearOperatorIdentity


class LinearOperatorLowRankUpdate(LinearOperator):
    """``base_operator + u diag(diag_update) v^H``."""

    def __init__(self, base_operator, u, diag_update=None, v=None,
                 is_diag_update_positive=None, is_non_singular=None, is_self_adjoint=None,
                 is_positive_definite=None, is_square=None,
                 name="LinearOperatorLowRankUpdate"):
        """Raises ValueError for hints the update contradicts and for factors whose
        shapes do not fit the base operator."""
        parameters = dict(base_operator=base_operator, u=u, diag_update=diag_update, v=v,
                          is_diag_update_positive=is_diag_update_positive,
                          is_non_singular=is_non_singular, is_self_adjoint=is_self_adjoint,
                          is_positive_definite=is_positive_definite, is_square=is_square,
                          name=name)
        dtype = base_operator.dtype
        if diag_update is None:
            if is_diag_update_positive is False:
                raise ValueError(
                    "Default diagonal is the identity, which is positive.  However, "
                    "user set 'is_diag_update_positive' to False.")
            is_diag_update_positive = True
        self._use_cholesky = bool(
            base_operator.is_positive_definite and base_operator.is_self_adjoint
            and is_diag_update_positive and v is None)
        if base_operator.is_self_adjoint and v is None and not dtype.is_complex:
            if is_self_adjoint is False:
                raise ValueError(
                    "A = L + UDU^H, with L self-adjoint and D real diagonal.  Since"
                    " UDU^H is self-adjoint, this must be a self-adjoint operator.")
            is_self_adjoint = True
        if self._use_cholesky:
            if (is_positive_definite is False or is_self_adjoint is False
                    or is_non_singular is False):
                raise ValueError(
                    "Arguments imply this is self-adjoint positive-definite operator.")
            is_positive_definite = True
            is_self_adjoint = True
        with ds.name_scope(name):
            self._u = ds.convert_to_tensor(u, name="u")
            self._v = self._u if v is None else ds.convert_to_tensor(v, name="v")
            self._diag_update = (None if diag_update is None
                                 else ds.convert_to_tensor(diag_update, name="diag_update"))
            self._base_operator = base_operator
            super().__init__(dtype=dtype, is_non_singular=is_non_singular,
                             is_self_adjoint=is_self_adjoint,
                             is_positive_definite=is_positive_definite,
                             is_square=is_square, parameters=parameters, name=name)
            if self._diag_update is not None:
                self._diag_operator = LinearOperatorDiag(
                    self._diag_update, is_positive_definite=is_diag_update_positive)
            else:
                r = ds.dimension_value(self._u.shape[-1])
                self._diag_operator = LinearOperatorIdentity(
                    r if r is not None else ds.shape(self._u)[-1], dtype=self.dtype)
            self._is_diag_update_positive = is_diag_update_positive
            self._check_shapes()

    def _parameter_ndims(self):
        return {"base_operator": 0, "u": 2, "diag_update": 1, "v": 2}

    def _check_shapes(self):
        uv = ds.broadcast_static_shape(self._u.shape, self._v.shape)
        batch = ds.broadcast_static_shape(self._base_operator.batch_shape, uv[:-2])
        domain = self._base_operator.domain_dimension
        util.check_dims_compatible(domain, uv[-2])
        if self._diag_update is not None:
            util.check_dims_compatible(uv[-1], self._diag_update.shape[-1])
            ds.broadcast_static_shape(batch, self._diag_update.shape[:-1])

    @property
    def u(self):
        return self._u

    @property
    def v(self):
        return self._v

    @property
    def is_diag_update_positive(self):
        return self._is_diag_update_positive

    @property
    def diag_update(self):
        return self._diag_update

    @property
    def diag_operator(self):
        return self._diag_operator

    @property
    def base_operator(self):
        return self._base_operator

    def _shape(self):
        batch = ds.broadcast_static_shape(self._base_operator.batch_shape,
                                          self._diag_operator.batch_shape)
        batch = ds.broadcast_static_shape(batch, self._u.shape[:-2])
        batch = ds.broadcast_static_shape(batch, self._v.shape[:-2])
        return batch.concatenate(self._base_operator.shape[-2:])

    def _shape_tensor(self):
        batch = ds.broadcast_dynamic_shape(self._base_operator.batch_shape_tensor(),
                                           self._diag_operator.batch_shape_tensor())
        batch = ds.broadcast_dynamic_shape(batch, ds.shape(self._u)[:-2])
        batch = ds.broadcast_dynamic_shape(batch, ds.shape(self._v)[:-2])
        return ds.concat([batch, self._base_operator.shape_tensor()[-2:]], 0)

    def _assert_self_adjoint(self):
        if self._u is self._v and self._diag_update is None:
            return self._base_operator.assert_self_adjoint()
        return super()._assert_self_adjoint()

    def _matmul(self, x, adjoint=False, adjoint_arg=False):
        u, v = self._u, self._v
        leading = self._base_operator.matmul(x, adjoint=adjoint, adjoint_arg=adjoint_arg)
        if adjoint:
            u, v = v, u
        vh_x = util.matmul(v, x, adjoint_a=True, adjoint_b=adjoint_arg)
        d_vh_x = self._diag_operator.matmul(vh_x, adjoint=adjoint)
        return leading + util.matmul(u, d_vh_x)

    def _make_capacitance(self, u, v):
        linv_u = self._base_operator.solve(u)
        vh_linv_u = util.matmul(v, linv_u, adjoint_a=True)
        return self._diag_operator.inverse().add_to_tensor(vh_linv_u)

    def _determinant(self):
        if self.is_positive_definite:
            return ds.exp(self.log_abs_determinant())
        det_c = ds.matrix_determinant(self._make_capacitance(self._u, self._v))
        return (det_c * self._diag_operator.determinant()
                * self._base_operator.determinant())

    def _log_abs_determinant(self):
        log_abs_det_d = self._diag_operator.log_abs_determinant()
        log_abs_det_l = self._base_operator.log_abs_determinant()
        capacitance = self._make_capacitance(self._u, self._v)
        if self._use_cholesky:
            chol_diag = ds.matrix_diag_part(ds.cholesky(capacitance))
            log_abs_det_c = 2 * ds.reduce_sum(ds.log(chol_diag), axis=[-1])
        else:
            log_abs_det_c = ds.log(ds.abs(ds.matrix_determinant(capacitance)))
            if self.dtype.is_complex:
                log_abs_det_c = ds.cast(log_abs_det_c, self.dtype)
        return log_abs_det_c + log_abs_det_d + log_abs_det_l

    def _diag_part(self):
        product = self._u * util.conj(self._v)
        if self._diag_update is not None:
            product *= ds.expand_dims(self._diag_update, -2)
        return ds.reduce_sum(product, axis=-1) + self._base_operator.diag_part()

    def _solve(self, rhs, adjoint=False, adjoint_arg=False):
        if self._base_operator.is_non_singular is False:
            raise ValueError("Solve not implemented unless this is a perturbation of a "
                             "non-singular LinearOperator.")
        base = self._base_operator
        # The capacitance is A's own; the adjoint solve uses its adjoint and the
        # factors' roles swap.
        capacitance = self._make_capacitance(self._u, self._v)
        u, v = (self._v, self._u) if adjoint else (self._u, self._v)
        linv_rhs = base.solve(rhs, adjoint=adjoint, adjoint_arg=adjoint_arg)
        vh_linv_rhs = util.matmul(v, linv_rhs, adjoint_a=True)
        if self._use_cholesky:
            chol, vh_linv_rhs = util.broadcast_matrix_batch_dims(
                [ds.cholesky(capacitance), vh_linv_rhs])
            capinv = ds.cholesky_solve(chol, vh_linv_rhs)
        else:
            capinv = util.matrix_solve_with_broadcast(capacitance, vh_linv_rhs,
                                                      adjoint=adjoint)
        return linv_rhs - base.solve(util.matmul(u, capinv), adjoint=adjoint)
