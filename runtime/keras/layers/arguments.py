"""What convolution and pooling layers share: their arguments checked as Keras 3 checks them
(with its words), and their configs.

>>> standardize_tuple(3, 2, "kernel_size")
(3, 3)
>>> standardize_data_format(None)
'channels_last'
"""

from __future__ import annotations


def standardize_tuple(value, n, name, allow_zero=False):
    """``value`` (an int, or ``n`` of them) as a tuple of ``n`` ints, each > 0 (>= 0 with
    ``allow_zero``); ValueError in Keras's words otherwise."""
    message = f"The `{name}` argument must be a tuple of {n} integers. Received {name}={value}"
    if isinstance(value, int):
        values = (value,) * n
    else:
        try:
            values = tuple(value)
        except TypeError:
            raise ValueError(message) from None
        if len(values) != n:
            raise ValueError(message)
        for v in values:
            try:
                int(v)
            except (ValueError, TypeError):
                raise ValueError(f"{message}including element {v} of type {type(v)}") from None
    low, wanted = (0, ">= 0") if allow_zero else (1, "> 0")
    bad = {v for v in values if v < low}
    if bad:
        raise ValueError(f"{message}, including values {bad} that do not satisfy `value {wanted}`")
    return values


def standardize_padding(value, allow_causal=False):
    """``"valid"`` or ``"same"`` (any case; ``"causal"`` too for 1-D convolutions)."""
    padding = value.lower()
    allowed = {"valid", "same", "causal"} if allow_causal else {"valid", "same"}
    if padding not in allowed:
        raise ValueError(
            f"The `padding` argument must be a list/tuple or one of {allowed}. Received: {padding}"
        )
    return padding


def standardize_data_format(data_format):
    """``"channels_last"`` (the default) or ``"channels_first"``."""
    if data_format is None:
        return "channels_last"
    data_format = str(data_format).lower()
    if data_format not in {"channels_first", "channels_last"}:
        raise ValueError(
            "The `data_format` argument must be one of {'channels_first', 'channels_last'}. "
            f"Received: data_format={data_format}"
        )
    return data_format


def check_rank(layer, shape, ndim, at_least=False):
    """Keras's InputSpec check of the input's rank, worded as Keras words it."""
    if shape is None or len(shape) == ndim or (at_least and len(shape) > ndim):
        return
    kind = "min_ndim" if at_least else "ndim"
    raise ValueError(
        f'Input 0 of layer "{layer.name}" is incompatible with the layer: expected {kind}={ndim}, '
        f"found ndim={len(shape)}. Full shape received: {tuple(shape)}"
    )
