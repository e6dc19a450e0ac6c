"""``construct``: a class made from a Keras config, options this project does not use left out.
Shared by the serializer, the layers and the namespaces (initializers...), and importing
nothing of theirs.

>>> class Pair:
...     def __init__(self, a, b=0):
...         self.a, self.b = a, b
>>> vars(construct(Pair, {"a": 1, "quantization_config": None}))
{'a': 1, 'b': 0}
"""

from __future__ import annotations

import inspect


def construct(cls, config, passed_on=()):
    """``cls(**config)``, less the keys its constructor does not take whose value is None or
    False: a Keras option left unused (a newer Keras's ``quantization_config``, an option not
    implemented here). Other unknown keys reach the constructor, which refuses them. Keys in
    ``passed_on`` are kept when the constructor takes ``**kwargs`` (it passes them on)."""
    parameters = inspect.signature(cls.__init__).parameters
    takes_kwargs = any(p.kind is p.VAR_KEYWORD for p in parameters.values())
    kept = {
        key: value
        for key, value in config.items()
        if key in parameters
        or (value is not None and value is not False)
        or (takes_kwargs and key in passed_on)
    }
    return cls(**kept)
