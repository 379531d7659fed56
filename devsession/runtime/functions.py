"""The runtime's side of control flow: planning and running the functions an ``If`` or
``While`` node holds (``function_graph.py``).

A control-flow kernel (``kernels/reference/control_flow.py``) gets a
``FunctionContext`` as its ``KernelNode.context``, as a stateful kernel gets the
session's state, and calls ``instantiate`` once per function when its plan is built.
That imports the function's GraphDef into a graph of its own and plans it with the
same ``LocalExecutorFactory`` as the node's plan: the same resource containers (so a
variable assigned inside is the session's variable), the same optimizer options, and
the node's device: every node of the function runs there, or on that machine's CPU:0
where its op has no kernel for the device.  A function's inputs arrive on that device
and its outputs stay there (``outputs_on_host`` brings them to the host: a ``While``
reads its condition there).  Nested control flow plans its own functions the same way,
so everything is planned once, when the outermost plan is built.

Calling a ``CompiledFunction`` runs its plan under the deadline of the step that runs
the node (``executor.running_step``); when that step is traced, every node the function
ran is reported too, as ``<node>/<function label>/<inner node>``.
"""

from __future__ import annotations

import dataclasses

from ..device_spec import HOST, Device
from ..function_graph import import_function
from ..graph import Graph
from ..kernels.registry import has_kernel
from ..errors import NotFoundError
from .executor import execute, running_step
from .placement import Placement

__all__ = ["FunctionContext", "CompiledFunction"]


@dataclasses.dataclass(frozen=True)
class FunctionContext:
    """What a control-flow kernel may use: ``instantiate`` (see the module docstring).

    ``factory`` is the ``LocalExecutorFactory`` planning the node; ``device`` where the
    node runs; ``node_name`` names it in errors and traces."""

    factory: object
    device: Device
    node_name: str

    def instantiate(self, body, label: str, outputs_on_host: bool = False
                    ) -> "CompiledFunction":
        """The function serialized in ``body`` (an attr's bytes), planned; raises
        InvalidArgumentError (naming the node) for a body that does not import or plan."""
        graph = Graph()
        inputs, outputs = import_function(body, graph, self.node_name)
        plan = self.factory.build_plan(
            graph.get_operations(), inputs, outputs, (), self._place, feed_device=self.device,
            fetch_device=HOST if outputs_on_host else self.device, variables_after_step=False)
        return CompiledFunction(plan, f"{self.node_name}/{label}", len(inputs))

    def _place(self, op) -> Placement:
        if self.device.device_type == "CPU" or _has_kernel(op.type, self.device.device_type):
            return Placement(self.device)
        return Placement(dataclasses.replace(self.device, device_type="CPU", index=0),
                         f"op {op.type} has no {self.device.device_type} kernel")


def _has_kernel(op_type: str, device_type: str) -> bool:
    try:
        return has_kernel(op_type, device_type)
    except NotFoundError:
        return False


class CompiledFunction:
    """A planned function: ``fn(args) -> list of outputs`` (see the module docstring)."""

    def __init__(self, plan, trace_prefix: str, num_inputs: int):
        self.plan = plan
        self.num_inputs = num_inputs
        self._prefix = trace_prefix

    def __call__(self, args) -> list:
        deadline, stats = running_step()
        if stats is None:
            return execute(self.plan, args, deadline)
        inner: list = []
        try:
            return execute(self.plan, args, deadline, inner)
        finally:
            stats.extend(dataclasses.replace(s, node=f"{self._prefix}/{s.node}")
                         for s in inner)
