"""The type of the op that runs another op with an attr only a run knows
(``run_time_attrs.py`` defines it, with its gradients): a leaf module, so that the
builders making such nodes (``transpose``, the reductions, Tile's gradient) name it
without importing those gradients, which import the builders."""

__all__ = ["RUN_TIME_ATTR"]

RUN_TIME_ATTR = "_RunTimeAttr"
