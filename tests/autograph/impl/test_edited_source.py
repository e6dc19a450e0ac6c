"""A function whose file was edited after its module was imported: convert what runs, or refuse.

Conversion reads a function's source from its file. When the file no longer holds
the code that runs, converting its new text would run other code under the
function's name; conversion refuses instead, and ``ag.function`` traces the
function as it is (what runs), with a warning.
"""

import importlib
import sys
import textwrap

import pytest

import autograph as ag
import runtime as rt

ORIGINAL = textwrap.dedent(
    """
    def branchy(x):
        if x > 0:
            return x + 1
        return x


    def straight(x):
        return x * 2 + 1


    def untouched(x):
        while x > 10:
            x = x // 2
        return x
    """
)


@pytest.fixture
def module(tmp_path, monkeypatch):
    """A module imported from a file of its own (the way Python imports user code)."""
    name = f"edited_module_{abs(hash(str(tmp_path)))}"
    path = tmp_path / f"{name}.py"
    path.write_text(ORIGINAL)
    monkeypatch.syspath_prepend(str(tmp_path))
    imported = importlib.import_module(name)
    yield imported, path
    sys.modules.pop(name, None)


def test_an_unchanged_file_converts_as_always(module):
    mod, _ = module
    assert ag.to_graph(mod.branchy)(3) == 4


def test_a_changed_function_is_refused_not_converted_from_the_new_text(module):
    mod, path = module
    path.write_text(ORIGINAL.replace("return x + 1", "return x + 100"))
    with pytest.raises(ag.ConversionError, match="not the code that runs") as info:
        ag.to_graph(mod.branchy)
    assert str(path) in str(info.value) and "importlib.reload" in str(info.value)
    assert mod.branchy(3) == 4  # what runs is the function as it was imported


def test_ag_function_then_traces_what_runs_with_a_warning(module):
    mod, path = module
    path.write_text(ORIGINAL.replace("x * 2 + 1", "x * 2 + 100"))
    f = ag.function(mod.straight)
    with pytest.warns(UserWarning, match="not the code that runs"):
        result = f(rt.constant(3))
    assert result.numpy() == mod.straight(3) == 7


def test_lines_added_above_the_function_are_a_change_too(module):
    mod, path = module
    path.write_text("# a new first line\n" + ORIGINAL)
    with pytest.raises(ag.ConversionError, match="not the code that runs"):
        ag.to_graph(mod.untouched)


def test_other_functions_of_the_file_may_change(module):
    mod, path = module
    path.write_text(ORIGINAL.replace("return x + 1", "return x + 100"))
    converted = ag.to_graph(mod.untouched)
    assert converted(100) == mod.untouched(100) == 6


def test_after_a_reload_the_new_text_is_what_runs_and_converts(module):
    mod, path = module
    path.write_text(ORIGINAL.replace("return x + 1", "return x + 100"))
    reloaded = importlib.reload(mod)
    assert ag.to_graph(reloaded.branchy)(3) == reloaded.branchy(3) == 103


def test_a_file_that_no_longer_compiles_is_refused_too(module):
    mod, path = module
    path.write_text(ORIGINAL.replace("return x + 1", "return x +"))
    with pytest.raises(ag.ConversionError):
        ag.to_graph(mod.branchy)
