"""Fresh names for generated code that never clash with the user's names.

>>> namer = Namer({"if_true", "x"})
>>> namer.new("if_true"), namer.new("if_true"), namer.new("loop_body")
('if_true_1', 'if_true_2', 'loop_body')
"""

from __future__ import annotations

import builtins

import gast

from autograph.pyct import walk


class Namer:
    def __init__(self, taken):
        self._taken = set(taken) | set(dir(builtins)) | {"ag__"}
        self._next = {}  # base -> the first suffix that may be free: those before it are taken

    @classmethod
    def for_function(cls, node, global_names=()):
        """A namer that avoids every name the function uses, and its module's globals."""
        names = set(global_names)
        for n in walk.nodes(node):
            if isinstance(n, gast.Name):
                names.add(n.id)
            elif isinstance(n, (gast.FunctionDef, gast.ClassDef)):
                names.add(n.name)
        return cls(names)

    def new(self, base):
        i = self._next.get(base, 0)
        name = f"{base}_{i}" if i else base
        while name in self._taken:
            i += 1
            name = f"{base}_{i}"
        self._taken.add(name)
        self._next[base] = i + 1
        return name
