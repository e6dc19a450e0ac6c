"""Keras' progress bar: ``2/2 [==============================] - 0s 2ms/step - loss: 1.8311``.

On a terminal the line is redrawn as batches finish (at most every 0.05 s, with
the time left); elsewhere (a file, a pipe, a test) only the finished line is
written, once per epoch. ``verbose=2`` writes ``2/2 - 0s - loss: 1.8311``.

>>> bar = Progbar(target=2, clock=iter([0.0, 0.004]).__next__)  # started at 0, ended at 4 ms
>>> bar.update(2, {"loss": 1.83112, "accuracy": 0.0004}, finalize=True)
2/2 [==============================] - 0s 2ms/step - loss: 1.8311 - accuracy: 4.0000e-04
"""

from __future__ import annotations

import sys
import time


def format_value(value):
    """Four decimals, or scientific notation for magnitudes up to 1e-3, as Keras prints them."""
    return f"{value:.4f}" if abs(value) > 1e-3 else f"{value:.4e}"


def format_step_time(seconds):
    if seconds >= 1 or seconds == 0:
        return f"{seconds:.0f}s/step"
    if seconds >= 1e-3:
        return f"{seconds * 1e3:.0f}ms/step"
    return f"{seconds * 1e6:.0f}us/step"


def _format_eta(seconds):
    if seconds > 3600:
        return f"{seconds // 3600:.0f}:{(seconds % 3600) // 60:02.0f}:{seconds % 60:02.0f}"
    if seconds > 60:
        return f"{seconds // 60:.0f}:{seconds % 60:02.0f}"
    return f"{seconds:.0f}s"


class Progbar:
    """A progress bar over ``target`` steps (None: not known yet); ``update(step, logs)`` after
    each."""

    width = 30
    interval = 0.05  # seconds between redraws on a terminal

    def __init__(self, target, verbose=1, stream=None, clock=time.perf_counter):
        self.target = target
        self.verbose = verbose
        self.stream = stream if stream is not None else sys.stdout
        self._clock = clock
        self._dynamic = verbose == 1 and _is_terminal(self.stream)
        self._start = clock()
        self._after_first_step = None
        self._last_draw = 0.0
        self._drawn_width = 0

    def update(self, step, logs, finalize=False):
        """Called after ``step`` steps with the logs so far (a dict, or a function giving one
        when the bar draws); ``finalize`` ends the line."""
        if step == 1 and self._after_first_step is None:
            self._after_first_step = self._clock()
        if not (finalize or self._dynamic):
            return  # only the finished line is written: nothing to do per step
        now = self._clock()
        if (
            not finalize
            and now - self._last_draw < self.interval
            and step < (self.target or step + 1)
        ):
            return
        self._last_draw = now
        logs = logs() if callable(logs) else logs
        values = "".join(f" - {key}: {format_value(value)}" for key, value in logs.items())
        if self.verbose == 2:
            self._write(f"{self._count(step)} - {now - self._start:.0f}s{values}\n")
            return
        line = f"{self._count(step)} {self._bar(step)}{self._timing(step, now, finalize)}{values}"
        if self._dynamic:
            padding = " " * max(0, self._drawn_width - len(line))
            self._drawn_width = len(line)
            self._write("\r" + line + padding + ("\n" if finalize else ""))
        else:
            self._write(line + "\n")

    def _count(self, step):
        if self.target is None:  # a generator's batches, not counted yet
            return f"{step}/Unknown"
        digits = len(str(self.target))
        return f"{step:{digits}d}/{self.target}"

    def _bar(self, step):
        if self.target is None:
            return ""
        filled = int(self.width * step / self.target) if self.target else self.width
        bar = "=" * max(0, filled - 1)
        if filled > 0:
            bar += ">" if step < self.target else "="
        return "[" + bar + "." * (self.width - filled) + "]"

    def _time_per_step(self, step, now):
        # The first step traces the graph: once there are others, it is left out.
        if self._after_first_step is not None and step > 1:
            return (now - self._after_first_step) / (step - 1)
        return (now - self._start) / max(1, step)

    def _timing(self, step, now, finalize):
        per_step = self._time_per_step(step, now)
        if self.target is not None and step < self.target and not finalize:
            return f" - ETA: {_format_eta(per_step * (self.target - step))}"
        return f" - {now - self._start:.0f}s {format_step_time(per_step)}"

    def _write(self, text):
        self.stream.write(text)
        self.stream.flush()


def _is_terminal(stream):
    isatty = getattr(stream, "isatty", None)
    return bool(isatty and isatty())
