"""What a notebook shows for graphs and concrete functions: a picture drawn by Graphviz when it
is installed (``_repr_html_``, ``_repr_svg_``), the text view otherwise (``_repr_html_``'s
``<pre>``, ``_repr_pretty_``); and tensors formatted as TensorFlow formats them."""

import os
import shutil

import pytest

import autograph as ag
import runtime as rt

needs_dot = pytest.mark.skipif(shutil.which("dot") is None, reason="Graphviz is not installed")


class Printer:
    """The part of IPython's pretty printer ``_repr_pretty_`` uses."""

    def __init__(self):
        self.written = []

    def text(self, text):
        self.written.append(text)


def pretty(obj):
    printer = Printer()
    obj._repr_pretty_(printer, False)
    return "".join(printer.written)


@ag.function(input_signature=[rt.TensorSpec([None], rt.float32)])
def scaled_sum(x):
    return rt.reduce_sum(x * 2.0)


@pytest.fixture
def without_graphviz(monkeypatch):
    paths = os.environ.get("PATH", "").split(os.pathsep)
    monkeypatch.setenv(
        "PATH", os.pathsep.join(p for p in paths if p and shutil.which("dot", path=p) is None)
    )


@needs_dot
def test_a_graph_is_drawn_as_an_inline_svg():
    cf = scaled_sum.get_concrete_function()
    svg = cf.graph._repr_svg_()
    assert svg.startswith("<svg") and svg.rstrip().endswith("</svg>")
    for op in ("mul", "Sum", "return"):
        assert f">{op}</text>" in svg
    assert cf._repr_svg_() == svg
    # A notebook shows HTML first: the same picture.
    assert cf.graph._repr_html_() == cf._repr_html_() == svg


def test_without_graphviz_a_notebook_shows_the_text_view(without_graphviz):
    cf = scaled_sum.get_concrete_function()
    assert cf.graph._repr_svg_() is None and cf._repr_svg_() is None
    assert pretty(cf.graph) == f"{cf.graph!r}\n{cf.graph}"
    assert pretty(cf) == f"{cf}\n{cf.graph}"
    assert "mul: float32[?] = Mul(x, Const)" in pretty(cf)
    html = cf._repr_html_()
    assert html.startswith("<pre>ConcreteFunction scaled_sum(x)") and html.endswith("</pre>")
    assert "mul: float32[?] = Mul(x, Const)" in html
    assert cf.graph._repr_html_().startswith("<pre>&lt;rt.Graph &#x27;scaled_sum&#x27;")


@needs_dot
def test_a_loaded_function_is_drawn_too(tmp_path):
    module = rt.Module()
    module.scaled_sum = scaled_sum
    rt.saved_model.save(module, str(tmp_path))
    loaded = rt.saved_model.load(str(tmp_path))
    assert loaded.scaled_sum._repr_svg_().startswith("<svg")
    assert loaded.scaled_sum._repr_html_().startswith("<svg")
    assert pretty(loaded.scaled_sum).startswith("<rt.saved_model.LoadedFunction scaled_sum>\n")


@pytest.mark.parametrize(
    "value, spec, expected",
    [
        (1.5, ".2f", "1.50"),
        (1.5, "", "1.5"),
        (7, ">4d", "   7"),
        ([1, 2], "", "[1 2]"),
        (True, "", "True"),
    ],
)
def test_an_eager_tensor_formats_as_its_numpy_value(value, spec, expected):
    t = rt.constant(value)
    assert format(t, spec) == format(t.numpy(), spec) == expected
    assert f"{t:{spec}}" == expected


def test_a_symbolic_tensor_has_no_value_to_format():
    g = rt.Graph()
    with g.as_default():
        y = rt.placeholder(rt.float32, []) * 2.0
    assert f"{y}" == str(y)
    with pytest.raises(TypeError, match="symbolic tensor 'mul:0' with '.2f'.*rt.strings.as_string"):
        f"{y:.2f}"
