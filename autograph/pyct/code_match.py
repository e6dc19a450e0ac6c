"""Whether the file a function's source is read from still holds the code that runs.

A function's source is read from its file when it is converted. If the file was
edited after the module was imported, that text is not what runs, and
converting it would run the new code under the old function's name. So the
file's text, as conversion reads it, is compiled again (once per version of the
file), and the code object defined at the function's first line is compared
with the function's own: bytecode, names, constants and the code nested in it.
The whole file is compiled, not the function alone, because the bytecode of a
function depends on its module too (Python 3.11 calls an attribute of a name
bound by ``import`` differently). Only modules that Python's own loader compiled
from their file are checked: other code was compiled from other text.
"""

from __future__ import annotations

import inspect
import linecache
from importlib.machinery import SourceFileLoader

_compiled = {}  # file name -> (the lines compiled, the module's code object or None)


def matches(fn) -> bool | None:
    """Whether the text of ``fn``'s file defines, at ``fn``'s first line, the code ``fn`` runs.

    None where that cannot be told: ``fn`` was not compiled from its file as Python
    imports a module (in a notebook, a doctest, by ``exec``, or by an import hook
    that rewrites the source, as pytest's rewrites ``assert``).
    """
    code = fn.__code__
    module_globals = getattr(fn, "__globals__", {})
    loader = module_globals.get("__loader__")
    if type(loader) is not SourceFileLoader or module_globals.get("__file__") != code.co_filename:
        return None
    module = _compiled_file(code.co_filename, module_globals)
    if module is None:  # no text, or one that does not compile: not the text fn was compiled from
        return False
    return any(
        candidate.co_name == code.co_name
        and candidate.co_firstlineno == code.co_firstlineno
        and _same_code(candidate, code)
        for candidate in _nested(module)
    )


def _compiled_file(filename, module_globals):
    lines = linecache.getlines(filename, module_globals)
    if not lines:
        return None
    cached = _compiled.get(filename)
    if cached is not None and cached[0] is lines:  # linecache gives a new list when it rereads
        return cached[1]
    try:
        module = compile("".join(lines), filename, "exec", dont_inherit=True)
    except (SyntaxError, ValueError):
        module = None
    _compiled[filename] = (lines, module)
    return module


def _nested(code):
    """Every code object nested in ``code``, at any depth."""
    for const in code.co_consts:
        if inspect.iscode(const):
            yield const
            yield from _nested(const)


def _same_code(a, b) -> bool:
    return (
        a.co_code == b.co_code
        and a.co_names == b.co_names
        and a.co_varnames == b.co_varnames
        and a.co_freevars == b.co_freevars
        and a.co_cellvars == b.co_cellvars
        and a.co_argcount == b.co_argcount
        and a.co_posonlyargcount == b.co_posonlyargcount
        and a.co_kwonlyargcount == b.co_kwonlyargcount
        and a.co_flags == b.co_flags
        and len(a.co_consts) == len(b.co_consts)
        and all(map(_same_constant, a.co_consts, b.co_consts))
    )


def _same_constant(a, b) -> bool:
    if inspect.iscode(a) or inspect.iscode(b):
        return inspect.iscode(a) and inspect.iscode(b) and _same_code(a, b)
    return type(a) is type(b) and repr(a) == repr(b)  # repr: nan is nan, and -0.0 is not 0.0
