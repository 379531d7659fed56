"""Node kernels of devsession, installed as ``devsession.kernels``.

``registry`` maps ``(op type, device type)`` to kernel builders and imports a device
type's module (``reference`` for "REF", ``cpu`` for "CPU", ``cuda`` for "GPU") only on
its first lookup.  Importing this package imports nothing else, and never numba.
"""
