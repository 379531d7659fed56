"""What the graph-building tests share (test_graph.py, test_op_shapes.py,
test_array_ops_shapes.py): a short spelling of a placeholder.  Their ``graph`` fixture is in
conftest.py."""

from __future__ import annotations

import devsession as ds


def ph(shape, dtype=ds.float32, name=None):
    """A placeholder of ``shape`` (float32 unless told) in the default graph."""
    return ds.placeholder(dtype, shape, name=name)
