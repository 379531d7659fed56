"""The elementwise expression language both compiled backends share.

``expressions`` (each elementwise op's expression, and the program a node compiles),
``frontend`` (parse, type, fold: one ``Program`` for any backend), and the two
renderers: ``cpu`` (numba loops, cached on disk through ``module_cache``) and ``cuda``
(CUDA C for ``cupy.ElementwiseKernel``; it imports no cupy, so CI tests it).
"""
