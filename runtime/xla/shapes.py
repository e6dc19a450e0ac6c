"""Shape operands as XLA takes them: tuples of Python ints, fixed when compiling.

A shape reaches a lowering as the value of a shape tensor known when compiling
(``STATIC_OPERANDS``): a numpy vector of sizes, or one size. JAX takes a tuple
of ints.

>>> import numpy as np
>>> dims(np.array([2, 3], np.int32)), dims(np.int32(4)), dims(np.zeros([0], np.int32))
((2, 3), (4,), ())
"""

from __future__ import annotations

import numpy as np


def dims(shape):
    """A shape operand (a vector of sizes, or one size) as a tuple of ints."""
    return tuple(int(d) for d in np.reshape(shape, -1))
