"""tf.profiler (TF1's ``tf.compat.v1.profiler``): count a model's parameters and float
operations, and time its traced steps, by name scope or by op type, with the options
and report TensorFlow's tfprof gives (``analyzer.py``).

    flops = ds.profiler.profile(graph, options=ds.profiler.ProfileOptionBuilder.float_operation())
    print(flops.total_float_ops)
"""

from ..proto.tfprof_pb2 import (AdviceProto, GraphNodeProto, MultiGraphNodeProto,
                                OpLogProto)
from .analyzer import Profiler, advise, profile, write_op_log
from .options import ProfileOptionBuilder

__all__ = ["profile", "advise", "write_op_log", "Profiler", "ProfileOptionBuilder",
           "GraphNodeProto", "MultiGraphNodeProto", "AdviceProto", "OpLogProto"]
