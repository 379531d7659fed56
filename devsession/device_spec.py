"""Device names: parse, canonicalise and merge ``/job:/replica:/task:/device:TYPE:N``.

A ``DeviceSpec`` is immutable and canonical from the moment it is parsed: the device
type is upper case ("CPU", "GPU"), "cuda" means "GPU", and the short forms users type
("cpu", "gpu:1", "cuda:0", "/gpu:0", "/cpu:0") all parse to the same value as the long
form.  Merging follows TF: fields set in the inner spec win, unset fields are taken
from the outer one, so ``/job:worker/task:1`` then ``/device:GPU:0`` gives
``/job:worker/task:1/device:GPU:0``.

    >>> str(DeviceSpec.parse("gpu:1"))
    '/device:GPU:1'
    >>> str(DeviceSpec.parse("/job:worker/task:1").merge("cuda:0"))
    '/job:worker/task:1/device:GPU:0'
"""

from __future__ import annotations

import dataclasses
import re

__all__ = ["DeviceSpec", "Device", "canonical_device", "HOST", "task_name"]

_TYPE_ALIASES = {"cpu": "CPU", "gpu": "GPU", "cuda": "GPU"}
_SHORT = re.compile(r"^/?(?P<type>[A-Za-z_]+)(?::(?P<index>\d+|\*))?$")


@dataclasses.dataclass(frozen=True)
class DeviceSpec:
    """A (possibly partial) device name; unset fields are None."""

    job: str | None = None
    replica: int | None = None
    task: int | None = None
    device_type: str | None = None
    device_index: int | None = None

    @classmethod
    def parse(cls, spec: "str | DeviceSpec | None") -> "DeviceSpec":
        """Parse a device string; raises ValueError naming the part it cannot read."""
        if spec is None:
            return cls()
        if isinstance(spec, DeviceSpec):
            return spec
        if not isinstance(spec, str):
            raise TypeError(f"A device spec must be a string, not {type(spec).__name__}.")
        text = spec.strip()
        if text == "":
            return cls()
        short = _SHORT.match(text)
        if short and short["type"].lower() in _TYPE_ALIASES:
            return cls(device_type=_device_type(short["type"], spec),
                       device_index=_index(short["index"], spec))
        fields: dict = {}
        for part in text.strip("/").split("/"):
            if not part:
                continue
            key, _, rest = part.partition(":")
            key = key.lower()
            if key == "job" and rest:
                fields["job"] = rest
            elif key in ("replica", "task") and rest.isdigit():
                fields[key] = int(rest)
            elif key == "device" and rest:
                dtype, _, index = rest.partition(":")
                fields["device_type"] = _device_type(dtype, spec)
                fields["device_index"] = _index(index or None, spec)
            elif key.lower() in _TYPE_ALIASES:
                fields["device_type"] = _device_type(key, spec)
                fields["device_index"] = _index(rest or None, spec)
            else:
                raise ValueError(
                    f"Cannot parse device spec {spec!r} at {part!r}: expected "
                    "/job:NAME/replica:N/task:N/device:TYPE:N or a short form such as "
                    "'cpu', 'gpu:1' or 'cuda:0'.")
        return cls(**fields)

    def merge(self, inner: "str | DeviceSpec | None") -> "DeviceSpec":
        """This spec with every field that ``inner`` sets replaced by inner's value."""
        inner = DeviceSpec.parse(inner)
        fields = {f.name: getattr(inner, f.name) if getattr(inner, f.name) is not None
                  else getattr(self, f.name) for f in dataclasses.fields(self)}
        if inner.device_type is not None and inner.device_index is None:
            fields["device_index"] = None
        return DeviceSpec(**fields)

    def replace(self, **changes) -> "DeviceSpec":
        return dataclasses.replace(self, **changes)

    def includes(self, device: "str | DeviceSpec") -> bool:
        """True when every field this spec sets has ``device``'s value: ``/job:ps``
        includes every device of the ps job (TF's ``IsSpecification``, which device
        filters use)."""
        device = DeviceSpec.parse(device)
        return all(getattr(self, f.name) in (None, getattr(device, f.name))
                   for f in dataclasses.fields(self))

    @property
    def is_empty(self) -> bool:
        return self == DeviceSpec()

    @property
    def task_key(self) -> tuple:
        """(job, task): which process in a cluster the device belongs to."""
        return (self.job, self.task)

    def local_name(self) -> str:
        """The device part alone, e.g. '/device:GPU:0' (index defaults to 0)."""
        return f"/device:{self.device_type or 'CPU'}:{self.device_index or 0}"

    def __str__(self) -> str:
        parts = []
        if self.job is not None:
            parts.append(f"/job:{self.job}")
        if self.replica is not None:
            parts.append(f"/replica:{self.replica}")
        if self.task is not None:
            parts.append(f"/task:{self.task}")
        if self.device_type is not None:
            index = "*" if self.device_index is None else self.device_index
            parts.append(f"/device:{self.device_type}:{index}")
        return "".join(parts)

    def to_string(self) -> str:
        return str(self)


@dataclasses.dataclass(frozen=True)
class Device:
    """One resolved device: where a node runs.

    Placement turns a node's ``DeviceSpec`` (partial, as the user wrote it) into a
    ``Device`` once; the plan, the transfers between devices and the kernel node carry
    this same value, so nothing downstream parses a device name again.  ``job`` and
    ``task`` are set on a cluster (the task the device belongs to), None in a local
    session.
    """

    device_type: str               # "CPU" or "GPU"
    index: int = 0
    job: str | None = None
    task: int | None = None

    @property
    def short_name(self) -> str:
        """``GPU:1``: the device within its process."""
        return f"{self.device_type}:{self.index}"

    @property
    def is_gpu(self) -> bool:
        return self.device_type == "GPU"

    @property
    def task_name(self) -> str | None:
        """``/job:worker/replica:0/task:1`` on a cluster, None in a local session."""
        return None if self.job is None else task_name(self.job, self.task)

    def local(self) -> "Device":
        """This device without its task (as a worker runs it)."""
        return Device(self.device_type, self.index)

    def spec(self) -> DeviceSpec:
        return DeviceSpec(job=self.job, replica=0 if self.job is not None else None,
                          task=self.task, device_type=self.device_type,
                          device_index=self.index)

    def __str__(self) -> str:
        if self.job is None:
            return f"/device:{self.short_name}"
        return f"{self.task_name}/device:{self.short_name}"


HOST = Device("CPU", 0)     # where feeds arrive and fetches leave


def task_name(job: str, task: int) -> str:
    """The full name of a cluster task: ``/job:worker/replica:0/task:1``."""
    return f"/job:{job}/replica:0/task:{task}"


def _device_type(text: str, spec: str) -> str:
    canonical = _TYPE_ALIASES.get(text.lower())
    if canonical is None:
        raise ValueError(
            f"Unknown device type {text!r} in {spec!r}; devsession knows CPU and GPU "
            "(also spelled 'cpu', 'gpu', 'cuda').")
    return canonical


def _index(text: str | None, spec: str) -> int | None:
    if text in (None, "*"):
        return None
    if not text.isdigit():
        raise ValueError(f"Cannot parse device spec {spec!r} at {text!r}: a device index is a "
                         f"non-negative integer or '*'.")
    return int(text)


def canonical_device(spec: "str | DeviceSpec | None") -> str:
    """The canonical string of a device spec ('' when it sets nothing)."""
    return str(DeviceSpec.parse(spec))
