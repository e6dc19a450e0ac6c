"""Python's ``ast`` trees as ``gast`` trees: the ones ``gast.ast_to_gast`` builds, built faster.

gast converts with a generic ``NodeTransformer``: for every node it looks up a
visitor method, then builds the new node from keyword arguments, field by field.
Most node types only change class on the way, so here each ast class gets a
function that copies the node's attribute dict in one go and converts only the
values that are nodes or lists of nodes. The few types that gast converts with
code of its own (``Name`` gains fields, ``arg`` becomes a ``Name``, ...) get
functions that do the same; any other type that gast special-cases, or that it
has no class for, is left to gast.

>>> tree = parse("y = f(x, *rest)")
>>> gast.dump(tree, include_attributes=True) == gast.dump(
...     gast.parse("y = f(x, *rest)"), include_attributes=True
... )
True
>>> type(tree.body[0].targets[0]) is gast.Name
True
"""

from __future__ import annotations

import ast

import gast
from gast.ast3 import Ast3ToGAst

# The fields that gast's classes have and this Python's lack get None from gast's
# converters, these excepted.
_EMPTY_LIST_FIELDS = {"type_params"}

# The types that gast special-cases only to add such fields: ``Name`` gets no
# annotation and no type comment; definitions before Python 3.12 get no type
# parameters, type variables of 3.12 no default.
_TYPES_GAST_COMPLETES = {
    "Name",
    "FunctionDef",
    "AsyncFunctionDef",
    "ClassDef",
    "TypeVar",
    "TypeVarTuple",
    "ParamSpec",
}

_LOCATION = ("lineno", "col_offset", "end_lineno", "end_col_offset")

# The values of fields that are not nodes: kept as they are.
_SCALAR_TYPES = (str, int, float, complex, bytes, bool, type(None), type(...))


def parse(source):
    """The gast tree of the module ``source``, as ``gast.parse(source)`` gives it.

    >>> parse("x = 1").body[0].targets[0].id
    'x'
    """
    return to_gast(ast.parse(source))


def to_gast(tree):
    """The gast version of the ast node ``tree``, as ``gast.ast_to_gast(tree)`` gives it.

    ``tree`` is left as it is: the result shares no node with it.

    >>> node = to_gast(ast.parse("lambda a: a").body[0].value)
    >>> type(node.args.args[0]).__name__, type(node.args.args[0].ctx).__name__
    ('Name', 'Param')
    """
    return _CONVERTERS.field_value(tree)


class Converters:
    """The function that converts each ast class, in the forms the conversion loops look up.

    ``by_field_value`` maps the class of a field's value to its converter, or to
    None for values kept as they are; ``by_item`` maps the class of a list's
    item to its converter or to a function that returns the item. A class in
    neither, a subclass of an ast class for one, goes to ``other``.
    ``gast_visitor`` is gast's converter class, whose special cases these follow.

    >>> converters = Converters()
    >>> type(converters.field_value(ast.Pass())) is gast.Pass
    True
    >>> converters.field_value("not a node")
    'not a node'
    """

    def __init__(self, gast_visitor=Ast3ToGAst):
        self.gast_visitor = gast_visitor
        self.by_field_value = dict.fromkeys(_SCALAR_TYPES)
        self.by_item = dict.fromkeys(_SCALAR_TYPES, _unchanged)
        special_cases = {
            name[len("visit_") :]
            for cls in gast_visitor.__mro__
            if cls not in ast.NodeTransformer.__mro__  # whose visit_Constant is no special case
            for name in vars(cls)
            if name.startswith("visit_")
        }
        for name, ast_class in _ast_classes().items():
            convert = self._converter(name, ast_class, special_cases)
            self.by_field_value[ast_class] = self.by_item[ast_class] = convert

    def field_value(self, value):
        """``value`` converted, if it is an ast node."""
        convert = self.by_field_value.get(value.__class__, self.other)
        return value if convert is None else convert(value)

    def other(self, value):
        """gast's conversion of a node of a class unknown here; other values as they are."""
        return self.gast_visitor().visit(value) if isinstance(value, ast.AST) else value

    def _converter(self, name, ast_class, special_cases):
        gast_class = getattr(gast, name, None)
        if name in special_cases and name == "arg":
            return _name_from_arg_converter(self)
        if gast_class is None:
            return self.other  # gast drops such nodes: let it
        if name not in special_cases:
            if not ast_class._fields and not ast_class._attributes:
                return _new_node_converter(gast_class)
            return _copying_converter(ast_class, gast_class, self)
        if name == "ExceptHandler":
            return _except_handler_converter(self)
        if name in _TYPES_GAST_COMPLETES and set(ast_class._fields) <= set(gast_class._fields):
            return _copying_converter(ast_class, gast_class, self, completed=True)
        return self.other


def _unchanged(value):
    return value


def _ast_classes():
    """The node classes of this Python's ast module, by name."""
    return {
        name: value
        for name, value in vars(ast).items()
        if isinstance(value, type) and issubclass(value, ast.AST) and value is not ast.AST
    }


def _copying_converter(ast_class, gast_class, converters, completed=False):
    """Converts as gast's generic visitor does: the same fields and locations, in the same order.

    ``completed``: as gast's visitors that add the fields the ast class lacks, with
    their defaults; those set the fields in the order the gast class lists them,
    then the locations.
    """
    fields = ast_class._fields
    template = dict.fromkeys(gast_class._fields) if completed else None
    empty_lists = [f for f in _EMPTY_LIST_FIELDS if completed and f not in fields and f in template]
    new = gast_class.__new__
    by_field_value = converters.by_field_value.get
    by_item = converters.by_item.get
    other = converters.other

    def convert(node):
        if template is None:
            values = node.__dict__.copy()
        else:
            values = template.copy()
            values.update(node.__dict__)  # the fields keep the template's order
            for field in empty_lists:
                values[field] = []
        for field in fields:
            value = values.get(field)
            if value.__class__ is list:
                values[field] = [by_item(item.__class__, other)(item) for item in value]
            else:
                convert_value = by_field_value(value.__class__, other)
                if convert_value is not None:
                    values[field] = convert_value(value)
        converted = new(gast_class)
        converted.__dict__ = values
        return converted

    return convert


def _new_node_converter(gast_class):
    """Contexts and operators: ast.parse shares one instance of each, gast makes one per use."""
    new = gast_class.__new__

    def convert(node):
        return new(gast_class)

    return convert


def _name_from_arg_converter(converters):
    """gast has no ``arg``: a parameter is a ``Name`` in the ``Param`` context."""
    field_value = converters.field_value

    def convert(node):
        old = node.__dict__
        values = {
            "id": old["arg"],
            "ctx": gast.Param(),
            "annotation": field_value(old["annotation"]),
            "type_comment": old["type_comment"],
        }
        for attribute in _LOCATION:
            if attribute in old:
                values[attribute] = old[attribute]
        converted = gast.Name.__new__(gast.Name)
        converted.__dict__ = values
        return converted

    return convert


def _except_handler_converter(converters):
    """gast names the caught exception with a ``Name`` (without a location) instead of a string."""
    copy = _copying_converter(ast.ExceptHandler, gast.ExceptHandler, converters)

    def convert(node):
        converted = copy(node)
        if converted.name:
            converted.name = gast.Name(converted.name, gast.Store(), None, None)
        return converted

    return convert


_CONVERTERS = Converters()
