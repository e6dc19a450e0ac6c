"""``rt.device``: the device scope ops are created in, as TensorFlow's ``tf.device``.

The runtime computes everything on the host (numpy; a ``jit_compile=True`` function on JAX's
default device), so a device scope only records where an op was asked to run: each op of a
graph built inside one says so in ``op.device``, canonical as TensorFlow writes it. A
device string is checked as TensorFlow parses it.

>>> import runtime as rt
>>> with rt.Graph().as_default():
...     with rt.device("/cpu:0"):
...         x = rt.constant(1.0) + 1.0
>>> x.op.device
'/device:CPU:0'
"""

from __future__ import annotations

import contextlib
import threading

# The device types TensorFlow knows by name alone ("gpu:0"); any type is accepted after
# "device:" ("/device:XLA_CPU:0").
_KNOWN_TYPES = frozenset({"CPU", "GPU", "TPU", "CUSTOM", "EPU"})
_FIELDS = ("job", "replica", "task", "device_type", "device_index")


class _Scope(threading.local):
    device = ""  # the canonical device string of the innermost scope ("" when none)
    parts = (None,) * len(_FIELDS)


_scope = _Scope()


def current() -> str:
    """The canonical device string of the innermost ``device`` scope, "" outside any."""
    return _scope.device


def parse(spec):
    """``(job, replica, task, device_type, device_index)`` of a device string; ValueError as
    TensorFlow's ``DeviceSpec`` for a part it does not know. None marks a part not given.

    >>> parse("/job:worker/replica:0/task:1/device:GPU:2")
    ('worker', 0, 1, 'GPU', 2)
    >>> parse("cpu:*")
    (None, None, None, 'CPU', None)
    """
    if not isinstance(spec, str):
        raise TypeError(f"A device must be a string like '/CPU:0', got {spec!r}")
    job = replica = task = device_type = device_index = None
    for part in spec.split("/"):
        fields = part.split(":")
        if fields == [""]:
            continue
        if len(fields) == 2 and fields[0] == "job":
            job = fields[1]
        elif len(fields) == 2 and fields[0] in ("replica", "task"):
            number = _index(fields[1], spec)
            replica, task = (number, task) if fields[0] == "replica" else (replica, number)
        elif (
            len(fields) in (1, 2)
            and fields[0].upper() in _KNOWN_TYPES
            or (len(fields) == 3 and fields[0] == "device")
        ):
            if device_type is not None:
                raise ValueError(f"Cannot specify multiple device types: {spec}")
            named = fields[1:] if fields[0] == "device" else [fields[0].upper(), *fields[1:]]
            device_type = named[0]
            if len(named) == 2 and named[1] != "*":
                device_index = _index(named[1], spec)
        else:
            raise ValueError(f"Unknown attribute: '{fields[0]}' in '{spec}'")
    return job, replica, task, device_type, device_index


def _index(text, spec):
    if not text.isdigit():
        raise ValueError(f"invalid literal for int() with base 10: {text!r} in '{spec}'")
    return int(text)


def to_string(parts) -> str:
    """The canonical string of parsed parts: ``/job:worker/device:GPU:0``."""
    job, replica, task, device_type, device_index = parts
    out = []
    if job is not None:
        out.append(f"/job:{job}")
    if replica is not None:
        out.append(f"/replica:{replica}")
    if task is not None:
        out.append(f"/task:{task}")
    if device_type is not None:
        out.append(f"/device:{device_type}:{'*' if device_index is None else device_index}")
    return "".join(out)


@contextlib.contextmanager
def device(device_name):
    """Ops created inside are placed on ``device_name`` ("/CPU:0", "/GPU:0", "cpu:0",
    "/job:worker/device:GPU:1"), as in TensorFlow's ``tf.device``; a nested scope overrides
    the parts it names, and ``None`` clears the scope.

    The device is recorded (``op.device`` of the ops a graph gets inside); the runtime runs
    every op on the host whatever it says, as TensorFlow's soft placement would on a machine
    without that device. A string TensorFlow cannot parse raises ValueError.

    >>> import runtime as rt
    >>> with rt.device("/GPU:0"):
    ...     (rt.constant(2) * 3).numpy()
    np.int32(6)
    >>> with rt.device("/gpu:0/memory:1"):
    ...     pass
    Traceback (most recent call last):
    ...
    ValueError: Unknown attribute: 'memory' in '/gpu:0/memory:1'
    """
    if callable(device_name):
        raise RuntimeError("tf.device does not support functions when eager execution is enabled.")
    if device_name is None:
        parts = (None,) * len(_FIELDS)
    else:
        given = parse(device_name)
        parts = tuple(new if new is not None else old for new, old in zip(given, _scope.parts))
    saved = _scope.device, _scope.parts
    _scope.device, _scope.parts = to_string(parts), parts
    try:
        yield
    finally:
        _scope.device, _scope.parts = saved
