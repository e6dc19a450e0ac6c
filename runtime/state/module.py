"""Module: a container of variables and sub-modules that finds them by itself.

>>> import runtime as rt
>>> class DemoModule(rt.Module):
...     def __init__(self, name=None):
...         super().__init__(name=name)
...         with self.name_scope:
...             self.x = rt.Variable(1.0)
...             self.frozen = rt.Variable(2.0, trainable=False)
>>> demo = DemoModule()
>>> demo.name, demo.name_scope.name, demo.x.name
('demo_module', 'demo_module/', 'demo_module/Variable:0')
>>> [v.name for v in demo.variables], len(demo.trainable_variables)
(['demo_module/Variable:0', 'demo_module/Variable:0'], 1)
"""

from __future__ import annotations

import functools
import re
import threading

from runtime.core.graph import name_scope
from runtime.state import deferred
from runtime.state.variables import Variable

# The module's own bookkeeping: never walked, whatever _TF_MODULE_IGNORED_PROPERTIES says.
_OWN_ATTRIBUTES = {"_name", "_scope_name", "_name_scope"}


def _snake_case(name):
    name = re.sub(r"(.)([A-Z][a-z]+)", r"\1_\2", name)
    return re.sub(r"([a-z0-9])([A-Z])", r"\1_\2", name).lower()


def ignored_properties(module):
    """The attributes of ``module`` that its walks leave out: the module's own bookkeeping and
    its ``_TF_MODULE_IGNORED_PROPERTIES``."""
    return _OWN_ATTRIBUTES | module._TF_MODULE_IGNORED_PROPERTIES


class ModuleNameScope(name_scope):
    """A module's name scope: one object for the module's life (``m.name_scope is
    m.name_scope``, as in TensorFlow 2), that can be entered again while it is open, as a
    method decorated with ``with_name_scope`` is when it calls another.

    >>> import runtime as rt
    >>> scope = ModuleNameScope("outer/")
    >>> with scope, scope:
    ...     rt.Variable(1.0, name="v").name
    'outer/v:0'
    """

    def __init__(self, name):
        super().__init__(name)
        self._entered = {}  # thread id -> the scopes it has open, innermost last

    @property
    def name(self):
        """The full scope name, ending in ``/`` (``"outer/inner/"``)."""
        return self._name

    def __enter__(self):
        scope = name_scope(self._name)
        self._entered.setdefault(threading.get_ident(), []).append(scope)
        return scope.__enter__()

    def __exit__(self, *exc):
        thread = threading.get_ident()
        scopes = self._entered[thread]
        scope = scopes.pop()
        if not scopes:
            del self._entered[thread]
        return scope.__exit__(*exc)


class Module:
    """Base class for objects that own variables (``tf.Module``).

    ``variables``, ``trainable_variables``, ``non_trainable_variables`` and
    ``submodules`` are found through the object's attributes, and through lists,
    tuples and dicts held in them: the module's own attributes in name order, then
    each submodule's in the same way, depth first; each object once, however the
    modules refer to each other. Attributes named in the class's
    ``_TF_MODULE_IGNORED_PROPERTIES`` are left out.
    """

    _TF_MODULE_IGNORED_PROPERTIES = frozenset()

    def __init__(self, name=None):
        name = name if name is not None else _snake_case(type(self).__name__)
        if not name.isidentifier():
            raise ValueError(
                f"{name!r} is not a valid module name. Module names must be valid Python "
                "identifiers (e.g. a valid class name)."
            )
        self._name = name
        with name_scope(name) as scope:
            self._scope_name = scope
        self._name_scope = ModuleNameScope(scope)

    def _named(self):
        """Names the module from its class, on first use, when a subclass's ``__init__`` did
        not call ``super().__init__()``: TensorFlow accepts that, and so do its tutorials. Its
        scope is opened at the top, as a constructor's would be, not inside the first caller's."""
        if "_name" not in self.__dict__:
            with name_scope(""):
                Module.__init__(self)
        return self

    @property
    def name(self):
        """The name given to the constructor, or the class's name in snake case."""
        return self._named()._name

    @property
    def name_scope(self):
        """The module's name scope, the same object each time: ``with self.name_scope:``.
        Its ``name`` is the full scope (``"outer/inner/"``)."""
        return self._named()._name_scope

    @property
    def variables(self):
        """Every variable of this module and its submodules, each once (see the class)."""
        return tuple(self._flatten(predicate=_is_variable))

    @property
    def trainable_variables(self):
        """The variables with ``trainable=True``, in the order of ``variables``."""
        return tuple(self._flatten(predicate=_is_trainable_variable))

    @property
    def non_trainable_variables(self):
        """The variables with ``trainable=False``, in the order of ``variables``."""
        return tuple(self._flatten(predicate=_is_non_trainable_variable))

    @property
    def submodules(self):
        """Every module reachable from this one's attributes (itself not included)."""
        return tuple(self._flatten(predicate=_is_module))

    def _flatten(
        self,
        recursive=True,
        predicate=None,
        attribute_traversal_key=None,
        with_path=False,
        expand_composites=False,
    ):
        """The values held in the module's attributes (``tf.Module._flatten``), lazily.

        Attributes are walked in name order (``sorted(names, key=attribute_traversal_key)``),
        each through its lists, tuples, namedtuples and dicts (by sorted key); with
        ``recursive``, each submodule found is then walked the same way, in the order found.
        ``predicate(value)`` picks what is yielded (every value by default). Each value is
        yielded once, except ``with_path=True``: then every ``(path, value)``, the path a
        tuple of attribute names, indices, field names and keys, with a path through a
        cycle of modules ending at the module it comes back to. ``expand_composites`` also
        walks into composite values (a TensorArray) instead of yielding them whole.

        >>> import runtime as rt
        >>> m = rt.Module(name="m")
        >>> m.layers = [rt.Module(name="a"), {"w": rt.Variable(1.0)}]
        >>> [path for path, _ in m._flatten(with_path=True)]
        [('layers', 0), ('layers', 1, 'w')]
        >>> [type(v).__name__ for v in m._flatten(recursive=False)]
        ['Module', 'Variable']
        """
        return _flatten_module(
            self,
            _Walk(predicate or _everything, attribute_traversal_key, with_path, expand_composites),
            recursive=recursive,
            path=(),
        )

    @classmethod
    def with_name_scope(cls, method):
        """Decorates a method to run inside the module's name scope.

        >>> import runtime as rt
        >>> class Scaler(rt.Module):
        ...     @rt.Module.with_name_scope
        ...     def __call__(self, x):
        ...         if not hasattr(self, "w"):
        ...             self.w = rt.Variable(2.0, name="w")
        ...         return x * self.w
        >>> scaler = Scaler()
        >>> float(scaler(rt.constant(3.0))), scaler.w.name
        (6.0, 'scaler/w:0')
        """

        @functools.wraps(method)
        def in_module_scope(self, *args, **kwargs):
            with self.name_scope:
                return method(self, *args, **kwargs)

        return in_module_scope


def _setattr_reporting(self, name, value):
    waited_on = deferred.is_waited_on(self)
    if waited_on:
        deferred.attaching(self, name)  # may refuse: then the attribute is not set
    super(Module, self).__setattr__(name, value)  # what runs when no hook is installed
    if waited_on:  # a checkpoint restored earlier may wait for the value
        deferred.attached(self, name, value)


def _report_attachments(on):
    """Modules report attribute sets only while a restoration waits somewhere: otherwise a
    set is Python's own, with no hook to run."""
    if on:
        Module.__setattr__ = _setattr_reporting
    elif "__setattr__" in Module.__dict__:
        del Module.__setattr__


deferred.while_any_waits(_report_attachments)


def _everything(value):
    return True


def _is_variable(value):
    return isinstance(value, Variable)


def _is_trainable_variable(value):
    return isinstance(value, Variable) and value.trainable


def _is_non_trainable_variable(value):
    return isinstance(value, Variable) and not value.trainable


def _is_module(value):
    return isinstance(value, Module)


class _Walk:
    """What one ``_flatten`` call looks for, and what it has seen so far."""

    def __init__(self, predicate, attribute_key, with_path, expand_composites):
        self.predicate = predicate
        self.attribute_key = attribute_key
        self.with_path = with_path
        self.expand_composites = expand_composites
        self.seen = {}  # id -> value, the value kept alive so that its id is not reused
        self.walking = []  # ids of the modules whose submodules are being walked

    def first_sight(self, value):
        """Whether ``value`` is new to this walk (always, with paths: each path is reported)."""
        if self.with_path:
            return True
        if id(value) in self.seen:
            return False
        self.seen[id(value)] = value
        return True


def _flatten_module(module, walk, recursive, path):
    if not path:
        walk.seen[id(module)] = module
    if id(module) in walk.walking:
        recursive = False  # a cycle back to a module being walked: its own attributes only
    submodules = []
    attributes = vars(module)
    skip = ignored_properties(module)
    for key in sorted(attributes, key=walk.attribute_key):
        if key in skip:
            continue
        for leaf_path, leaf in _attribute_leaves(module, key, attributes[key], walk):
            if not walk.first_sight(leaf):
                continue
            # (Paths only when asked for: most walks, trainable_variables', want values.)
            full_path = path + (key,) + leaf_path if walk.with_path else None
            if walk.predicate(leaf):
                yield (full_path, leaf) if walk.with_path else leaf
            if recursive and isinstance(leaf, Module):
                submodules.append((full_path, leaf))
    walk.walking.append(id(module))
    for sub_path, submodule in submodules:
        yield from _flatten_module(submodule, walk, recursive, sub_path)
    walk.walking.pop()


def _attribute_leaves(module, key, value, walk):
    if not isinstance(value, (dict, list, tuple)) and not walk.expand_composites:
        return (((), value),)  # a leaf, as most attributes are: no walk to set up
    try:
        return list(_leaves(value, walk.expand_composites, (), []))
    except Exception as cause:  # an unsortable dict, a broken container: name the attribute
        raise ValueError(f"Error processing property {key!r} of {value!r}") from cause  # (TF)


def _leaves(value, expand_composites, path, open_containers):
    """``(path, leaf)`` for the leaves of ``value`` through lists, tuples, namedtuples and
    dicts (by sorted key, as ``rt.nest`` orders them); a container holding itself is not
    entered again."""
    if id(value) in open_containers:
        return
    children = _children(value, expand_composites)
    if children is None:
        yield path, value
        return
    open_containers.append(id(value))
    for edge, child in children:
        yield from _leaves(child, expand_composites, path + edge, open_containers)
    open_containers.pop()


def _children(value, expand_composites):
    """``[(path edge, child)]`` of a container, or None for a leaf."""
    if isinstance(value, dict):
        try:
            keys = sorted(value)
        except TypeError as error:
            raise TypeError("nest only supports dicts with sortable keys.") from error
        return [((k,), value[k]) for k in keys]
    if isinstance(value, tuple) and hasattr(type(value), "_fields"):  # a namedtuple
        return [((field,), getattr(value, field)) for field in value._fields]
    if isinstance(value, (list, tuple)):
        return [((i,), item) for i, item in enumerate(value)]
    if expand_composites and hasattr(value, "_nest_components"):
        kind = type(value).__name__
        return [((kind, i), part) for i, part in enumerate(value._nest_components())]
    return None
