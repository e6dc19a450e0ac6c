"""Fresh names for generated code that never clash with the user's names.

>>> namer = ConversionNamer({"if_true", "x"})
>>> namer.new("if_true"), namer.new("if_true"), namer.new("loop_body")
('if_true_1', 'if_true_2', 'loop_body')
"""

from __future__ import annotations

import builtins
import types


def code_names(code):
    """Every name ``code`` and the code objects nested in it use: globals and attributes,
    variables, cells and free variables.

    >>> sorted(code_names(compile("lambda a: b.c", "<example>", "eval")))
    ['a', 'b', 'c']
    """
    names, codes = set(), [code]
    for c in codes:  # grows while it is read
        names.update(c.co_names, c.co_varnames, c.co_cellvars, c.co_freevars)
        codes += [k for k in c.co_consts if isinstance(k, types.CodeType)]
    return names


class ConversionNamer:
    """Names for what conversion adds to a function (branch functions, flags, the match
    subject...): ``new(base)`` gives ``base``, or ``base_1``, ``base_2``... where that is
    taken, never a name the user's code uses, a builtin's, or one given before."""

    def __init__(self, taken):
        self._taken = set(taken) | set(dir(builtins)) | {"ag__"}
        self._next = {}  # base -> the first suffix that may be free: those before it are taken
        self.made = {}  # each name given -> the base it was made from

    @classmethod
    def for_function(cls, fn):
        """A namer that avoids every name ``fn`` uses, and its module's globals.

        The compiler has listed them already, in the code objects of ``fn``
        and of what it holds (nested functions, lambdas, comprehensions,
        classes): its locals, cells, free variables, and the globals and
        attributes it names. Reading them is cheaper than walking the tree.

        >>> def f(x):
        ...     if_true = [loop_body for loop_body in x]
        ...     return if_true
        >>> namer = ConversionNamer.for_function(f)
        >>> namer.new("if_true"), namer.new("loop_body"), namer.new("if_false")
        ('if_true_1', 'loop_body_1', 'if_false')
        """
        return cls(set(fn.__globals__) | code_names(fn.__code__))

    def new(self, base):
        i = self._next.get(base, 0)
        name = f"{base}_{i}" if i else base
        while name in self._taken:
            i += 1
            name = f"{base}_{i}"
        self._taken.add(name)
        self._next[base] = i + 1
        self.made[name] = base
        return name
