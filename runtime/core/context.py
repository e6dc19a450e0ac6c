"""Which graph, if any, new ops go into.

Eager execution is simply "no graph is being built": ``Graph.as_default()``
pushes a graph on a per-thread stack and ops consult the top of it.
"""

from __future__ import annotations

import threading


class _Context(threading.local):
    def __init__(self):
        self.graphs = []  # graphs being built, innermost last
        self.eager_name_scope = ""  # name prefix for variables made eagerly ("demo_module/")
        self.tapes = []  # recording GradientTapes, innermost last (runtime.gradients.tape)


_context = _Context()

active = 0
"""How many graphs are being built and tapes recording, in all threads together.

Zero means that every thread executes eagerly with no tape recording: hot paths
(a call of a traced function) read this one module attribute, where asking this
thread's own context costs several times more. When it is not zero they ask
the thread, so another thread's graph only sends them the longer way.
"""
_active_lock = threading.Lock()  # counts stay exact when threads push and pop at once


def _count(change):
    global active
    with _active_lock:
        active += change


def building_graph():
    """The graph ops are added to now, or None when executing eagerly."""
    graphs = _context.graphs
    return graphs[-1] if graphs else None


def executing_eagerly() -> bool:
    """True when ops run at once instead of being added to a graph.

    >>> import runtime as rt
    >>> rt.executing_eagerly()
    True
    >>> with rt.Graph().as_default():
    ...     rt.executing_eagerly()
    False
    """
    return not _context.graphs


def recording_tapes():
    """The GradientTapes recording now (a list, empty when none is): ops report to each."""
    return _context.tapes


def push_graph(graph):
    _context.graphs.append(graph)
    _count(1)


def pop_graph(graph):
    popped = _context.graphs.pop()
    _count(-1)
    assert popped is graph, "graph contexts were exited out of order"


def push_tape(tape):
    """``tape`` records the ops run from now on in this thread (runtime.gradients.tape)."""
    _context.tapes.append(tape)
    _count(1)


def pop_tape(tape):
    """``tape`` stops recording in this thread."""
    tapes = _context.tapes
    for i in range(len(tapes) - 1, -1, -1):
        if tapes[i] is tape:
            del tapes[i]
            _count(-1)


class eager_mode:
    """Runs the body eagerly even while a graph is being built (TensorFlow's init_scope)."""

    def __enter__(self):
        self._saved = _context.graphs
        _context.graphs = []

    def __exit__(self, *exc):
        _context.graphs = self._saved


class init_scope:  # noqa: N801 (TensorFlow's name)
    """Leaves every function being traced, so that the ops inside run eagerly (TensorFlow's
    ``tf.init_scope``): what a variable's initial value needs is computed once, not each call.

    Inside a TF1 ``Graph.as_default()`` the ops go to that graph (the innermost graph that is
    not a function's), outside its ``control_dependencies`` blocks; tapes do not record
    inside, as in TensorFlow.

    >>> import runtime as rt
    >>> import autograph as ag
    >>> @ag.function
    ... def f():
    ...     with rt.init_scope():
    ...         inside = rt.executing_eagerly()
    ...     return inside, rt.executing_eagerly()
    >>> [bool(b) for b in f()]
    [True, False]
    """

    def __enter__(self):
        self._saved = _context.graphs, _context.tapes
        outer = len(_context.graphs)
        while outer and getattr(_context.graphs[outer - 1], "building_function", False):
            outer -= 1
        _context.graphs = _context.graphs[:outer]
        _context.tapes = []
        # The graph's control dependencies are cleared, as TensorFlow's init_scope does.
        self._no_controls = _context.graphs[-1].no_control_dependencies() if outer else None
        if self._no_controls is not None:
            self._no_controls.__enter__()
        return self

    def __exit__(self, *exc):
        if self._no_controls is not None:
            self._no_controls.__exit__(*exc)
        _context.graphs, _context.tapes = self._saved
