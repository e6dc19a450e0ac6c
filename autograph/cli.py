"""The ``autograph`` command: convert, run, draw and export the functions of a Python file.

    autograph to-code model.py::collatz_steps
    autograph run model.py --epochs 3        # as __main__, its top-level functions converted
    autograph graph model.py::step --signature "float32[None,3]"   # its graph as Graphviz DOT
    autograph graph model.py::step 1.0 2 -o step.svg   # traced for example arguments, rendered
    autograph show saved/                    # what a saved model directory holds
    autograph export model.py::step -o step.onnx     # an ONNX model of its graph
    autograph export saved/::serving_default -o model.onnx   # a saved model's function
    autograph --version
    python -m autograph ...                  # the same

A request that cannot be met (no such file or name, a value that is not a
function, a function that cannot be converted, an output format that the file's
extension does not name) is one line on stderr, ``autograph: FILE: what is
wrong``, and the command exits 1 (2, after the usage, for a command line argparse
rejects, a malformed ``--signature`` included). An
error of the user's program itself, while it runs or loads, is its traceback
without the library's frames, and exits 1.
"""

from __future__ import annotations

import argparse
import ast
import contextlib
import functools
import inspect
import os
import re
import sys
import traceback
import types

from autograph.impl.api import to_code, to_graph
from autograph.pyct.parser import ConversionError
from runtime import _version
from runtime.core import source, tracebacks
from runtime.views import render

_DESCRIPTION = """\
Python functions to graphs, the way TensorFlow's tf.function and AutoGraph do:
print a function's converted source (to-code), run a file with its functions
converted (run), draw a function's graph (graph), describe a saved model (show),
or export a function as an ONNX model (export)."""


def main(argv=None):
    parser = argparse.ArgumentParser(
        prog="autograph",
        description=_DESCRIPTION,
        epilog="examples:\n" + __doc__.split("\n\n")[1],
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "--version", action="version", version=f"autograph-numpy {_version.__version__}"
    )
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    to_code_parser = commands.add_parser(
        "to-code", help="print the converted source of the function FILE.py::NAME"
    )
    to_code_parser.add_argument("target", metavar="FILE.py::NAME")
    run = commands.add_parser(
        "run", help="run FILE.py as __main__ with its top-level functions converted"
    )
    run.add_argument("file", metavar="FILE.py", nargs="?", help="the program to run")
    run.add_argument("args", nargs=argparse.REMAINDER, help="arguments given to the program")
    _add_graph_command(commands)
    show_parser = commands.add_parser("show", help="describe the saved model in DIR")
    show_parser.add_argument("dir", metavar="DIR")
    _add_export_command(commands)
    options = parser.parse_args(argv)
    if options.command == "run" and options.file is None:
        run.error("give the FILE.py to run (autograph run FILE.py [ARGS...])")
    try:
        if options.command == "to-code":
            print(to_code_command(options.target), end="")
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
    except Exception as error:  # an error of the user's program: its traceback, then exit 1
        if tracebacks.is_traceback_filtering_enabled():
            tracebacks.strip_library_frames(error)
        traceback.print_exception(type(error), error, error.__traceback__)
        return 1
    return 0


class _UserError(Exception):
    """A problem with what the user asked for, reported on one line without a traceback."""


def _check_file(path):
    if not os.path.isfile(path):
        raise _UserError(f"autograph: no such file: {path}")
    return os.path.abspath(path)


def to_code_command(target):
    fn = _load_target(target)
    path, _, name = target.partition("::")
    if not _is_function(fn):
        raise _UserError(
            f"autograph: {path}: {name} is not a function (it is {_kind(fn)}); "
            "to-code prints the converted source of a function"
        )
    try:
        return to_code(fn)
    except ConversionError as e:
        raise _UserError(f"autograph: {path}: {name} cannot be converted: {e}") from None


def _is_function(obj):
    """Whether ``obj`` is something to convert: a function, a method, an ag.function, or an
    object whose class defines ``__call__`` in Python."""
    if hasattr(obj, "python_function") or inspect.isfunction(obj) or inspect.ismethod(obj):
        return True
    return not isinstance(obj, type) and callable(obj) and inspect.isfunction(type(obj).__call__)


def _kind(obj):
    """``an int``, ``a module``: what a value is, for a message."""
    name = type(obj).__name__
    return f"{'an' if name[:1].lower() in 'aeiou' else 'a'} {name}"


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
    """Runs ``path`` as ``__main__``, each top-level function converted when first called."""
    return _exec_file(_check_file(path), "__main__", [path, *args])


def _exec_file(path, module_name, argv):
    try:
        with open(path, encoding="utf-8") as f:
            text = f.read()
    except (OSError, UnicodeDecodeError) as e:
        raise _UserError(f"autograph: cannot read {path}: {e}") from None
    try:
        tree = ast.parse(text, path)
    except SyntaxError as e:
        raise _UserError(
            f'autograph: File "{e.filename}", line {e.lineno}: SyntaxError: {e.msg}'
        ) from None
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
    """``fn``, converted when it is first called: a function the program never calls is never
    converted, and one that cannot be converted runs as it is, with a warning at that call."""
    if not inspect.isfunction(fn):
        return fn  # an ag.function, or whatever a decorator made of it
    converted = None

    @functools.wraps(fn)
    def convert_on_first_call(*args, **kwargs):
        nonlocal converted
        if converted is None:
            try:
                converted = to_graph(fn)
            except ConversionError as e:
                source.warn(f"autograph: {fn.__name__} runs unconverted: {e}")
                converted = fn
        return converted(*args, **kwargs)

    convert_on_first_call.__autograph_original__ = fn  # to_code and to_graph see fn itself
    return convert_on_first_call


# --- autograph graph, autograph show -------------------------------------------------------------

_GRAPH_FORMATS = {"dot": "dot", "gv": "dot", "svg": "svg", "png": "png", "pdf": "pdf"}


def _add_graph_command(commands):
    graph = commands.add_parser(
        "graph",
        help="print the graph of FILE.py::NAME as Graphviz DOT (or draw it as svg, png, pdf)",
        description=(
            "Traces FILE.py::NAME (an ag.function, a plain function, a ConcreteFunction or an "
            "rt.Graph) and prints its graph as Graphviz DOT, or draws it with Graphviz's dot "
            "program. An ag.function with an input_signature is traced for it; otherwise give "
            "example ARGS (Python literals, passed as tensors) or --signature. The format is "
            "--output's extension (.dot or .gv, .svg, .png, .pdf) unless --format says it."
        ),
    )
    graph.add_argument("target", metavar="FILE.py::NAME")
    graph.add_argument(
        "args", nargs="*", metavar="ARGS", help="example arguments: Python literals, as tensors"
    )
    graph.add_argument(
        "--signature",
        metavar="SPECS",
        type=_signature_argument,
        help='the tensor arguments\' dtypes and shapes, e.g. "float32[None,3],int32[]"',
    )
    graph.add_argument(
        "--format",
        choices=("dot", *render.FORMATS),
        help="dot, or svg/png/pdf drawn by Graphviz (default: --output's extension; DOT on stdout)",
    )
    graph.add_argument("--output", "-o", metavar="PATH", help="write here instead of stdout")


def graph_command(options):
    fmt = options.format or _format_of(options.output, _GRAPH_FORMATS)
    # What the user's file prints while it loads and traces goes to stderr: stdout is the graph.
    with contextlib.redirect_stdout(sys.stderr):
        graph = _graph_of(_load_target(options.target), options)
    dot_text = graph.to_dot()
    try:
        data = dot_text.encode() if fmt == "dot" else render.render(dot_text, fmt)
    except (render.GraphvizNotFound, render.GraphvizFailed) as e:
        raise _UserError(f"autograph: {e}; or write DOT (--format dot)") from None
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


def _format_of(output, formats):
    """The format named by ``output``'s extension (``formats`` maps them); DOT for stdout."""
    if output is None:
        return next(iter(formats.values()))
    extension = os.path.splitext(output)[1].lstrip(".").lower()
    if extension not in formats:
        known = ", ".join(f".{e}" for e in formats)
        raise _UserError(
            f"autograph: cannot tell the format of {output} from its extension "
            f"({'.' + extension if extension else 'none'}): name it {known}, or give --format"
        )
    return formats[extension]


def _graph_of(obj, options):
    """The graph to draw for the loaded target, traced for ARGS, --signature or input_signature."""
    import runtime as rt

    path, _, name = options.target.partition("::")
    given = options.args or options.signature is not None
    if isinstance(obj, rt.Graph) or hasattr(obj, "graph") and isinstance(obj.graph, rt.Graph):
        if given:
            raise _UserError(f"autograph: {path}: {name} is already a graph; it takes no arguments")
        return obj if isinstance(obj, rt.Graph) else obj.graph
    return _concrete_function(obj, options).graph


def _concrete_function(obj, options):
    """The loaded target (a function) traced for ARGS, --signature or its input_signature."""
    from autograph.function import function

    path, _, name = options.target.partition("::")
    given = options.args or options.signature is not None
    if options.args and options.signature is not None:
        raise _UserError("autograph: give either example ARGS or --signature, not both")
    if not hasattr(obj, "get_concrete_function"):
        if not callable(obj):
            raise _UserError(f"autograph: {path}: {name} is not a function (it is {_kind(obj)})")
        obj = function(obj)
    if options.signature is not None:
        args = options.signature  # TensorSpecs: argparse parsed them
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
                f"autograph: {path}: {name} has no input_signature: give example arguments "
                f'(autograph {options.command} FILE.py::{name} 1.0 "[1, 2]") or --signature '
                '"float32[None,3],int32[]"'
            ) from None
        raise _UserError(f"autograph: {path}: {e}") from None
    return obj.get_concrete_function(*args)


_SIGNATURE_FORM = (
    "expected dtype[dims] for each tensor argument, comma-separated, like "
    '"float32[None,3],int32[]" (a dimension is an integer, or None or ? for any size; '
    "[*] is any rank)"
)


def _signature_argument(text):
    """``--signature``'s value as TensorSpecs; argparse refuses a malformed one, with usage."""
    try:
        return _parse_signature(text)
    except ValueError as e:
        raise argparse.ArgumentTypeError(
            f"bad signature {text!r}: {e}; {_SIGNATURE_FORM}"
        ) from None


def _parse_signature(text):
    """``"float32[None,3],int32[]"`` as TensorSpecs; ``?``, ``None`` or ``-1`` is an unknown
    dimension, ``[*]`` an unknown rank. ValueError says what is wrong."""
    import runtime as rt

    specs = []
    for entry in re.findall(r"[^,\[\]]*\[[^\]]*\]|[^,]+", text):
        entry = entry.strip(" ,")
        match = re.fullmatch(r"(\w+)\s*\[([^\]]*)\]", entry)
        if not match:
            raise ValueError(f"{entry!r} is not dtype[dims]")
        dtype_name, dims_text = match.groups()
        try:
            dtype = rt.as_dtype(dtype_name)
        except TypeError as e:
            raise ValueError(str(e).rstrip(".")) from None
        if dims_text.strip() == "*":
            specs.append(rt.TensorSpec(None, dtype))
            continue
        dims = []
        for dim in filter(None, (d.strip() for d in dims_text.split(","))):
            if dim in ("?", "None", "-1"):
                dims.append(None)
            elif re.fullmatch(r"[0-9]+", dim):  # not str.isdigit: "²" is a digit to it
                dims.append(int(dim))
            else:
                raise ValueError(f"bad dimension {dim!r} in {entry!r}")
        specs.append(rt.TensorSpec(dims, dtype))
    if not specs:
        raise ValueError("it is empty")
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
        type=_signature_argument,
        help='the tensor arguments\' dtypes and shapes, e.g. "float32[None,3],int32[]"',
    )
    export.add_argument(
        "--format", choices=("onnx",), help="onnx (the default: --output's extension, .onnx)"
    )
    export.add_argument("--output", "-o", metavar="FILE", required=True, help="the model file")


def export_command(options):
    import runtime as rt

    if options.format is None:
        _format_of(options.output, {"onnx": "onnx"})
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
