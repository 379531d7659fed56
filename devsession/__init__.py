"""devsession: TF1-style sessions that run dataflow graphs on the CPU (numba kernels),
on a CUDA GPU (cupy) or across gRPC workers.

    import devsession as ds
    a = ds.placeholder(ds.float32, (None,), name="a")
    c = a * 2.0 + 1.0
    with ds.Session() as sess:
        print(sess.run(c, {a: [1.0, 2.0]}))

Importing this package imports neither numba, cupy nor grpc: kernels and transports load
when a session first needs them.
"""

from . import errors, math, nn
from .device_spec import DeviceSpec
from .devices import DeviceAttributes, list_local_devices
from .dtypes import DType, as_dtype, bool_, float16, float32, float64, int32, int64
from .graph import (Graph, Operation, Tensor, control_dependencies, convert_to_tensor, device,
                    get_default_graph, name_scope, reset_default_graph)
from .graph_def import GraphDef, import_graph_def, read_graph_def, write_graph
from .ops import (abs, add, argmax, cast, concat, constant, divide, equal, exp, greater,
                  greater_equal, group, identity, less, less_equal, log, matmul, maximum,
                  minimum, multiply, negative, no_op, placeholder, pow, random_normal,
                  random_uniform, reduce_max, reduce_mean, reduce_min, reduce_sum, relu,
                  reshape, sigmoid, softmax, sqrt, square, subtract, tanh, transpose, truediv,
                  where)
from .options import NodeStats, OptimizerOptions, RunMetadata, RunOptions, SessionOptions
from .session import BaseSession, Session, get_default_session
from .session_factory import (SessionFactory, Verdict, new_session, registered_session_factories,
                              reset)
from . import direct_session  # noqa: F401,E402  (registers DIRECT_SESSION)
from .distributed.client import factory as _grpc_factory  # noqa: F401,E402  (GRPC_SESSION)
from .tensor_shape import TensorShape
from .variables import Variable, global_variables, global_variables_initializer, \
    variables_initializer

# Training (API.md "Training")
from . import train
from .gradients import gradients
from .ops import assign, assign_add, assign_sub, stop_gradient
from .variables import trainable_variables

bool = bool_  # noqa: A001  (ds.bool, as tf.bool)

__version__ = "0.1.0"

__all__ = [
    "errors", "math", "nn", "DeviceSpec", "DeviceAttributes", "list_local_devices", "DType",
    "as_dtype", "bool", "bool_", "float16", "float32", "float64", "int32", "int64", "Graph",
    "Operation", "Tensor", "control_dependencies", "convert_to_tensor", "device",
    "get_default_graph", "name_scope", "reset_default_graph", "GraphDef", "import_graph_def",
    "read_graph_def", "write_graph", "abs", "add", "argmax", "cast", "concat", "constant",
    "divide", "equal", "exp", "greater", "greater_equal", "group", "identity", "less",
    "less_equal", "log", "matmul", "maximum", "minimum", "multiply", "negative", "no_op",
    "placeholder", "pow", "random_normal", "random_uniform", "reduce_max", "reduce_mean",
    "reduce_min", "reduce_sum", "relu", "reshape", "sigmoid", "softmax", "sqrt", "square",
    "subtract", "tanh", "transpose", "truediv", "where", "NodeStats", "OptimizerOptions",
    "RunMetadata",
    "RunOptions", "SessionOptions", "BaseSession", "Session", "get_default_session",
    "SessionFactory", "Verdict", "new_session", "registered_session_factories", "reset",
    "TensorShape", "Variable", "global_variables", "global_variables_initializer",
    "variables_initializer",
    "train", "gradients", "stop_gradient", "trainable_variables", "assign", "assign_add",
    "assign_sub",
]

from .ops import logical_and  # noqa: E402

__all__ += ["logical_and"]


def __getattr__(name: str):
    """``ds.Server`` and ``ds.ClusterSpec`` load the distributed runtime on first use."""
    if name in ("Server", "ClusterSpec"):
        from . import distributed

        return getattr(distributed, name)
    raise AttributeError(f"module 'devsession' has no attribute {name!r}")
