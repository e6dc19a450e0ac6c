"""Function graphs lowered to JAX and compiled by XLA: ``ag.function(..., jit_compile=True)``.

- ``lowerings``: the XLA column of the op table (each OpDef's JAX form);
- ``lower``: a graph traced into JAX, op by op; run-time failures as checks;
- ``control_flow``, ``tensor_lists``, ``effects``: the lowerings that need more
  than a line (cond and while, TensorArrays, printing, random numbers, variables);
- ``observe``: values XLA needs when compiling, watched on a first run;
- ``program``: ``XlaProgram``, the compiled graph called like the default executor's.

Importing this package does not import JAX; ``compile_function`` does, and says
which extra to install when it is missing.
"""

from __future__ import annotations

from runtime.execution import staging
from runtime.extras import require


def compile_function(func_graph):
    """An ``XlaProgram`` for a FuncGraph (its optimised graph); needs the extra ``jax``."""
    require("jax", "jax", "jit_compile=True")
    from runtime.xla.program import XlaProgram

    return XlaProgram(func_graph)


staging.register_xla(compile_function)  # the runtime's own staged code (Keras' steps) compiles too
