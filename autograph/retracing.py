"""The frequent-retracing warning: logged when most of a function's recent calls traced.

TensorFlow 2 logs it through Python's ``logging`` at WARNING, and so does this
package, on the logger named ``"autograph"``. The rule is TensorFlow's: the
calls of one Python function (all the ``ag.function``s made of the same code
count together, so that one made anew in a loop is noticed) are remembered as
runs, each a call that traced followed by the calls that did not; the oldest
run is forgotten once more than ten calls came after it. When five or more
traces are remembered the warning is logged, at most twice per function.

>>> detector = RetracingDetector()
>>> [detector.traced() for _ in range(5)]
[None, None, None, None, (5, 5)]
>>> detector.untraced += 1            # a call that found its graph
>>> detector.traced()                 # 6 traces among the last 7 calls: the second warning
(6, 7)
>>> detector.traced() is None         # (warned twice: silent from now on)
True
"""

from __future__ import annotations

import logging
import threading
import weakref

logger = logging.getLogger("autograph")

HISTORY = 10  # a run is forgotten once more than this many calls came after its trace
THRESHOLD = 5  # this many remembered traces warn (and the Function's RetracingWarning)
MAX_WARNINGS = 2  # per Python function


class RetracingDetector:
    """The recent calls of one Python function: how many traced.

    A call that does not trace only adds one to ``untraced`` (the hot path of a call makes
    no Python call for it); a call that traces says so with ``traced()``.
    """

    __slots__ = ("_runs", "_calls", "_warnings", "untraced")

    def __init__(self):
        self._runs = []  # per remembered trace: 1 + the calls after it that did not trace
        self._calls = 0  # the calls those runs hold
        self._warnings = 0
        self.untraced = 0  # calls since the last trace that did not trace

    def traced(self):
        """A call that traced: ``(traces, calls)`` remembered when it is time to warn, else None."""
        if self.untraced:
            if self._runs:
                self._runs[-1] += self.untraced
            else:  # (get_concrete_function traced before: no call's trace to count them to)
                self._runs.append(self.untraced)
            self._calls += self.untraced
            self.untraced = 0
        self._runs.append(1)
        self._calls += 1
        while self._runs and self._calls - self._runs[0] > HISTORY:
            self._calls -= self._runs.pop(0)
        if self._warnings >= MAX_WARNINGS or len(self._runs) < THRESHOLD:
            return None
        self._warnings += 1
        return len(self._runs), self._calls


_detectors = weakref.WeakKeyDictionary()  # code object (or callable) -> its detector
_lock = threading.Lock()


def detector_for(python_function):
    """The detector shared by every ag.function of ``python_function``'s code."""
    key = _code_of(python_function)
    with _lock:
        detector = _detectors.get(key)
        if detector is None:
            detector = _detectors[key] = RetracingDetector()
    return detector


def _code_of(fn):
    while hasattr(fn, "__wrapped__"):
        fn = fn.__wrapped__
    fn = getattr(fn, "__func__", fn)  # a bound method: its function's code
    code = getattr(fn, "__code__", None)
    if code is not None:
        return code
    try:
        weakref.ref(fn)
        return fn
    except TypeError:
        return type(fn)


def warn(python_function, traces, calls):
    """Logs TensorFlow's warning, with this package's names."""
    logger.warning(
        "%d out of the last %d calls to %r triggered ag.function retracing. Tracing is "
        "expensive and the excessive number of tracings could be due to (1) creating "
        "@ag.function repeatedly in a loop, (2) passing tensors with different shapes, "
        "(3) passing Python objects instead of tensors. For (1), please define your "
        "@ag.function outside of the loop. For (2), @ag.function has reduce_retracing=True "
        "option that can avoid unnecessary retracing. For (3), please refer to "
        "docs/function.md (Tracing and retracing) for more details.",
        traces,
        calls,
        python_function,
    )
