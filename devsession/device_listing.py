"""The device queries TF1.15 scripts make before building a graph: ``tf.config``'s
``list_physical_devices`` / ``list_logical_devices`` / ``get_visible_devices`` and
``experimental.set_memory_growth``, and ``tf.test``'s ``is_gpu_available`` /
``gpu_device_name`` / ``is_built_with_cuda``.  The devices are devsession's
(``ds.list_local_devices``: CPU:0 and the CUDA GPUs cupy sees), named as TF names them.
Memory growth is what devsession's GPU memory pool does anyway: set_memory_growth is
recorded and changes nothing.

``set_visible_devices`` hides GPUs from the sessions made after it (TF's use: ``[]`` for
"GPU" to run on the CPU, or the first GPUs of several); CPU:0 always stays visible.
Physical devices are every device found; visible and logical ones, what sessions use.
"""

from __future__ import annotations

import collections
import importlib.util

from .devices import all_gpu_devices, gpu_devices, list_local_devices, set_visible_gpu_count
from .errors import UnimplementedError

__all__ = ["PhysicalDevice", "LogicalDevice", "list_physical_devices", "list_logical_devices",
           "get_visible_devices", "set_visible_devices", "set_memory_growth", "get_memory_growth",
           "is_gpu_available", "gpu_device_name", "is_built_with_cuda"]

PhysicalDevice = collections.namedtuple("PhysicalDevice", ["name", "device_type"])
LogicalDevice = collections.namedtuple("LogicalDevice", ["name", "device_type"])

_memory_growth: dict = {}


def _devices(device_type, prefix: str, kind, found=None):
    named = []
    for device in found if found is not None else list_local_devices():
        if device_type is None or device.device_type == device_type.upper():
            index = device.short_name.rsplit(":", 1)[-1]
            named.append(kind(f"{prefix}{device.device_type}:{index}", device.device_type))
    return named


def list_physical_devices(device_type=None) -> list:
    """``[PhysicalDevice("/physical_device:CPU:0", "CPU"), ...]`` (of one type if given):
    every device found, hidden ones too."""
    found = list_local_devices()[:1] + all_gpu_devices()
    return _devices(device_type, "/physical_device:", PhysicalDevice, found)


def get_visible_devices(device_type=None) -> list:
    """The physical devices sessions may use (``set_visible_devices``)."""
    return _devices(device_type, "/physical_device:", PhysicalDevice)


def set_visible_devices(devices, device_type=None) -> None:
    """Let the sessions made from now on use only ``devices`` (a PhysicalDevice or a
    list) of ``device_type`` (every type when None): ``[]`` for "GPU" hides every GPU.
    CPU:0 stays visible whatever the list says; the visible GPUs must be the first ones
    (UnimplementedError otherwise: CUDA_VISIBLE_DEVICES picks any)."""
    devices = list(devices) if isinstance(devices, (list, tuple)) else [devices]
    found = list_physical_devices()
    for device in devices:
        if device not in found:
            raise ValueError(f"Unrecognized device: {device!r}")
    if device_type is not None and device_type.upper() not in ("GPU", "CPU"):
        raise ValueError(f"Unrecognized device type: {device_type!r}")
    if device_type is not None and device_type.upper() == "CPU":
        return
    gpus = sorted(int(d.name.rsplit(":", 1)[-1]) for d in devices if d.device_type == "GPU")
    if gpus != list(range(len(gpus))):
        raise UnimplementedError(
            f"devsession can make visible only the first GPUs (GPU:0 to GPU:n), not "
            f"{[f'GPU:{i}' for i in gpus]}; set CUDA_VISIBLE_DEVICES before the process "
            f"starts to pick others.")
    set_visible_gpu_count(None if len(gpus) == len(all_gpu_devices()) else len(gpus))


def list_logical_devices(device_type=None) -> list:
    """``[LogicalDevice("/device:CPU:0", "CPU"), ...]``: the devices nodes are placed on."""
    return _devices(device_type, "/device:", LogicalDevice)


def set_memory_growth(device, enable: bool) -> None:
    """Recorded; devsession's GPU memory pool grows on demand whatever it says."""
    if getattr(device, "device_type", None) != "GPU":
        raise ValueError(f"Cannot set memory growth on device {device!r}: it is not a GPU.")
    _memory_growth[device.name] = bool(enable)


def get_memory_growth(device) -> bool:
    return _memory_growth.get(getattr(device, "name", device), False)


def is_gpu_available(cuda_only=False, min_cuda_compute_capability=None) -> bool:
    """Whether a CUDA GPU is there (of at least ``min_cuda_compute_capability``, a
    (major, minor) pair, when given)."""
    gpus = gpu_devices()
    if min_cuda_compute_capability is None:
        return bool(gpus)
    wanted = tuple(min_cuda_compute_capability)
    return any(g.compute_capability is not None and tuple(g.compute_capability) >= wanted
               for g in gpus)


def gpu_device_name() -> str:
    """``"/device:GPU:0"`` when a GPU is there, else ``""`` (TF's)."""
    return "/device:GPU:0" if gpu_devices() else ""


def is_built_with_cuda() -> bool:
    """Whether devsession can run on CUDA here: cupy, its CUDA backend, is installed."""
    return importlib.util.find_spec("cupy") is not None
