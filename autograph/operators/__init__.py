"""What converted code calls, as ``ag__.<name>``: control flow, logic, variables, builtins, lists."""

from autograph.operators.control_flow import for_stmt, if_stmt, is_symbolic, while_stmt
from autograph.operators.data_structures import list_append
from autograph.operators.logical import and_, if_exp, not_, or_
from autograph.operators.py_builtins import enumerate_, len_, range_, zip_
from autograph.operators.variables import Undefined, UndefinedReturnValue, ld, ret


def call(fn):
    """``fn`` as converted code calls it: user functions converted, library code as it is."""
    from autograph.impl.api import converted_call

    return converted_call(fn)
