"""Node kernels of devsession, installed as ``devsession.kernels``.

``registry`` maps ``(op type, device type)`` to kernel builders and imports a device
type's package (``reference`` for "REF", ``cpu`` for "CPU", ``cuda`` for "GPU") only on
its first lookup.  Each device package has one module per op family, with the same
name in every package and in ``devsession/ops/`` (``elementwise``, ``reduce``,
``linalg``, ``nn``, ``array``, ``state``), so Softmax's kernels are
``reference/nn.py``, ``cpu/nn.py`` and ``cuda/nn.py``.  ``codegen`` holds the
elementwise expression language both compiled backends share; ``checks`` the runtime
shape checks every backend uses.  Importing this package imports nothing else, and
never numba or cupy; nothing here imports devsession's runtime or sessions.
"""
