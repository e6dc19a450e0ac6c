"""The ``autograph`` command: ``to-code`` prints converted source, ``run`` runs a file converted.

    autograph to-code model.py::collatz_steps
    autograph run model.py --epochs 3        # as __main__, its top-level functions converted
    autograph graph model.py::step --signature "float32[None,3]"   # its graph as Graphviz DOT
    autograph graph model.py::step 1.0 2 --output step.svg        # traced for example arguments
    autograph show saved/                    # what a saved model directory holds
    autograph export model.py::step -o step.onnx     # an ONNX model of its graph
    autograph export saved/::serving_default -o model.onnx   # a saved model's function
    python -m autograph ...                  # the same

Errors in the user's file (a syntax error, a failing conversion, an exception
while running) are reported at that file's own line, and the command exits 1.
"""

from __future__ import annotations

import argparse
import ast
import contextlib
import inspect
import os
import re
import shutil
import subprocess
import sys
import traceback
import types
import warnings

from autograph.impl.api import to_code, to_graph
from autograph.pyct.parser import ConversionError


def main(argv=None):
    parser = argparse.ArgumentParser(prog="autograph", description=__doc__.split("\n\n")[0])
    commands = parser.add_subparsers(dest="command", required=True)
    to_code_parser = commands.add_parser(
        "to-code", help="print the converted source of FILE.py::NAME"
    )
    to_code_parser.add_argument("target", metavar="FILE.py::NAME")
    run = commands.add_parser(
        "run", help="run FILE.py as __main__ with its top-level functions converted"
    )
    run.add_argument("file", metavar="FILE.py")
    run.add_argument("args", nargs=argparse.REMAINDER, help="arguments given to the program")
    _add_graph_command(commands)
    show_parser = commands.add_parser("show", help="describe the saved model in DIR")
    show_parser.add_argument("dir", metavar="DIR")
    _add_export_command(commands)
    options = parser.parse_args(argv)
    try:
        if options.command == "to-code":
            print(to_code(_load_target(options.target)), end="")
        elif options.command == "graph":
            graph_command(options)
        elif options.command == "show":
            show_command(options.dir)
        elif options.command == "export":
            export_command(options)
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
    restore = sys.argv, sys.modules.get(module_name), list(sys.path)
    sys.argv = argv
    sys.modules[module_name] = module
    sys.path.insert(0, os.path.dirname(path))
    try:
        exec(code, module.__dict__)  # the user's own program, run as they asked
    finally:
        sys.argv, previous, sys.path[:] = restore
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


# --- autograph graph, autograph show -------------------------------------------------------------

_FORMATS = ("dot", "svg", "png")


def _add_graph_command(commands):
    graph = commands.add_parser(
        "graph",
        help="print the graph of FILE.py::NAME as Graphviz DOT (or render it to svg/png)",
        description=(
            "Traces FILE.py::NAME (an ag.function, a plain function, a ConcreteFunction or an "
            "rt.Graph) and prints its graph as Graphviz DOT, or renders it with Graphviz's dot "
            "program. An ag.function with an input_signature is traced for it; otherwise give "
            "example ARGS (Python literals, passed as tensors) or --signature."
        ),
    )
    graph.add_argument("target", metavar="FILE.py::NAME")
    graph.add_argument(
        "args", nargs="*", metavar="ARGS", help="example arguments: Python literals, as tensors"
    )
    graph.add_argument(
        "--signature",
        metavar="SPECS",
        help='the tensor arguments\' dtypes and shapes, e.g. "float32[None,3],int32[]"',
    )
    graph.add_argument(
        "--format",
        choices=_FORMATS,
        help="dot (the default), or svg/png rendered by Graphviz (default: --output's extension)",
    )
    graph.add_argument("--output", "-o", metavar="PATH", help="write here instead of stdout")


def graph_command(options):
    fmt = options.format or _format_of(options.output)
    # What the user's file prints while it loads and traces goes to stderr: stdout is the graph.
    with contextlib.redirect_stdout(sys.stderr):
        graph = _graph_of(_load_target(options.target), options)
    dot_text = graph.to_dot()
    data = dot_text.encode() if fmt == "dot" else _render(dot_text, fmt)
    if options.output:
        try:
            with open(options.output, "wb") as f:
                f.write(data)
        except OSError as e:
            raise _UserError(f"autograph: cannot write {options.output}: {e.strerror}") from None
    else:
        sys.stdout.flush()
        sys.stdout.buffer.write(data)
        sys.stdout.buffer.flush()


def _format_of(output):
    ext = os.path.splitext(output or "")[1].lstrip(".").lower()
    return ext if ext in _FORMATS else "dot"


def _graph_of(obj, options):
    """The graph to draw for the loaded target, traced for ARGS, --signature or input_signature."""
    import runtime as rt

    name = options.target.partition("::")[2]
    given = options.args or options.signature is not None
    if isinstance(obj, rt.Graph) or hasattr(obj, "graph") and isinstance(obj.graph, rt.Graph):
        if given:
            raise _UserError(f"autograph: {name} is already a graph; it takes no arguments")
        return obj if isinstance(obj, rt.Graph) else obj.graph
    return _concrete_function(obj, options).graph


def _concrete_function(obj, options):
    """The loaded target (a function) traced for ARGS, --signature or its input_signature."""
    from autograph.function import function

    name = options.target.partition("::")[2]
    given = options.args or options.signature is not None
    if options.args and options.signature is not None:
        raise _UserError("autograph: give either example ARGS or --signature, not both")
    if not hasattr(obj, "get_concrete_function"):
        if not callable(obj):
            raise _UserError(f"autograph: {name} is not a function (it is {type(obj).__name__})")
        obj = function(obj)
    if options.signature is not None:
        args = _parse_signature(options.signature)
    elif options.args:
        args = [_example_tensor(a) for a in options.args]
    elif obj.input_signature is not None:
        args = list(obj.input_signature)
    else:
        args = []
    try:  # the arguments checked against the function (and its input_signature) before tracing
        obj._arguments(args, {}, specs_allowed=True)
    except (TypeError, ValueError) as e:
        if not given and obj.input_signature is None:
            raise _UserError(
                f"autograph: {name} has no input_signature: give example arguments "
                f'(autograph {options.command} FILE.py::{name} 1.0 "[1, 2]") or --signature '
                '"float32[None,3],int32[]"'
            ) from None
        raise _UserError(f"autograph: {e}") from None
    return obj.get_concrete_function(*args)


def _parse_signature(text):
    """``"float32[None,3],int32[]"`` as TensorSpecs; ``?``, ``None`` or ``-1`` is an unknown
    dimension, ``[*]`` an unknown rank."""
    import runtime as rt

    specs = []
    for entry in re.findall(r"[^,\[\]]*\[[^\]]*\]|[^,]+", text):
        entry = entry.strip(" ,")
        match = re.fullmatch(r"(\w+)\s*\[([^\]]*)\]", entry)
        if not match:
            raise _UserError(
                f"autograph: --signature: expected dtype[dims] like float32[None,3], got {entry!r}"
            )
        dtype_name, dims_text = match.groups()
        try:
            dtype = rt.as_dtype(dtype_name)
        except TypeError as e:
            raise _UserError(f"autograph: --signature: {e}") from None
        if dims_text.strip() == "*":
            specs.append(rt.TensorSpec(None, dtype))
            continue
        dims = []
        for dim in filter(None, (d.strip() for d in dims_text.split(","))):
            if dim in ("?", "None", "-1"):
                dims.append(None)
            elif dim.isdigit():
                dims.append(int(dim))
            else:
                raise _UserError(f"autograph: --signature: bad dimension {dim!r} in {entry!r}")
        specs.append(rt.TensorSpec(dims, dtype))
    if not specs:
        raise _UserError("autograph: --signature is empty")
    return specs


def _example_tensor(text):
    """An example argument: a Python literal (a bare word is a string) as a tensor."""
    import runtime as rt

    try:
        value = ast.literal_eval(text)
    except (ValueError, SyntaxError):
        value = text
    try:
        return rt.constant(value)
    except (TypeError, ValueError) as e:
        raise _UserError(f"autograph: argument {text!r} is not a tensor value: {e}") from None


def _render(dot_text, fmt):
    """``dot_text`` rendered by Graphviz's ``dot`` program as ``fmt`` (svg, png)."""
    dot = shutil.which("dot")
    if dot is None:
        raise _UserError(
            f"autograph: --format {fmt} needs Graphviz's `dot` program, which was not found on "
            "PATH: install Graphviz (e.g. `apt-get install graphviz` or `brew install graphviz`), "
            "or use --format dot"
        )
    result = subprocess.run([dot, f"-T{fmt}"], input=dot_text.encode(), capture_output=True)
    if result.returncode != 0:
        message = result.stderr.decode(errors="replace").strip()
        raise _UserError(f"autograph: dot failed: {message}")
    return result.stdout


def show_command(path):
    try:
        from runtime import saved_model
    except ImportError:
        raise _UserError("autograph: show needs runtime.saved_model, which is missing") from None
    if not os.path.isdir(path):
        raise _UserError(f"autograph: no such directory: {path}")
    try:
        text = saved_model.show(path)
    except (OSError, ValueError) as e:  # a damaged or foreign directory (SavedModelError)
        raise _UserError(f"autograph: {e}") from None
    print(text)


# --- autograph export ---------------------------------------------------------------------------


def _add_export_command(commands):
    export = commands.add_parser(
        "export",
        help="write FILE.py::NAME, or a saved model's function DIR::NAME, as an ONNX model",
        description=(
            "Exports FILE.py::NAME (an ag.function, a plain function or a ConcreteFunction, "
            "traced for its input_signature, example ARGS or --signature), or the function NAME "
            "of the saved model in DIR (a signature or a saved method; DIR alone: its only "
            "signature, or serving_default), as an ONNX model. Needs the onnx extra."
        ),
    )
    export.add_argument("target", metavar="DIR_OR_FILE.py::NAME")
    export.add_argument(
        "args", nargs="*", metavar="ARGS", help="example arguments: Python literals, as tensors"
    )
    export.add_argument(
        "--signature",
        metavar="SPECS",
        help='the tensor arguments\' dtypes and shapes, e.g. "float32[None,3],int32[]"',
    )
    export.add_argument("--format", choices=("onnx",), default="onnx", help="onnx (the default)")
    export.add_argument("--output", "-o", metavar="FILE", required=True, help="the model file")


def export_command(options):
    import runtime as rt

    where = options.target
    path = where.partition("::")[0]
    if os.path.isdir(path):
        if options.args or options.signature is not None:
            raise _UserError(f"autograph: {path} is a saved model; its functions take no ARGS")
        fn = _saved_function(path, where.partition("::")[2])
    else:
        with contextlib.redirect_stdout(sys.stderr):  # stdout stays for what the command says
            fn = _concrete_function(_load_target(where), options)
    try:
        rt.onnx.export(fn, options.output)
    except (rt.errors.UnimplementedError, ImportError, TypeError, ValueError) as e:
        raise _UserError(f"autograph: {where}: {e}") from None
    except OSError as e:
        raise _UserError(f"autograph: cannot write {options.output}: {e.strerror}") from None
    print(f"wrote {options.output}")


def _saved_function(path, name):
    """The function ``name`` of the saved model in ``path`` (a signature or a saved method)."""
    import runtime as rt

    try:
        loaded = rt.saved_model.load(path)
    except rt.saved_model.SavedModelError as e:
        raise _UserError(f"autograph: {e}") from None
    if not name:
        signatures = loaded.signatures
        if len(signatures) != 1 and "serving_default" not in signatures:
            raise _UserError(
                f"autograph: {path} has {len(signatures)} signatures; name one: {path}::NAME"
            )
        name = "serving_default" if "serving_default" in signatures else next(iter(signatures))
    fn = loaded.signatures.get(name) or getattr(loaded, name, None)
    if fn is None or not hasattr(fn, "graph"):
        known = sorted(
            set(loaded.signatures) | {k for k, v in vars(loaded).items() if hasattr(v, "graph")}
        )
        raise _UserError(f"autograph: {path} has no function {name!r} (it has {', '.join(known)})")
    return fn


if __name__ == "__main__":
    sys.exit(main())
