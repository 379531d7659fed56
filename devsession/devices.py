"""Which devices this machine has: always CPU:0, plus CUDA GPUs when cupy finds any.

cupy is imported lazily, the first time GPUs are asked for, and the outcome is
remembered (JAX's xla_bridge does the same): no cupy, or cupy without a driver or a
device, means "no GPU devices" together with a sentence saying why, which the session
factories show when a GPU was asked for.  ``DEVSESSION_VISIBLE_GPUS=""`` hides every GPU
(as CUDA_VISIBLE_DEVICES does), which tests use to simulate a CPU-only machine;
``tf.config.set_visible_devices`` (``device_listing.py``) hides GPUs in the process from
the sessions made after it (``set_visible_gpu_count``: the first so many stay).
"""

from __future__ import annotations

import dataclasses
import os
import threading

__all__ = ["DeviceAttributes", "list_local_devices", "gpu_devices", "all_gpu_devices",
           "gpu_unavailable_reason", "local_device_name", "set_visible_gpu_count"]

LOCAL_PREFIX = "/job:localhost/replica:0/task:0"


@dataclasses.dataclass(frozen=True)
class DeviceAttributes:
    """A device a session can place nodes on (TF1's DeviceAttributes)."""

    name: str
    device_type: str
    memory_limit: int
    description: str = ""
    compute_capability: tuple | None = None

    @property
    def short_name(self) -> str:
        return self.name.rsplit("/", 1)[-1].replace("device:", "")


_lock = threading.Lock()
_gpu_probe: "tuple[list[DeviceAttributes], str] | None" = None
_visible_gpu_count: "int | None" = None        # None: every GPU found


def local_device_name(device_type: str, index: int = 0) -> str:
    return f"{LOCAL_PREFIX}/device:{device_type}:{index}"


def _cpu_device() -> DeviceAttributes:
    try:
        memory = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (ValueError, OSError, AttributeError):
        memory = 0
    return DeviceAttributes(local_device_name("CPU"), "CPU", memory,
                            f"{os.cpu_count()} cores")


def _probe_gpus() -> tuple[list[DeviceAttributes], str]:
    if os.environ.get("DEVSESSION_VISIBLE_GPUS", None) == "":
        return [], "GPUs are hidden by DEVSESSION_VISIBLE_GPUS=''"
    try:
        import cupy
    except ImportError:
        return [], "cupy is not installed (pip install 'devsession[cuda]')"
    except Exception as e:  # a broken CUDA install can fail in many ways
        return [], f"cupy failed to import: {type(e).__name__}: {e}"
    try:
        count = cupy.cuda.runtime.getDeviceCount()
    except Exception as e:
        return [], f"cupy found no usable CUDA driver or device: {e}"
    if count == 0:
        return [], "cupy found no CUDA device"
    devices = []
    for index in range(count):
        try:
            props = cupy.cuda.runtime.getDeviceProperties(index)
            name = props["name"].decode() if isinstance(props["name"], bytes) else props["name"]
            devices.append(DeviceAttributes(
                local_device_name("GPU", index), "GPU", int(props["totalGlobalMem"]),
                name, (int(props["major"]), int(props["minor"]))))
        except Exception as e:
            return devices, f"cupy could not query GPU {index}: {e}"
    return devices, ""


def all_gpu_devices() -> list[DeviceAttributes]:
    """The CUDA GPUs found (probed once per process), hidden ones too."""
    global _gpu_probe
    with _lock:
        if _gpu_probe is None:
            _gpu_probe = _probe_gpus()
        return list(_gpu_probe[0])


def gpu_devices() -> list[DeviceAttributes]:
    """The CUDA GPUs sessions may use: those found, less the ones the process hid."""
    found = all_gpu_devices()
    return found if _visible_gpu_count is None else found[:_visible_gpu_count]


def set_visible_gpu_count(count: "int | None") -> None:
    """Let sessions use only the first ``count`` GPUs (None: all of them)."""
    global _visible_gpu_count
    _visible_gpu_count = count


def gpu_unavailable_reason() -> str:
    """Why there are no GPUs ('' when there are some)."""
    found = all_gpu_devices()
    if found and not gpu_devices():
        return "GPUs are hidden by tf.config.set_visible_devices"
    return _gpu_probe[1] if _gpu_probe else ""


def forget_gpu_probe() -> None:
    """Probe again next time (tests that simulate machines use this)."""
    global _gpu_probe
    with _lock:
        _gpu_probe = None


def list_local_devices() -> list[DeviceAttributes]:
    """CPU:0 and every visible GPU, as ``DeviceAttributes``."""
    return [_cpu_device()] + gpu_devices()
