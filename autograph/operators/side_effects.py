"""Changes a call makes, unseen by the converter, while a staged loop or ``if`` is traced.

The converter sees what a statement assigns and what it changes in place
(``stack.pop()``, ``b.v = 1``): that is the statement's state, which a staged
loop carries from one iteration to the next. A call of the user's own function
(``pop(stack)``, ``step(b)``) may change what it is passed too, and the
converter cannot see that. Python makes the change once per iteration; a graph
traces the body once, so the change happens once, at trace time, whatever the
loop does when it runs: a wrong answer, or a loop whose test never changes.
(TensorFlow's AutoGraph gives that answer silently.) A staged ``if`` traces
both branches, so a branch's change happens whichever branch the graph takes.

So while a staged statement is traced, the function's own lists, dicts and
sets that it reads (up to 1,000 items: a larger one is data, and noting it would
cost each trace as much as its size), and the public attributes of its own
objects, are *watched*: their contents are noted before, and a change that
would make the graph's answer differ from Python's is an error that names the
variable and the call that made it (checked as each call of a converted
function returns, and once more when the tracing ends). That is:

- an entry removed (``pop``, ``remove``, ``del``, ``clear``; a key, an attribute);
- an entry replaced by a different value (``xs[1] += 1``, ``b.v = b.v + 1``; an
  ``insert`` before existing items moves them, so it replaces them too), but
  ``None`` given a value, which builds what was missing as an addition does;
- an item added to a list of the function's own variables (``push(xs, 1)``): Python
  adds one per iteration, the graph one in all, so ``len(xs)`` after the loop would be
  wrong;
- another entry added (a new key or attribute, ``setdefault``, an item of a list an
  object holds) only when what it adds holds a tensor of the traced code: one that
  exists only inside the statement. Other additions (a cache, a layer built on its
  first call) happen while tracing, as Python side effects do.

What the statement carries (a list it appends to in its own code, ``b.v`` it
assigns) is its state, not watched. Of globals and variables of enclosing
functions only an addition or replacement that puts in a tensor of the traced
code is an error, and, in a staged loop, an attribute of an object replaced by another
value (``counter.n += 1``): Python changes it once per iteration, the graph once in all,
and a loop test reading it through a call would never change. Not watched at all: objects
of library code (``runtime``,
``autograph``, numpy, the standard library, installed packages: see
``autograph.pyct.library_code``; but ``types.SimpleNamespace`` and
``argparse.Namespace`` hold the user's own data), ``rt.Module`` objects, and
attributes whose names begin with ``_``.

>>> def pop(stack):
...     return stack.pop()
>>> def loop_body():
...     pop(stack)
>>> stack = [1, 2, 3]
>>> watch = Watch(StatementKind.LOOP, {"stack": stack}, ())
>>> loop_body()
>>> print(watch.error("by a call of pop()", watch.changed()))  # doctest: +ELLIPSIS
'stack' (a Python list) was changed by a call of pop() while the body of a tensor-dependent loop was traced: ...
"""

from __future__ import annotations

import argparse
import operator
import sys
import threading
import types
import weakref

import runtime as rt
from autograph.operators.backends import staging
from autograph.operators.kinds import StatementKind
from autograph.operators.staging_errors import refusal
from autograph.operators.state import NAMED_KEY, symbol_path
from autograph.pyct.library_code import is_library_module

# The watches of the statements being traced, innermost last, of every thread (each knows its
# own): a plain list, so that a call of a converted function asks ``if WATCHES:`` at no cost.
WATCHES = []


class HiddenChangeError(ValueError):
    """A call changed what a staged statement reads, where the converter could not see."""


_WHAT_HAPPENS = {
    StatementKind.LOOP: (
        "the body of a tensor-dependent loop was traced: in the graph that change happens once, "
        "when the loop is traced, not once per iteration"
    ),
    StatementKind.IF: (
        "a branch of a tensor-dependent `if` was traced: both branches are traced, so in the "
        "graph that change happens whichever branch runs, and before either does"
    ),
    StatementKind.BREAK: (
        "the rest of a loop after a tensor-dependent `break` was traced: in the graph that change "
        "happens whether the loop has stopped or not"
    ),
}
_WHAT_TO_DO = {
    StatementKind.LOOP: (
        "Make it loop state: change it in the loop's own code ({example}), or keep what changes "
        "in tensors (a TensorArray, rt ops)."
    ),
    StatementKind.IF: (
        "Make it the `if`'s state: change it in the branches' own code ({example}), or keep "
        "what changes in tensors."
    ),
}
_WHAT_TO_DO[StatementKind.BREAK] = _WHAT_TO_DO[StatementKind.IF]


class Watch:
    """The contents of ``variables`` (name -> value) when a staged statement began tracing.

    ``carried`` are the names the statement carries: a container among them is its
    state, and so is an attribute or a key named by one (``b.v``, ``d['k']``). Of
    ``foreign`` ones (globals, an enclosing function's) only a change to a tensor of the
    graphs traced inside ``graph`` counts: a value that exists only inside the statement.
    """

    __slots__ = ("statement", "thread", "graph", "scanned", "_noted")

    def __init__(self, statement, variables, carried, foreign=None, graph=None, scanned=None):
        self.statement = statement
        self.thread = threading.get_ident()
        self.graph = graph
        # id -> function: those whose reads it watches (kept alive with it)
        self.scanned = {} if scanned is None else scanned
        carried = set(carried)
        parts = {}  # variable -> what of it the statement carries (b.v: 'v'; d['k']: 'k')
        for name in carried:
            base, steps = symbol_path(name)
            if steps:
                kind, key = steps[0]
                # x[k]: a key known only as the value of k; the container is the state
                parts.setdefault(base, set()).add(_ANY_KEY if kind == NAMED_KEY else key)
        self._noted = []
        for is_foreign, values in ((False, variables), (True, foreign or {})):
            for name, value in values.items():
                skip = parts.get(name, ())
                if type(value) in _CONTAINERS:
                    if name not in carried and _ANY_KEY not in skip:  # else the statement's state
                        self._note_container(name, value, is_foreign, skip)
                elif _watched_object(value):
                    attributes = _attributes(value, skip)
                    self._noted.append((name, value, attributes, skip, is_foreign))
                    for attribute, held in attributes.items():  # self.items: a list it holds
                        if type(held) in _CONTAINERS:
                            self._note_container(f"{name}.{attribute}", held, is_foreign, ())

    def _note_container(self, name, value, is_foreign, skip):
        """Notes a container's contents; ``skip``: the keys (indices) the statement carries.
        A large one is data, not watched: noting it would cost each trace as much as its size."""
        if len(value) > _LARGEST_WATCHED:
            return
        if type(value) is list:  # xs[-1] is xs[2] of three
            skip = {key + len(value) if key < 0 else key for key in skip if type(key) is int}
        self._noted.append((name, value, _CONTAINERS[type(value)](value), skip, is_foreign))

    def changed(self):
        """(description, symbol, container type or None, entry) of the first watched value
        that changed so that the graph's answer would differ from Python's, or None.

        Of the function's own values that is an entry removed, or replaced by a different value
        (but ``None`` by one), or an entry added that holds a tensor of the traced code; of
        foreign ones, only a tensor of the traced code put in."""
        for entry in self._noted:
            name, value, before, skip, is_foreign = entry
            if type(value) in _CONTAINERS:
                change = _container_change(before, value, skip)
                if change is None:
                    continue
                replaced, new = change
                leaks = not (replaced and not is_foreign) and self._leaks(new)
                grown = new and _grows_wrong(name, value, is_foreign)
                if not leaks and not grown and (is_foreign or not replaced):
                    continue
                what = f"'{name}' (a Python {type(value).__name__}"
                what += ", given a tensor of the traced code)" if leaks else ")"
                return what, name, type(value), entry
            now = vars(value)
            for attribute, held in now.items():
                if attribute[0] == "_" or attribute in skip:
                    continue
                old = before.get(attribute, _GONE)
                if _same(old, held):
                    continue
                added = old is _GONE or old is None
                leaks = (is_foreign or added) and self._leaks([held])
                # A foreign object's attribute replaced in a loop: a test that reads it through a
                # call (while counter.step() < n) would test the same value on every iteration.
                replaced = not added and (not is_foreign or self.statement == StatementKind.LOOP)
                if not leaks and not replaced:
                    continue
                return (
                    _attribute(name, attribute, value, leaks),
                    f"{name}.{attribute}",
                    None,
                    entry,
                )
            if not is_foreign:
                gone = next((attribute for attribute in before if attribute not in now), None)
                if gone is not None:
                    return _attribute(name, gone, value, False), f"{name}.{gone}", None, entry
        return None

    def _leaks(self, values):
        """Whether ``values`` hold a tensor of a graph traced inside the statement (or any
        staged value of another framework: of a JAX tracer it cannot tell which trace made it)."""
        for value in values:
            for leaf in (
                rt.nest.flatten(value) if isinstance(value, (tuple, list, dict)) else [value]
            ):
                if isinstance(leaf, rt.SymbolicTensor) and leaf.graph is not self.graph:
                    graph = getattr(leaf.graph, "outer_graph", None)
                    while graph is not None and graph is not self.graph:
                        graph = getattr(graph, "outer_graph", None)
                    if graph is not None:
                        return True
                elif not isinstance(leaf, rt.Tensor) and staging(leaf) is not None:
                    return True  # another framework's (a JAX tracer): which trace, it cannot tell
        return False

    def restore(self, also=None, only=None):
        """Puts back what the function's own watched values held (and ``also``, an entry; or
        ``only`` that one): a failed staging leaves nothing half-done."""
        for entry in self._noted if only is None else [only]:
            _, value, before, skip, is_foreign = entry
            if is_foreign and entry is not also and entry is not only:
                continue  # a global trace-time log keeps what tracing wrote in it
            if type(value) in _CONTAINERS:  # the statement restores what it carries itself
                _set_contents(value, before, skip)
            else:
                for attribute in [a for a in vars(value) if a[0] != "_" and a not in skip]:
                    if attribute not in before:
                        delattr(value, attribute)
                for attribute, old in before.items():
                    setattr(value, attribute, old)

    def error(self, by, found):
        description, symbol, container, _ = found
        return refusal(
            HiddenChangeError(
                f"{description} was changed {by} while {_WHAT_HAPPENS[self.statement]}. "
                + _WHAT_TO_DO[self.statement].format(example=_EXAMPLES[container](symbol))
            )
        )


# How the statement's own code could change it instead, so that the statement carries it.
_EXAMPLES = {
    list: lambda s: f"{s}.append(x), {s}.pop(), {s} = f({s})",
    dict: lambda s: f"{s}[k] = v, {s} = f({s})",
    set: lambda s: f"{s} = f({s})",
    None: lambda s: f"{s} = ...",
}


_GONE = object()
_ANY_KEY = object()
_IMMUTABLE = (int, float, complex, str, bytes, bool, rt.TensorShape, rt.DType)


def _grows_wrong(name, container, is_foreign) -> bool:
    """Whether items added to ``container`` make the graph's answer differ from Python's: a list
    of the function's own variables. Python adds them once per iteration (or only on the branch
    taken), the graph once, at trace time; so ``len(xs)``, ``xs[-1]`` or a loop over it after the
    statement would be wrong. A dict or a set given the same key again is unchanged, and a list
    an object holds (``self.layers``) is built once, on first use, as layers are."""
    return type(container) is list and not is_foreign and "." not in name  # xs, not self.items


def _same(old, now) -> bool:
    """The same object, or an equal immutable value: a Python number or string
    (``b.n = b.n + 0``), a shape or dtype (``memo.shape = x.shape``), or a tuple of them."""
    if old is now:
        return True
    if type(old) is not type(now):
        return False
    if type(now) is tuple:
        return len(old) == len(now) and all(map(_same, old, now))
    return type(now) in _IMMUTABLE and old == now


def _set_contents(container, before, skip):
    if type(container) is list:
        keep = [(i, container[i]) for i in skip if i < len(container)] if skip else ()
        container[:] = before
        for i, item in keep:
            if i < len(container):
                container[i] = item
    elif type(container) is dict:
        keep = {k: container[k] for k in skip if k in container}
        container.clear()
        container.update(before)
        container.update(keep)
    else:
        container.clear()
        container.update(before)


_CONTAINERS = {list: list, dict: dict, set: set}


def _container_change(before, container, skip=()):
    """None if ``container`` holds the very objects it held (``before``, its copy), but at
    ``skip``; else ``(replaced, new)``: whether an entry was removed or replaced by a different
    value (an item shifted by ``insert`` is replaced; ``None`` given a value is not), and the
    values it holds that it did not (added, or put in place of others)."""
    kind = type(container)
    if kind is list:
        if len(before) == len(container) and all(map(operator.is_, before, container)):
            return None
        replaced = len(container) < len(before)
        new = container[len(before) :]
        for i, (old, now) in enumerate(zip(before, container)):
            if i in skip or _same(old, now):
                continue
            new.append(now)
            replaced = replaced or old is not None
        return (replaced, new) if replaced or new else None
    if kind is dict:
        replaced, new = False, []
        for key, old in before.items():
            if key in skip:
                continue
            now = container.get(key, _GONE)
            if not _same(old, now):
                replaced = replaced or old is not None or now is _GONE
                if now is not _GONE:
                    new.append(now)
        new += [v for k, v in container.items() if k not in before and k not in skip]
        return (replaced, new) if replaced or new else None
    held = {id(x) for x in before}  # a set
    if len(before) == len(container) and all(id(x) in held for x in container):
        return None
    now = {id(x) for x in container}
    return any(id(x) not in now for x in before), [x for x in container if id(x) not in held]


def _watched_object(value) -> bool:
    """An object of the user's own class, whose attributes a call may change."""
    kind = type(value)
    if not hasattr(value, "__dict__") or isinstance(value, _NOT_WATCHED):
        return False
    return kind in _USERS_DATA or not is_library_module(kind.__module__)


# Library classes (a subclass is the user's, but its state is the library's concern: a layer
# builds its variables on its first call), and the library's holders of the user's own data.
_NOT_WATCHED = (rt.Module, rt.Tensor, rt.TensorArray, rt.Variable, type)
_USERS_DATA = {types.SimpleNamespace, argparse.Namespace}


def _attributes(value, skip):
    return {k: v for k, v in vars(value).items() if not k.startswith("_") and k not in skip}


def _attribute(name, attribute, value, leaks):
    kind = type(value).__name__
    article = "an" if kind[0].lower() in "aeiou" else "a"
    given = ", given a tensor of the traced code" if leaks else ""
    return f"'{name}.{attribute}' (an attribute of {article} {kind}{given})"


# --- what staged statements and calls of converted functions call ------------------------------


def read_variables(functions, frame, covered=(), scanned=None):
    """``(own, foreign)``: the variables that ``functions`` (a statement's branches, or its
    loop's test and body) read, by name: those of the converted function, and the rest (of
    enclosing functions, globals); ``frame`` is the one that runs the statement. The functions
    of the same converted code that these reach (an elif's branches, beside its if's) are read
    too, but not those whose ids are in ``covered`` (an enclosing statement's watch reads them
    already: its own functions a statement always reads, with what it carries); those read
    go into ``scanned`` (id -> function).

    A function's own variable, read by a nested function, is a cell of it (``co_cellvars``);
    converted code is one file, so the frames of that file from ``frame`` up (the function,
    and the statements it is nested in) tell which cells are the function's own.
    """
    functions = [fn for fn in functions if fn is not None]
    own, foreign = {}, {}
    if not functions:
        return own, foreign
    generated = functions[0].__code__.co_filename
    cells = set()
    while frame is not None:  # staging's own frames come between a loop's body and its function
        if frame.f_code.co_filename == generated:
            cells.update(frame.f_code.co_cellvars)
        frame = frame.f_back
    helpers = []
    seen = {id(fn) for fn in functions}
    seen.update(covered)
    looked_up = set()  # globals: each looked up once, however many functions name it
    for fn in functions:  # grows while it is read
        for name, value in _reads(fn, looked_up):
            is_own = name in cells
            if _watchable(value, is_own):
                (own if is_own else foreign).setdefault(name, value)
            elif type(value) is not _FUNCTION or id(value) in seen:
                continue
            elif value.__code__.co_filename == generated:  # an elif's branches, beside the if's
                seen.add(id(value))
                functions.append(value)
            elif not is_library_module(value.__module__ or ""):
                seen.add(id(value))
                helpers.append(value)
    if scanned is not None:
        scanned.update((id(fn), fn) for fn in functions)
    for helper in helpers:  # what a helper closes over, and its globals: one level
        for name, value in _reads(helper, set()):
            if name not in own and _watchable(value, False):
                foreign.setdefault(name, value)
    return own, foreign


_FUNCTION = type(read_variables)


def _reads(fn, looked_up):
    """(name, value) of the closure cells of ``fn`` and the globals its code names (but those
    in ``looked_up``, which it adds to)."""
    for name, cell in zip(fn.__code__.co_freevars, fn.__closure__ or ()):
        try:
            yield name, cell.cell_contents
        except ValueError:
            continue
    module = fn.__globals__
    for name in _global_names(fn.__code__) - looked_up:
        looked_up.add(name)
        value = module.get(name, _GONE)
        if value is not _GONE:
            yield name, value


def _watchable(value, own):
    kind = type(value)
    if kind in _CONTAINERS:  # a large one is data: watching it would cost as much as its size
        return len(value) <= _LARGEST_WATCHED
    watched = _WATCHED_TYPES.get(kind)
    if watched is None:
        watched = _WATCHED_TYPES[kind] = _watched_object(value)
    return watched


_LARGEST_WATCHED = 1000
# type -> whether its objects are watched (a class's answer never changes); code -> the names
# it and the functions nested in it read as globals. Neither keeps a class or code alive.
_WATCHED_TYPES = weakref.WeakKeyDictionary()
_GLOBAL_NAMES = weakref.WeakKeyDictionary()


def _global_names(code):
    """The names ``code`` and the functions nested in it read as globals (and attributes)."""
    names = _GLOBAL_NAMES.get(code)
    if names is None:
        found = set(code.co_names)
        for const in code.co_consts:
            if hasattr(const, "co_names"):
                found |= _global_names(const)
        names = _GLOBAL_NAMES[code] = frozenset(found)
    return names


class watching:  # noqa: N801 (used as a statement: ``with watching(...):``)
    """Watches what a staged ``statement`` (a ``StatementKind``: a loop, an if, or the rest of a
    Python loop after a tensor-dependent ``break``) reads while it is traced. Made by the operator that
    stages the statement, which the converted code called: on exit it raises what changed
    (by code no call of a converted function ran: ``setattr``, a function left unconverted),
    or, when the tracing failed anyway, only puts back what was watched.
    """

    __slots__ = ("watch",)

    def __init__(self, statement, functions, carried):
        thread = threading.get_ident()
        # An elif's branches are read by the if's watch, and the elif's by it, and so on: a
        # chain of them would read the rest of the chain at each link.
        covered = set()
        for outer in WATCHES:
            if outer.thread == thread:
                covered.update(outer.scanned)
        scanned = {}
        frame = sys._getframe(2)  # the converted code's, which called the operator
        own, foreign = read_variables(functions, frame, covered, scanned)
        # Pushed even with nothing to watch: the statements nested in it need not read it again.
        self.watch = Watch(statement, own, carried, foreign, rt.get_default_graph(), scanned)
        WATCHES.append(self.watch)

    def __enter__(self):
        return self.watch

    def __exit__(self, kind, error, traceback):
        watch = self.watch
        WATCHES.remove(watch)
        found = None if kind is not None else watch.changed()
        if kind is not None or found is not None:
            watch.restore(also=found and found[3])
        if found is not None:
            raise watch.error("by code the converter cannot see", found)
        return False


def after_call(function):
    """Called as a converted function returns, while staged statements are traced: an error at
    the call if it changed what one of them watches."""
    thread = threading.get_ident()
    for watch in reversed(WATCHES):
        found = watch.changed() if watch.thread == thread else None
        if found is not None:
            watch.restore(only=found[3])  # a foreign one keeps no tensor of the traced code
            raise watch.error(f"by a call of {function.__qualname__}()", found)
