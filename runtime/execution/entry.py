"""Entry functions: a traced function's whole call (check, unwrap, run, wrap) as one Python frame.

A call of an ``ag.function`` on eager tensors by position goes ``Function.__call__``
-> the entry function of the concrete function it called last, which checks
that each argument is an EagerTensor of the dtype and shape it was made for
(else it returns ``MISS`` and the call takes the general path), takes their
values, runs the program's body (the same lines as the program, inlined here)
with numpy's floating-point warnings off, names the failing op if one fails,
and wraps the results as eager tensors.

>>> import numpy as np
>>> import runtime as rt
>>> from runtime.execution.compile import compile_function
>>> from runtime.execution.tracing import trace
>>> program = compile_function(trace(lambda x: x * x + 2.0, [rt.TensorSpec([3], rt.float32)], "f"))
>>> square_plus_two = entry_function(program, [(rt.float32, (3,))], [rt.float32])
>>> square_plus_two((rt.constant([1.0, 2.0, 3.0]),))
<rt.Tensor: shape=(3,), dtype=float32, numpy=array([ 3.,  6., 11.], dtype=float32)>
>>> square_plus_two((rt.constant([1.0, 2.0]),)) is MISS
True
"""

from __future__ import annotations

from runtime.core import floating_point
from runtime.core.tensor import EagerTensor
from runtime.execution.compile import describe_error, load, new_filename

MISS = object()
"""What an entry function returns for arguments it was not made for."""

_TEMPLATE = """\
def {entry}({args}):
    if len({args}) != {count}:
        return {miss}
{unwrap}    {token} = {ignore}()
    try:
{body}
    except Exception as {error}:
        {described} = {describe}({error}, {filename}, {line_ops})
        if {described} is None:
            raise
        raise {described} from {error}
    finally:
        {restore}({token})
{wrap}"""

# For a program whose body runs no kernels of ours (it calls a compiled XLA program): nothing
# to silence, no op to name.
_UNGUARDED_TEMPLATE = """\
def {entry}({args}):
    if len({args}) != {count}:
        return {miss}
{unwrap}{body}
{wrap}"""


def entry_function(program, input_specs, output_dtypes, structure=None):
    """The entry function of ``program`` (a compiled function graph): called with a tuple of
    eager tensors, one of each ``(dtype, shape)`` of ``input_specs`` (numeric or bool dtypes,
    shapes as tuples), it returns its one result, or with ``structure`` (``tuple``, ``list``,
    or a function of the list of results) all of them so; else ``MISS``.

    None where the program has no ``body`` to write one from. A program runs its ops'
    kernels in the body (their floating-point warnings off, a failing op named) unless it
    says ``body_runs_kernels = False``, as an XLA program, whose body calls XLA, does.
    """
    body = getattr(program, "body", None)
    if body is None:
        return None
    body_lines, results, arg_names, body_line_ops = body
    guarded = getattr(program, "body_runs_kernels", True)
    indent = "    " if guarded else ""  # a guarded body is inside try
    fresh = program.namer.fresh  # names no line of the program uses
    namespace = dict(program.bound_values)

    def bind(hint, value):
        name = fresh(hint)
        namespace[name] = value
        return name

    names = {key: fresh(f"entry_{key}") for key in ("args", "token", "error", "described")}
    names["entry"] = fresh("entry")
    tensors = [fresh(f"{arg}_tensor") for arg in arg_names]
    tensor_type, new = bind("EagerTensor", EagerTensor), bind("new", object.__new__)
    miss = bind("miss", MISS)
    unwrap = f"    ({', '.join(tensors)},) = {names['args']}\n" if tensors else ""
    for tensor, arg, (dtype, shape) in zip(tensors, arg_names, input_specs):
        wanted_dtype, wanted_shape = bind("dtype", dtype), bind("shape", tuple(shape))
        unwrap += (
            f"    if type({tensor}) is not {tensor_type} or {tensor}.dtype is not {wanted_dtype} "
            f"or {tensor}._value.shape != {wanted_shape}:\n"
            f"        return {miss}\n"
            f"    {arg} = {tensor}._value\n"
        )
    # A result written as an expression (a scalar used once) is computed inside the try.
    values = [r if r.isidentifier() else fresh("entry_value") for r in results]
    computed = [f"    {indent}{v} = {r}" for v, r in zip(values, results) if v != r]
    wrap, outs = "", []
    for value, dtype in zip(values, output_dtypes):
        out = fresh("entry_result")
        # A tensor made field by field (EagerTensor's three slots): no __init__ frame.
        wrap += f"    {out} = {new}({tensor_type})\n"
        wrap += (
            f"    {out}._value, {out}.dtype, {out}._shape = {value}, {bind('dtype', dtype)}, None\n"
        )
        outs.append(out)
    if structure is None:
        wrap += f"    return {outs[0]}\n"
    elif structure is tuple:
        wrap += f"    return ({', '.join(outs)}{',' if len(outs) == 1 else ''})\n"
    elif structure is list:
        wrap += f"    return [{', '.join(outs)}]\n"
    else:
        wrap += f"    return {bind('structure', structure)}([{', '.join(outs)}])\n"
    filename = new_filename()
    line_ops = {}
    source = (_TEMPLATE if guarded else _UNGUARDED_TEMPLATE).format(
        **names,
        count=len(tensors),
        miss=miss,
        unwrap=unwrap,
        ignore=bind("ignore", floating_point.ignore),
        restore=bind("restore", floating_point.restore),
        describe=bind("describe", describe_error),
        filename=bind("filename", filename),
        line_ops=bind("line_ops", line_ops),
        body="\n".join([indent + line for line in body_lines] + computed) or f"    {indent}pass",
        wrap=wrap,
    )
    if guarded:
        # Line k of the program (its body starts on line 2) is here where the body starts, + k - 2.
        first = source.splitlines().index("    try:") + 2
        line_ops.update({first + line - 2: op for line, op in body_line_ops.items()})
    return load(source, namespace, filename, names["entry"])
