"""Text for tensor values the way TensorFlow's ``tf.print`` writes them.

>>> import numpy as np
>>> format_value(np.arange(10, dtype=np.int32), summarize=3)
'[0 1 2 ... 7 8 9]'
>>> format_value(np.array([[1, 2], [3, 4]], dtype=np.int32))
'[[1 2]\\n [3 4]]'
>>> format_value(np.float32(3.14159265)), format_value(np.array([True, False]))
('3.14159274', '[1 0]')
"""

from __future__ import annotations

import numpy as np


def format_element(x) -> str:
    """One element: floats in the shortest of 6/9 (float32) or 15/17 (float64) digits."""
    if isinstance(x, bytes):
        return '"' + x.decode("utf-8", "backslashreplace") + '"'
    if isinstance(x, (bool, np.bool_)):
        return "1" if x else "0"
    if isinstance(x, np.float16):
        x = np.float32(x)  # TensorFlow widens half floats before printing them
    if isinstance(x, np.floating):
        short, full = (6, 9) if x.dtype.itemsize <= 4 else (15, 17)
        text = f"{x:.{short}g}"
        if type(x)(text) != x and not np.isnan(x):
            text = f"{x:.{full}g}"
        return {"inf": "inf", "-inf": "-inf", "nan": "nan"}.get(text, text)
    return str(x)


def format_value(value, summarize=3) -> str:
    """A whole value: ``[1 2 3]``, nested rows, ``...`` where more than 2*summarize items."""
    arr = np.asarray(value) if not isinstance(value, np.generic) else value
    if np.ndim(arr) == 0:
        item = arr[()] if isinstance(arr, np.ndarray) else arr
        return format_element(item)
    return _format_dims(arr, 0, summarize)


def _format_dims(arr, depth, summarize):
    n = arr.shape[0]
    if summarize is not None and summarize >= 0 and n > 2 * summarize:
        idx = list(range(summarize)) + [None] + list(range(n - summarize, n))
    else:
        idx = list(range(n))
    if arr.ndim == 1:
        parts = ["..." if i is None else format_element(arr[i]) for i in idx]
        return "[" + " ".join(parts) + "]"
    sep = "\n" * (arr.ndim - 1) + " " * (depth + 1)
    parts = ["..." if i is None else _format_dims(arr[i], depth + 1, summarize) for i in idx]
    return "[" + sep.join(parts) + "]"
