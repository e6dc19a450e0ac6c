"""The lines of a function's file, found and dedented faster than ``inspect`` and ``textwrap``.

Each function gives what its counterpart in the standard library gives, and asks
it where it is not sure of doing the same.

>>> def double(x):
...     return x * 2
>>> lines, first = definition_lines(double)
>>> lines[first].lstrip().startswith("def double")
True
>>> dedent(["    def f():\\n", "        return 1\\n"])
'def f():\\n    return 1\\n'
"""

from __future__ import annotations

import inspect
import linecache
import re
import textwrap

# A line where a function's definition starts: every such line matches the pattern
# with which inspect.findsource checks the line of a code object.
_DEFINITION_START = re.compile(r"\s*(?:@|def\s|async\s+def\s)")

# What textwrap.dedent empties: the lines of spaces and tabs only.
_WHITESPACE_ONLY_LINE = re.compile(r"^[ \t]+$", re.MULTILINE)


def definition_lines(fn):
    """The lines of the file that defines ``fn``, and the index of its definition's first line.

    As ``inspect.findsource(fn.__code__)``, which raises OSError or TypeError where
    the source is not available. inspect also looks for the module of the file,
    through all of ``sys.modules`` for a file that no module was imported from;
    the function's globals are that module's namespace already.
    """
    code = fn.__code__
    linecache.checkcache(code.co_filename)  # a file changed since it was read is read again
    lines = linecache.getlines(code.co_filename, getattr(fn, "__globals__", None))
    first = code.co_firstlineno - 1
    if 0 <= first < len(lines) and _DEFINITION_START.match(lines[first]):
        return lines, first
    return inspect.findsource(code)


def dedent(lines):
    """``textwrap.dedent("".join(lines))``.

    Quicker where every line that is not blank starts with the indentation of the
    first line, as the lines of a function's definition do: that indentation is
    then the common one.

    >>> dedent(["  if x:\\n", "    \\n", "    y = 1\\n"])
    'if x:\\n\\n  y = 1\\n'
    >>> dedent(["\\tx = 1\\n", "  y = 2\\n"]) == textwrap.dedent("\\tx = 1\\n  y = 2\\n")
    True
    """
    text = "".join(lines)
    if not lines or not lines[0].strip(" \t\n"):
        return textwrap.dedent(text)  # the first line does not tell the indentation
    if " \n" in text or "\t\n" in text or text.endswith((" ", "\t")):
        text = _WHITESPACE_ONLY_LINE.sub("", text)
    first = lines[0]
    indentation = first[: len(first) - len(first.lstrip(" \t"))]
    if not indentation:
        return text
    # A line that is not empty and does not start with the indentation.
    if re.search(f"^(?!{indentation})[^\n]", text, re.MULTILINE):
        return textwrap.dedent(text)
    return ("\n" + text).replace("\n" + indentation, "\n")[1:]
