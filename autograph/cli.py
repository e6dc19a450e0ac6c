"""The ``autograph`` command: ``to-code`` prints converted source, ``run`` runs a file converted.

    autograph to-code model.py::collatz_steps
    autograph run model.py --epochs 3        # as __main__, its top-level functions converted
    python -m autograph ...                  # the same

Errors in the user's file (a syntax error, a failing conversion, an exception
while running) are reported at that file's own line, and the command exits 1.
"""

from __future__ import annotations

import argparse
import ast
import inspect
import os
import sys
import traceback
import types
import warnings

from autograph.impl.api import to_code, to_graph
from autograph.pyct.parser import ConversionError


def main(argv=None):
    parser = argparse.ArgumentParser(prog="autograph", description=__doc__.split("\n\n")[0])
    commands = parser.add_subparsers(dest="command", required=True)
    show = commands.add_parser("to-code", help="print the converted source of FILE.py::NAME")
    show.add_argument("target", metavar="FILE.py::NAME")
    run = commands.add_parser(
        "run", help="run FILE.py as __main__ with its top-level functions converted"
    )
    run.add_argument("file", metavar="FILE.py")
    run.add_argument("args", nargs=argparse.REMAINDER, help="arguments given to the program")
    options = parser.parse_args(argv)
    try:
        if options.command == "to-code":
            print(to_code(_load_target(options.target)), end="")
        else:
            run_file(options.file, options.args)
    except _UserError as e:
        print(e, file=sys.stderr)
        return 1
    except SystemExit:
        raise
    except Exception:  # an error of the user's program: its traceback, then exit 1
        traceback.print_exc()
        return 1
    return 0


class _UserError(Exception):
    """A problem with what the user asked for, reported without a traceback."""


def _check_file(path):
    if not os.path.isfile(path):
        raise _UserError(f"autograph: no such file: {path}")
    return os.path.abspath(path)


def _load_target(target):
    path, sep, name = target.partition("::")
    if not sep or not name:
        raise _UserError(f"autograph: expected FILE.py::NAME, got {target!r}")
    module = _import(_check_file(path))
    obj = module
    for part in name.split("."):
        if not hasattr(obj, part):
            raise _UserError(f"autograph: {path} has no {name!r}")
        obj = getattr(obj, part)
    return obj


def _import(path):
    """The file as a module (not ``__main__``), its top-level functions converted as in ``run``."""
    return _exec_file(path, os.path.splitext(os.path.basename(path))[0], [path])


def run_file(path, args=()):
    """Runs ``path`` as ``__main__``, each top-level function converted as it is defined."""
    return _exec_file(_check_file(path), "__main__", [path, *args])


def _exec_file(path, module_name, argv):
    with open(path, encoding="utf-8") as f:
        source = f.read()
    try:
        tree = ast.parse(source, path)
    except SyntaxError as e:
        raise _UserError(f'File "{e.filename}", line {e.lineno}\nSyntaxError: {e.msg}') from None
    tree.body = _convert_after_definitions(tree.body)
    code = compile(tree, path, "exec")  # line numbers stay those of the file
    module = types.ModuleType(module_name)
    module.__file__ = path
    module.__dict__["__autograph_convert__"] = _convert
    saved = sys.argv, sys.modules.get(module_name), list(sys.path)
    sys.argv = argv
    sys.modules[module_name] = module
    sys.path.insert(0, os.path.dirname(path))
    try:
        exec(code, module.__dict__)  # the user's own program, run as they asked
    finally:
        sys.argv, previous, sys.path[:] = saved
        if previous is not None:
            sys.modules[module_name] = previous
        elif module_name != "__main__":
            sys.modules.pop(module_name, None)
    return module


def _convert_after_definitions(body):
    out = []
    for stmt in body:
        out.append(stmt)
        if isinstance(stmt, ast.FunctionDef):
            call = ast.parse(f"{stmt.name} = __autograph_convert__({stmt.name})").body[0]
            out.append(ast.copy_location(call, stmt))
            ast.fix_missing_locations(call)
            for node in ast.walk(call):
                node.lineno, node.end_lineno = stmt.lineno, stmt.lineno
    return out


def _convert(fn):
    if not inspect.isfunction(fn):
        return fn  # an ag.function, or whatever a decorator made of it
    try:
        return to_graph(fn)
    except ConversionError as e:
        warnings.warn(f"autograph: {fn.__name__} runs unconverted: {e}", stacklevel=2)
        return fn


if __name__ == "__main__":
    sys.exit(main())
