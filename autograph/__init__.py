"""autograph: Python control flow to graphs, and the tracing decorator.

>>> import autograph as ag
>>> import runtime as rt
>>> def relu_sum(xs):
...     total = 0.0
...     for x in xs:
...         if x > 0:
...             total += x
...     return total
>>> ag.to_graph(relu_sum)([1.0, -2.0, 3.0])
4.0
"""

import os as _os

from autograph import experimental, lang
from autograph.eager_switch import (
    experimental_run_functions_eagerly,
    functions_run_eagerly,
    run_functions_eagerly,
)
from autograph.function import ConcreteFunction, Function, function
from autograph.impl.api import converted_call, do_not_convert, to_code, to_graph
from autograph.lang.directives import set_element_type, set_loop_options
from autograph.lang.special_functions import stack, trace
from autograph.pyct.parser import ConversionError
from autograph.tracing import RetracingWarning
from runtime._version import __version__
from runtime.core import source as _source
from runtime.core import tracebacks as _tracebacks
from runtime.core.tracebacks import (
    disable_traceback_filtering,
    enable_traceback_filtering,
    is_traceback_filtering_enabled,
)
from runtime.execution import staging as _staging

# Ops made by this package's code are said to come from the user's code that called it,
# and tracebacks leave its frames out.
_source.register_library_path(_os.path.dirname(__file__))
_tracebacks.register_hidden_path(_os.path.dirname(__file__))


def _staged(python_function, name, input_signature, jit_compile=False):
    # What the staged function calls goes through ag__.call: user code is converted.
    staged = function(
        python_function, input_signature=input_signature, autograph=False, jit_compile=jit_compile
    )
    staged.__name__ = name
    return staged


# The runtime stages code of its own (Keras' training step) through these: runtime/execution/staging.py.
_staging.register(function=_staged, converted=converted_call)
