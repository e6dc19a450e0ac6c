"""What converted code calls, as ``ag__.<name>``: control flow, logic, variables, builtins, lists.

``ag__.call`` (``converted_call``) joins them in ``autograph.impl.api``, which
builds the ``ag__`` namespace: the operators never import the pipeline.
"""

from autograph.operators import backends as _backends
from autograph.operators.control_flow import if_stmt, is_symbolic, while_stmt
from autograph.operators.exceptions import assert_stmt
from autograph.operators.for_loops import for_stmt
from autograph.operators.logical import and_, if_exp, not_, or_
from autograph.operators.original_scope import dir_, eval_, exec_, locals_, vars_
from autograph.operators.pattern_matching import match_structure
from autograph.operators.py_builtins import (
    abs_,
    enumerate_,
    float_,
    int_,
    len_,
    max_,
    min_,
    print_,
    range_,
    zip_,
)
from autograph.operators.runtime_backend import RUNTIME as _RUNTIME
from autograph.operators.staging_errors import handling_staging_error
from autograph.operators.variables import Undefined, UndefinedReturnValue, ld, ret, returned

_backends.register(_RUNTIME)  # the default: asked first
