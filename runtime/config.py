"""``rt.config``: TensorFlow's ``tf.config`` as far as one host's runtime has it.

The runtime computes on the host's CPU (numpy; ``jit_compile=True`` on JAX's default
device), so it has one physical device, the CPU, and one logical device on it. What
TensorFlow lets a program ask or set about accelerators is answered for that machine:
there is no GPU, so a loop over the GPUs, as TensorFlow's guides write it, does nothing.

>>> import runtime as rt
>>> rt.config.list_physical_devices()
[PhysicalDevice(name='/physical_device:CPU:0', device_type='CPU')]
>>> rt.config.list_physical_devices("GPU")
[]
>>> rt.config.list_logical_devices("CPU")
[LogicalDevice(name='/device:CPU:0', device_type='CPU')]
"""

from __future__ import annotations

import types
from typing import NamedTuple

_functions_run_eagerly = {"on": False}  # read by every ag.function call (autograph.eager_switch)


class PhysicalDevice(NamedTuple):
    """A device of the machine (TensorFlow's ``tf.config.PhysicalDevice``)."""

    name: str
    device_type: str


class LogicalDevice(NamedTuple):
    """A device ops are placed on (TensorFlow's ``tf.config.LogicalDevice``)."""

    name: str
    device_type: str


_PHYSICAL = (PhysicalDevice("/physical_device:CPU:0", "CPU"),)
_LOGICAL = (LogicalDevice("/device:CPU:0", "CPU"),)


def list_physical_devices(device_type=None):
    """The machine's devices of ``device_type`` (``"CPU"``, ``"GPU"``...; None: all)."""
    return [d for d in _PHYSICAL if device_type is None or d.device_type == device_type.upper()]


def list_logical_devices(device_type=None):
    """The devices ops may be placed on, of ``device_type`` (None: all)."""
    return [d for d in _LOGICAL if device_type is None or d.device_type == device_type.upper()]


def run_functions_eagerly(run_eagerly):
    """When True, every ``ag.function`` calls its Python function directly, without tracing
    (for debugging), as TensorFlow's; the same switch as ``ag.run_functions_eagerly``."""
    _functions_run_eagerly["on"] = bool(run_eagerly)


def functions_run_eagerly():
    """Whether ``ag.function``\\ s call their Python functions directly."""
    return _functions_run_eagerly["on"]


def _set_memory_growth(device, enable):
    """TensorFlow's: lets a GPU's memory grow as needed. There is no GPU here, so any device
    given is refused, in TensorFlow's words for a device that is not a GPU."""
    raise ValueError(
        f"Cannot set memory growth on non-GPU and non-Pluggable devices: {device.name}"
    )


def _get_memory_growth(device):
    raise ValueError(
        f"Cannot get memory growth on non-GPU and non-Pluggable devices: {device.name}"
    )


experimental = types.SimpleNamespace(
    list_physical_devices=list_physical_devices,
    list_logical_devices=list_logical_devices,
    set_memory_growth=_set_memory_growth,
    get_memory_growth=_get_memory_growth,
)
"""``rt.config.experimental``: the names TensorFlow keeps there that the guides use."""
