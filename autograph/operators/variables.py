"""Placeholders for values that do not exist yet: an unassigned variable, a missing return value.

>>> y = Undefined("y")
>>> y + 1
Traceback (most recent call last):
...
UnboundLocalError: cannot access local variable 'y' where it is not associated with a value ('y' is used before assignment)
"""

from __future__ import annotations

from autograph.operators import unset
from autograph.operators.staging_errors import refusal


class Undefined:
    """The value of a variable that was not assigned on the path taken so far.

    Generated code assigns it where Python would leave the name unbound, so
    that branches and loops can pass the name around; any use of it raises
    the UnboundLocalError Python would have raised.
    """

    __slots__ = ("name",)

    def __init__(self, name):
        self.name = name

    def _unbound(self, *args, **kwargs):
        raise UnboundLocalError(
            f"cannot access local variable '{self.name}' where it is not associated with a "
            f"value ('{self.name}' is used before assignment)"  # Python's words, then TensorFlow's
        )

    __add__ = __radd__ = __sub__ = __rsub__ = __mul__ = __rmul__ = _unbound
    __truediv__ = __rtruediv__ = __floordiv__ = __rfloordiv__ = __mod__ = __rmod__ = _unbound
    __pow__ = __rpow__ = __matmul__ = __rmatmul__ = __neg__ = __pos__ = __abs__ = _unbound
    __lt__ = __le__ = __gt__ = __ge__ = __and__ = __or__ = __xor__ = __invert__ = _unbound
    __bool__ = __len__ = __iter__ = __getitem__ = __setitem__ = __call__ = __index__ = _unbound
    __int__ = __float__ = _unbound

    def __getattr__(self, name):
        if name.startswith("_"):  # introspection (hasattr) must keep working
            raise AttributeError(name)
        self._unbound()

    def __repr__(self):
        return f"Undefined({self.name!r})"


class UndefinedReturnValue(Undefined):
    """What a function returns on a path where no ``return`` ran: None, to Python.

    ``guarded``: a ``do_return`` flag guards every use of the value, so a
    graph branch that has not returned yet may hold a stand-in for it.
    ``failure``: the UnboundLocalError of a graph branch that fails when it
    runs, and that left no graph path a value to return (see ``returned``).
    """

    __slots__ = ("guarded", "failure")

    def __init__(self, guarded=False, failure=None):
        super().__init__("return value")
        self.guarded, self.failure = guarded, failure

    def __repr__(self):
        return "UndefinedReturnValue()"


def is_undefined(value) -> bool:
    return isinstance(value, Undefined)


def ld(value):
    """A variable's value where it may not be assigned: raises as Python would if it is not.

    A graph value that a staged loop may not have set (it ran zero times) comes
    after a check that it did (``operators.unset``).
    """
    if isinstance(value, Undefined):
        value._unbound()
    return unset.checked(value)


def returned(value):
    """The result of a function every path of which returns (or raises): ``value``.

    In Python such a function always has one. A graph has none where the only
    paths that would give one fail when they run (``return a + w`` with ``w``
    unassigned, after a staged loop): that failure is the function's, at once.
    """
    if isinstance(value, UndefinedReturnValue):
        if value.failure is not None:
            raise value.failure.with_traceback(None)
        raise ValueError(
            "No path of the function's graph gives it a return value: every `return` is on a "
            "path that the graph cannot take (an `except` clause, say)."
        )
    return value


def ret(value, returned=True):
    """A function's result: None where no ``return`` statement gave one.

    ``returned`` is the ``do_return`` flag, where the function has one: a
    graph cannot return a value on some paths and nothing on others.
    """
    if isinstance(value, UndefinedReturnValue):
        return None
    if hasattr(returned, "op"):  # a symbolic flag: whether a return ran is decided in the graph
        raise refusal(
            ValueError(
                "The function returns a value on some paths of its tensor-dependent control flow and "
                "falls off the end on others; a graph needs a value on every path: add a final `return`."
            )
        )
    return value
