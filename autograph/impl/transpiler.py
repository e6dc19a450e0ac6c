"""The conversion pipeline: source -> gast -> converters -> Python source -> a loaded function.

Converted code is cached per code object. Each function object gets its own
instance of the converted code, made with the original's globals and closure
cells, so that it sees (and updates) exactly what the original would.
"""

from __future__ import annotations
import __future__

import builtins
import contextlib
import gc
import types

import gast

from autograph.converters import (
    asserts,
    break_statements,
    call_trees,
    continue_statements,
    control_flow,
    directives,
    logical_expressions,
    match_statements,
    methods,
    return_statements,
    scope_calls,
    try_statements,
    unsupported,
    variables,
)
from autograph.converters.base import Context, function_def, name
from autograph.impl import errors
from autograph.operators import original_scope
from autograph.pyct import anno, loader, parser, printer, walk
from autograph.pyct.analysis import definedness, liveness
from autograph.pyct.analysis.activity import Activity
from autograph.pyct.naming import ConversionNamer

_MISSING = object()
# The compiler flags of the __future__ features a module may choose, as its functions' code
# objects keep them (nested_scopes is no choice: its flag is the one of nested functions).
_FUTURE_FLAGS = sum(
    getattr(__future__, f).compiler_flag
    for f in __future__.all_feature_names
    if f != "nested_scopes"
)


class ConvertedCode:
    """The result of converting one function's code: the code object and its readable source."""

    def __init__(self, code, fn_tree, path):
        self.code = code
        self.path = path
        self._fn_tree = fn_tree
        self._source = None

    @property
    def source(self):
        """The converted function as Python source (printed when first asked for)."""
        if self._source is None:
            self._source = printer.to_source(self._fn_tree)
        return self._source


# Code objects compare equal by content, wherever they come from: the same function in two
# files is cached twice, since its conversion reports errors at its own file's lines.
_cache = {}  # (code object, its file) -> ConvertedCode


def convert(fn, builtin_functions=False) -> ConvertedCode:
    """Converts the code of the plain function ``fn`` (cached by its code object).

    ``builtin_functions``: ``print`` becomes ``ag__.print_`` too (TensorFlow's optional
    feature BUILTIN_FUNCTIONS); otherwise it stays Python's.
    """
    key = fn.__code__, fn.__code__.co_filename, builtin_functions
    cached = _cache.get(key)
    if cached is None:
        with _collector_paused():
            cached = _cache[key] = _convert(fn, builtin_functions)
    return cached


@contextlib.contextmanager
def _collector_paused():
    """Conversion makes many nodes that live only while it runs, and they hold no cycles.

    Each of the cyclic collector's runs that they would set off scans every
    object of the process, not just theirs: it waits until conversion is done.
    """
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def _convert(fn, builtin_functions):
    node, _ = parser.parse_function(fn)
    if isinstance(node, gast.Lambda):
        node = _lambda_as_function(node)
    unsupported.check(node, fn.__qualname__)
    filename = fn.__code__.co_filename
    ctx = Context(ConversionNamer.for_function(fn), _resolver(fn), filename)
    ctx.builtin_functions = builtin_functions
    node = methods.transform(node, fn, ctx)
    scope_builtins = scope_calls.calls_scope_builtins(fn)
    if scope_builtins:
        scope_calls.mark_user_scopes(node)
    _rename_user_ag(node, ctx.namer)
    _leave_alone_marked(node, ctx)
    for converter in (
        match_statements,
        directives,
        break_statements,
        continue_statements,
        return_statements,
        asserts,
        call_trees,
        logical_expressions,
    ):
        node = converter.transform(node, ctx)
    # The analyses and the two converters after them ask about the code as the user wrote it.
    # The variables converter wraps reads in ag__.ld: `o.v = x` may become `ag__.ld(o).v = x`,
    # still the write of `o.v` that control flow must carry, as the analyses found.
    if scope_builtins:
        scope_calls.share_variables(node)
    facts = Activity()
    liveness.analyze(node, facts)
    definedness.analyze(node, facts)
    node = variables.transform(node, ctx, facts)
    node = control_flow.transform(node, ctx, facts)
    node = try_statements.transform(node, ctx)
    if scope_builtins:
        node = scope_calls.transform(node)
    _strip_evaluated_parts(node)
    # A function defined inside converted code already reads the operators as ``ag__``.
    freevars = [var for var in fn.__code__.co_freevars if var != "ag__"]
    factory = _factory(node, freevars)
    text, line_map = printer.print_with_lines(factory)
    file_name = fn.__name__.replace("<", "").replace(">", "")
    future_flags = fn.__code__.co_flags & _FUTURE_FLAGS
    namespace, path = loader.load_source(text + "\n", file_name, future_flags)
    errors.register(path, filename, line_map, ctx.namer.made)
    original_scope.register(path, ctx.namer.made)
    # Only the code object is kept: the cells given here are never read.
    instance = namespace["create_converted"](None, *[None] * len(freevars))
    return ConvertedCode(instance.__code__, node, path)


def _leave_alone_marked(fn_node, ctx):
    """Functions defined inside ``fn_node`` under ``@ag.do_not_convert`` stay as they are."""
    for node in walk.statements(fn_node.body):
        if isinstance(node, (gast.FunctionDef, gast.AsyncFunctionDef)) and any(
            _is_do_not_convert(ctx.resolve(d)) for d in node.decorator_list
        ):
            anno.setanno(node, anno.Basic.SKIP_CONVERSION, True)


def _is_do_not_convert(resolved):
    found, value = resolved
    return (
        found
        and getattr(value, "__name__", None) == "do_not_convert"
        and getattr(value, "__module__", "").startswith("autograph")
    )


def _rename_user_ag(fn_node, namer):
    """A variable of the user's named ``ag__`` gets another name: converted code calls its
    operators through ``ag__``."""
    named = [
        n
        for n in walk.nodes(fn_node)
        if (isinstance(n, gast.Name) and n.id == "ag__")
        or (isinstance(n, (gast.FunctionDef, gast.ClassDef)) and n.name == "ag__")
        or (isinstance(n, (gast.Global, gast.Nonlocal)) and "ag__" in n.names)
    ]
    if not any(not isinstance(n, gast.Name) or type(n.ctx) is not gast.Load for n in named):
        return  # only read: the user's global is the converted code's ag__, as it always was
    new_name = namer.new("ag__")
    for n in named:
        if isinstance(n, gast.Name):
            n.id = new_name
        elif isinstance(n, (gast.FunctionDef, gast.ClassDef)):
            n.name = new_name
        else:
            n.names = [new_name if x == "ag__" else x for x in n.names]


def _lambda_as_function(node):
    fn = gast.parse("def lambda_():\n    return None").body[0]
    fn.args = node.args
    fn.body[0].value = node.body
    for child in gast.walk(fn):
        if getattr(child, "lineno", None) is None and "lineno" in getattr(child, "_attributes", ()):
            child.lineno = node.lineno
    return fn


def _strip_evaluated_parts(node):
    """Defaults and annotations are the original function's: the factory must not evaluate them."""
    node.args.defaults = []
    node.args.kw_defaults = [None] * len(node.args.kwonlyargs)
    node.returns = None
    for arg in node.args.args + node.args.kwonlyargs + node.args.posonlyargs:
        arg.annotation = None
    for arg in (node.args.vararg, node.args.kwarg):
        if arg is not None:
            arg.annotation = None


def _factory(fn_node, freevars):
    """``def create_converted(ag__, <free variables>): <fn>; return <fn>``: closures stay closures.

    The function's own name is declared global in the factory: otherwise a
    recursive call would find the factory's local, not the user's global.
    """
    fn_name = fn_node.name
    declaration = [] if fn_name in freevars else [gast.Global(names=[fn_name])]
    body = declaration + [fn_node, gast.Return(value=name(fn_name))]
    factory = function_def("create_converted", ["ag__", *freevars], body, lineno=None)
    return gast.Module(body=[factory], type_ignores=[])


def _resolver(fn):
    closure = {}
    if fn.__closure__:
        for var, cell in zip(fn.__code__.co_freevars, fn.__closure__):
            with contextlib.suppress(ValueError):  # a cell not assigned yet
                closure[var] = cell.cell_contents

    scopes = (closure, fn.__globals__, vars(builtins))

    def resolve(node):
        attributes = []
        while isinstance(node, gast.Attribute):  # a.b.c: a first, then b and c of modules
            attributes.append(node.attr)
            node = node.value
        if not isinstance(node, gast.Name):
            return False, None
        value = next((s[node.id] for s in scopes if node.id in s), _MISSING)
        for attribute in reversed(attributes):
            if not isinstance(value, types.ModuleType):
                return False, None
            value = getattr(value, attribute, _MISSING)
        return value is not _MISSING, (None if value is _MISSING else value)

    return resolve


def instantiate(converted: ConvertedCode, fn, ag_namespace):
    """A function running ``converted`` with ``fn``'s globals, closure cells and defaults.

    ``ag_namespace`` is what the converted code calls ``ag__``.
    """
    original_cells = dict(zip(fn.__code__.co_freevars, fn.__closure__ or ()))
    cells = tuple(
        types.CellType(ag_namespace) if var == "ag__" else original_cells[var]
        for var in converted.code.co_freevars
    )
    new = types.FunctionType(converted.code, fn.__globals__, fn.__name__, fn.__defaults__, cells)
    new.__kwdefaults__ = fn.__kwdefaults__
    new.__doc__, new.__module__, new.__qualname__ = fn.__doc__, fn.__module__, fn.__qualname__
    new.__dict__.update(fn.__dict__)
    return new
