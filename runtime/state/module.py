"""Module: a container of variables and sub-modules that finds them by itself.

>>> import runtime as rt
>>> class DemoModule(rt.Module):
...     def __init__(self, name=None):
...         super().__init__(name=name)
...         with self.name_scope:
...             self.x = rt.Variable(1.0)
...             self.frozen = rt.Variable(2.0, trainable=False)
>>> demo = DemoModule()
>>> demo.name, demo.x.name
('demo_module', 'demo_module/Variable:0')
>>> [v.name for v in demo.variables], len(demo.trainable_variables)
(['demo_module/Variable:0', 'demo_module/Variable:0'], 1)
"""

from __future__ import annotations

import re

from runtime.core.graph import name_scope
from runtime.state import deferred
from runtime.state.variables import Variable

_OWN_ATTRIBUTES = {"_name", "_scope_name"}


def _snake_case(name):
    name = re.sub(r"(.)([A-Z][a-z]+)", r"\1_\2", name)
    return re.sub(r"([a-z0-9])([A-Z])", r"\1_\2", name).lower()


def ignored_properties(module):
    """The attributes of ``module`` that its walks leave out: the module's own bookkeeping and
    its class's ``_TF_MODULE_IGNORED_PROPERTIES``."""
    return _OWN_ATTRIBUTES | type(module)._TF_MODULE_IGNORED_PROPERTIES


class Module:
    """Base class for objects that own variables (``tf.Module``).

    ``variables``, ``trainable_variables`` and ``submodules`` are found through
    the object's attributes, and through lists, tuples and dicts held in them,
    in attribute-name order, each once, however the modules refer to each other.
    Attributes named in the class's ``_TF_MODULE_IGNORED_PROPERTIES`` are left out.
    """

    _TF_MODULE_IGNORED_PROPERTIES = frozenset()

    def __init__(self, name=None):
        name = name if name is not None else _snake_case(type(self).__name__)
        if not name.isidentifier():
            raise ValueError(f"{name!r} is not a valid module name: use a Python identifier")
        self._name = name
        with name_scope(name) as scope:
            self._scope_name = scope

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
        return self._named()._name

    @property
    def name_scope(self):
        """A name scope to create the module's variables in: ``with self.name_scope:``."""
        return name_scope(self._named()._scope_name)

    @property
    def variables(self):
        return tuple(self._flatten(lambda x: isinstance(x, Variable)))

    @property
    def trainable_variables(self):
        return tuple(self._flatten(lambda x: isinstance(x, Variable) and x.trainable))

    @property
    def submodules(self):
        return tuple(self._flatten(lambda x: isinstance(x, Module)))

    def _flatten(self, predicate):
        """Everything reachable from the attributes that ``predicate`` selects, breadth first."""
        found, seen = [], {id(self)}
        queue = [self]
        while queue:
            module = queue.pop(0)
            skip = ignored_properties(module)
            for key in sorted(vars(module)):
                if key in skip:
                    continue
                for leaf in _leaves(vars(module)[key], seen):
                    if predicate(leaf):
                        found.append(leaf)
                    if isinstance(leaf, Module):
                        queue.append(leaf)
        return found

    def __setattr__(self, name, value):
        super().__setattr__(name, value)
        deferred.attached(self, name, value)  # a checkpoint restored earlier may wait for it

    def __repr__(self):
        return f"<rt.Module {self.name!r}>"


def _leaves(value, seen):
    """Variables and modules held by ``value``, through lists, tuples and dicts, each once."""
    if id(value) in seen:
        return
    if isinstance(value, (Variable, Module)):
        seen.add(id(value))
        yield value
    elif isinstance(value, (list, tuple)):
        seen.add(id(value))
        for item in value:
            yield from _leaves(item, seen)
    elif isinstance(value, dict):
        seen.add(id(value))
        for key in sorted(value, key=repr):
            yield from _leaves(value[key], seen)
