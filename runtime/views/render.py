"""Graphs drawn by Graphviz's ``dot`` program: SVG for notebooks, files for ``autograph graph``.

Graphviz is not a Python package, and not a dependency: where its ``dot``
program is not on ``PATH``, ``render`` raises ``GraphvizNotFound`` saying how to
install it, ``svg`` gives None, and ``html`` (what a notebook shows first) the
text view instead of the picture.

>>> import runtime as rt
>>> g = rt.Graph()
>>> with g.as_default():
...     y = rt.constant(1) + 2
>>> picture = svg(g)  # None without Graphviz
>>> picture is None or picture.startswith("<svg")
True
"""

from __future__ import annotations

import html as html_text
import shutil
import subprocess

from runtime.core.graph import register_view

FORMATS = ("svg", "png", "pdf")


class GraphvizNotFound(RuntimeError):
    """Graphviz's ``dot`` program is not installed (or not on ``PATH``)."""


class GraphvizFailed(RuntimeError):
    """Graphviz's ``dot`` program ran and failed."""


def render(dot_text: str, fmt: str) -> bytes:
    """``dot_text`` (the DOT language) drawn by Graphviz as ``fmt`` (svg, png, pdf)."""
    if fmt not in FORMATS:
        raise ValueError(f"Graphviz formats drawn here are {', '.join(FORMATS)}, not {fmt!r}")
    dot = shutil.which("dot")
    if dot is None:
        raise GraphvizNotFound(
            f"drawing {fmt} needs Graphviz's `dot` program, which was not found on PATH: install "
            "Graphviz (e.g. `apt-get install graphviz` or `brew install graphviz`)"
        )
    result = subprocess.run([dot, f"-T{fmt}"], input=dot_text.encode(), capture_output=True)
    if result.returncode != 0:
        raise GraphvizFailed(f"dot failed: {result.stderr.decode(errors='replace').strip()}")
    return result.stdout


def svg(graph) -> str | None:
    """The graph drawn as an SVG document without its XML prologue, or None without Graphviz."""
    try:
        picture = render(graph.to_dot(), "svg").decode("utf-8")
    except (GraphvizNotFound, GraphvizFailed):
        return None
    return picture[picture.find("<svg") :]  # a notebook embeds the <svg> element itself


def html(graph, heading=None) -> str:
    """The graph for a notebook: its SVG where Graphviz is installed, else its text view in a
    ``<pre>`` block, after ``heading`` (by default its repr)."""
    picture = svg(graph)
    if picture is not None:
        return picture
    heading = repr(graph) if heading is None else heading
    return f"<pre>{html_text.escape(heading)}\n{html_text.escape(str(graph))}</pre>"


register_view("svg", svg)
register_view("html", html)


class GraphDisplays:
    """What a notebook shows of an object holding a ``graph`` (a concrete or loaded function):
    the graph drawn under the object's heading where Graphviz is installed, else its text.
    ``_display_heading()`` is the heading: ``repr(self)`` unless a class says otherwise."""

    def _display_heading(self):
        return repr(self)

    def _repr_html_(self):
        return html(self.graph, heading=self._display_heading())

    def _repr_svg_(self):
        return self.graph._repr_svg_()

    def _repr_pretty_(self, printer, cycle):
        printer.text(repr(self) if cycle else f"{self._display_heading()}\n{self.graph}")
