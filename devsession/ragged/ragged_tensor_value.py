"""``RaggedTensorValue``: what ``Session.run`` returns for a RaggedTensor (TF1's
``tf.ragged.RaggedTensorValue``), and what feeds a ragged placeholder.

It is plain numpy: ``values`` (an array, or another RaggedTensorValue for a ragged rank
above 1) and int64 ``row_splits``, row ``i`` being ``values[row_splits[i]:row_splits[i +
1]]``.  ``to_list`` gives the nested Python lists, as TF's.
"""

from __future__ import annotations

import numpy as np

__all__ = ["RaggedTensorValue", "NestedRows"]


class NestedRows:
    """What a ragged value knows from its nesting, rows of rows of ... flat values: a
    RaggedTensor's (tensors) and a RaggedTensorValue's (arrays) alike.  ``_values`` and
    ``_row_splits`` are its own level's."""

    @property
    def flat_values(self):
        """The innermost values: a tensor, or an array."""
        values = self._values
        while isinstance(values, NestedRows):
            values = values.values
        return values

    @property
    def nested_row_splits(self) -> tuple:
        """The row splits of each ragged level, outermost first."""
        splits, values = [self._row_splits], self._values
        while isinstance(values, NestedRows):
            splits.append(values.row_splits)
            values = values.values
        return tuple(splits)

    @property
    def ragged_rank(self) -> int:
        return len(self.nested_row_splits)


class RaggedTensorValue(NestedRows):
    """TF's ``RaggedTensorValue(values, row_splits)`` (see the module docstring);
    TypeError for row splits that are not an integer vector."""

    def __init__(self, values, row_splits):
        row_splits = np.asarray(row_splits)
        if row_splits.dtype not in (np.int32, np.int64) or row_splits.ndim != 1:
            raise TypeError("row_splits must be a 1D int32 or int64 numpy array")
        if not isinstance(values, RaggedTensorValue):
            values = np.asarray(values)
        elif values.row_splits.dtype != row_splits.dtype:
            raise ValueError("row_splits and values.row_splits must have the same dtype")
        self._values = values
        self._row_splits = row_splits

    values = property(lambda self: self._values, doc="The values of the rows.")
    row_splits = property(lambda self: self._row_splits, doc="Where each row starts.")
    row_splits_dtype = property(lambda self: self._row_splits.dtype)

    @property
    def dtype(self):
        return self.flat_values.dtype

    @property
    def shape(self) -> tuple:
        """``(nrows, None..., inner dims)``, as TF's."""
        return ((len(self._row_splits) - 1,) + (None,) * self.ragged_rank
                + tuple(self.flat_values.shape[1:]))

    def to_list(self) -> list:
        """The value as nested Python lists."""
        if isinstance(self._values, RaggedTensorValue):
            inner = self._values.to_list()
        else:
            inner = self._values.tolist()
        splits = self._row_splits.tolist()
        return [inner[splits[i]:splits[i + 1]] for i in range(len(splits) - 1)]

    def __str__(self) -> str:
        return f"<tf.RaggedTensorValue {self.to_list()}>"

    def __repr__(self) -> str:
        return f"tf.RaggedTensorValue(values={self._values!r}, row_splits={self._row_splits!r})"
