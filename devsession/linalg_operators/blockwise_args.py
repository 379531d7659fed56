"""Blockwise arguments of the block operators (``LinearOperatorBlockDiag``,
``LinearOperatorBlockLowerTriangular``): as TF's, ``matmul``, ``matvec``,
``solve`` and ``solvevec`` also take a list with one tensor per block and answer
with a list.  ``arg_is_blockwise`` is TF's rule for telling such a list from a
nested Python list meant as one tensor."""

from __future__ import annotations

from . import tf_api as ds

from . import util
from .base import LinearOperator


def _is_nested(x):
    return isinstance(x, (list, tuple, dict))


def arg_is_blockwise(block_dimensions, arg, arg_split_dim):
    """Whether ``arg`` is a list of blocks (TF's ``arg_is_blockwise``); ValueError
    when a nested list fits neither reading."""
    if not (isinstance(arg, (tuple, list)) and len(arg) == len(block_dimensions)):
        return False
    if not any(_is_nested(x) for x in arg):
        return True
    arg_dims = [ds.dimension_value(ds.convert_to_tensor(x).shape[arg_split_dim])
                for x in arg]
    self_dims = [ds.dimension_value(d) for d in block_dimensions]
    if all(d is None for d in self_dims):
        if len(arg_dims) == 1:
            return False
        if any(d != arg_dims[0] for d in arg_dims):
            return True
        raise ValueError("Parsing of the input structure is ambiguous. Please input "
                         "a blockwise iterable of `Tensor`s or a single `Tensor`.")
    if all(s == a or s is None for s, a in zip(self_dims, arg_dims)):
        return True
    self_dim = sum(d for d in self_dims if d is not None)
    if all(a == arg_dims[0] for a in arg_dims) and arg_dims[0] >= self_dim:
        return False
    raise ValueError("Input dimension does not match operator dimension.")


class BlockwiseArguments(LinearOperator):
    """The list-of-blocks forms; subclasses give ``_matmul_blocks`` and
    ``_solve_blocks`` (lists in, lists out) and ``_block_sizes``."""

    def _block_dimensions(self):
        return [op.domain_dimension for op in self._diagonal_blocks()]

    def _block_sizes(self):
        return [ds.dimension_value(d) for d in self._block_dimensions()]

    def _checked_blocks(self, blocks, split_dim):
        dims = self._block_dimensions()
        checked = []
        for dim, block in zip(dims, blocks):
            block = ds.convert_to_tensor(block)
            self._check_input_dtype(block)
            util.check_dims_compatible(dim, block.shape[split_dim])
            checked.append(block)
        return checked

    def _split(self, x, axis):
        return ds.split(x, self._block_sizes(), axis=axis)

    def _matmul(self, x, adjoint=False, adjoint_arg=False):
        x = util.adjoint(x) if adjoint_arg else x
        results = self._matmul_blocks(self._split(x, -2), adjoint)
        return ds.concat(util.broadcast_matrix_batch_dims(results), -2)

    def _solve(self, rhs, adjoint=False, adjoint_arg=False):
        rhs = util.adjoint(rhs) if adjoint_arg else rhs
        results = self._solve_blocks(self._split(rhs, -2), adjoint)
        return ds.concat(util.broadcast_matrix_batch_dims(results), -2)

    def _matvec(self, x, adjoint=False):
        return ds.squeeze(self._matmul(ds.expand_dims(x, -1), adjoint=adjoint), axis=[-1])

    def _solvevec(self, rhs, adjoint=False):
        return ds.squeeze(self._solve(ds.expand_dims(rhs, -1), adjoint=adjoint), axis=[-1])

    def _blockwise_call(self, method, x, adjoint, adjoint_arg, name, vector):
        split_dim = -1 if (adjoint_arg or vector) else -2
        with self._name_scope(name):
            blocks = self._checked_blocks(x, split_dim)
            if vector:
                blocks = [ds.expand_dims(b, -1) for b in blocks]
            elif adjoint_arg:
                blocks = [util.adjoint(b) for b in blocks]
            results = method(blocks, adjoint)
            return [ds.squeeze(r, axis=[-1]) for r in results] if vector else results

    def matmul(self, x, adjoint=False, adjoint_arg=False, name="matmul"):
        """As the base's, or a list of products for a list of blocks."""
        if not isinstance(x, LinearOperator) and arg_is_blockwise(
                self._block_dimensions(), x, -1 if adjoint_arg else -2):
            return self._blockwise_call(self._matmul_blocks, x, adjoint, adjoint_arg,
                                        name, vector=False)
        return super().matmul(x, adjoint=adjoint, adjoint_arg=adjoint_arg, name=name)

    def matvec(self, x, adjoint=False, name="matvec"):
        if arg_is_blockwise(self._block_dimensions(), x, -1):
            return self._blockwise_call(self._matmul_blocks, x, adjoint, False, name,
                                        vector=True)
        return super().matvec(x, adjoint=adjoint, name=name)

    def solve(self, rhs, adjoint=False, adjoint_arg=False, name="solve"):
        """As the base's, or a list of solutions for a list of blocks."""
        if not isinstance(rhs, LinearOperator) and arg_is_blockwise(
                self._block_dimensions(), rhs, -1 if adjoint_arg else -2):
            self._check_solvable()
            return self._blockwise_call(self._solve_blocks, rhs, adjoint, adjoint_arg,
                                        name, vector=False)
        return super().solve(rhs, adjoint=adjoint, adjoint_arg=adjoint_arg, name=name)

    def solvevec(self, rhs, adjoint=False, name="solve"):
        if arg_is_blockwise(self._block_dimensions(), rhs, -1):
            self._check_solvable()
            return self._blockwise_call(self._solve_blocks, rhs, adjoint, False, name,
                                        vector=True)
        return super().solvevec(rhs, adjoint=adjoint, name=name)

