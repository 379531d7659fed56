"""The session state a stateful kernel reaches through ``KernelNode.context``.

The state kernels themselves live with every other kernel (``kernels/reference/state.py``
for the host, ``kernels/cuda/state.py`` for GPUs); this module is the runtime's side of
the contract: which variable a node names, and where the session keeps it.
"""

from __future__ import annotations

import dataclasses

from .resources import ResourceMgr

__all__ = ["StateContext", "variable_key"]


@dataclasses.dataclass(frozen=True)
class StateContext:
    """Session state a kernel may use: the resource manager, and for ops on a variable
    (VariableV2 itself, Assign, AssignAdd) the variable's key; for ops with several ref
    inputs (ApplyAdam: the variable and its slots) every ref input's key, in order."""

    resources: ResourceMgr
    variable: tuple | None = None    # (container, name, np.dtype, shape)
    refs: tuple = ()                 # one such key per ref input

    def variable_resource(self):
        container, name, dtype, shape = self.variable
        return self.resources.variable(container, name, dtype, shape)

    def ref_resources(self) -> list:
        """The VariableResource of every ref input, in input order."""
        return [self.resources.variable(*key) for key in self.refs]


def variable_key(op) -> tuple:
    """(container, name, dtype, shape) of a VariableV2 op."""
    attrs = op.attrs
    return (attrs.get("container", ""), attrs.get("shared_name") or op.name,
            attrs["dtype"].np, attrs["shape"].dims)
