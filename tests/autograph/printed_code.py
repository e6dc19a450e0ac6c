"""Running what ``ag.to_code`` prints: the printed text, executed, must behave as the original.

``from_printed_code(fn, code)`` executes ``code`` (by default ``ag.to_code(fn)``) with the
names the original function sees: its module's globals, the values of its closure cells,
and ``ag__``, the operators converted code calls. The result is a plain function (bound
again to the instance when ``fn`` is a method), so a test calls it exactly as it calls
``fn`` and compares the two.
"""

from __future__ import annotations

import inspect
import linecache
import types

import autograph as ag
from autograph.impl import api


def from_printed_code(fn, code=None):
    """The function that ``code`` (the text ``ag.to_code(fn)`` prints) defines, ready to call."""
    if code is None:
        code = ag.to_code(fn)
    function = fn.__func__ if inspect.ismethod(fn) else fn
    namespace = dict(function.__globals__)
    for var, cell in zip(function.__code__.co_freevars, function.__closure__ or ()):
        namespace[var] = cell.cell_contents
    namespace["ag__"] = api._AG_NAMESPACE
    # Registered as a file's lines: what the printed code defines (lambdas, nested
    # functions) has source that AutoGraph can read and convert.
    filename = f"<printed code of {function.__qualname__}>"
    linecache.cache[filename] = (len(code), None, code.splitlines(True), filename)
    exec(compile(code, filename, "exec"), namespace)
    printed = namespace[function.__name__]
    assert printed is not function, "the printed code did not define the function"
    # A recursive call reaches the original, as it does from the converted function.
    namespace[function.__name__] = function.__globals__.get(function.__name__, printed)
    printed.__defaults__, printed.__kwdefaults__ = function.__defaults__, function.__kwdefaults__
    return types.MethodType(printed, fn.__self__) if inspect.ismethod(fn) else printed
