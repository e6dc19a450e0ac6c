"""Signed edits of a saved graph that would make a small file cost much, or fail oddly.

Each is refused at load with a SavedModelError naming the description and the
problem: print templates whose slots multiply the output, an attribute binding
``__call__`` to a variable, a graph the compiler cannot compile. Also the
compiler's side: an empty index compiles, and loaded programs' sources leave
linecache when the programs are collected.
"""

import gc
import linecache
import os
import re

import numpy as np
import pytest

import autograph as ag
import runtime as rt
from runtime.ops.logging_ops import print_text
from runtime.saved_model import SavedModelError
from tests.runtime.saving.model_files import description, write_signed


class Printing(rt.Module):
    def __init__(self):
        super().__init__()
        self.scale = rt.Variable(2.0)

    @ag.function(input_signature=[rt.TensorSpec([2], rt.float32)], autograph=False)
    def run(self, x):
        rt.print({"x": x, "twice": x * 2.0})
        return x * self.scale


@pytest.fixture
def model(tmp_path):
    path = str(tmp_path / "model")
    rt.saved_model.save(Printing(), path)
    return path


def _ops(document):
    return document["functions"]["run"]["graph"]["ops"]


def _load_error(path):
    with pytest.raises(SavedModelError) as caught:
        rt.saved_model.load(path)
    message = str(caught.value)
    assert message.startswith(os.path.join(path, "saved_model.json") + ": ")
    return message


def _first_slot(document):
    """The first slot, [token, index], of the print's template: [("format", (text, slots))]."""
    op = next(o for o in _ops(document) if o["type"] == "PrintV2")
    text_and_slots = op["attrs"]["template"]["tuple"][0]["tuple"][1]["tuple"]
    return text_and_slots[1]["tuple"][0]["tuple"]


def test_a_loaded_print_template_prints_what_the_original_prints(model, capsys):
    rt.saved_model.load(model).run(np.array([1.0, 2.0], np.float32))
    assert capsys.readouterr().out == "{'twice': [2 4], 'x': [1 2]}\n"


@pytest.mark.parametrize(
    "token",
    [
        "",  # found between every two characters: k such slots print (n + 1) ** k characters
        "\x00slot1\x00",  # another slot's token: printed twice
        "'",  # text of the structure, not a token a save writes
    ],
)
def test_print_slots_other_than_the_writers_tokens_once_in_the_text_are_refused(model, token):
    document = description(model)
    _first_slot(document)[0]["value"] = token
    write_signed(model, document)
    assert "print: slot" in _load_error(model)


def test_a_tensor_whose_text_holds_a_slot_token_is_printed_as_it_is():
    first, second = "\x00slot0\x00", "\x00slot1\x00"
    template = (("format", (f"[{first}, {second}]", ((first, 0), (second, 1)))),)
    values = (np.array(second.encode(), dtype=object), np.arange(1000))
    text = print_text(values, template, " ", "", summarize=3)
    assert text == '["\x00slot1\x00", [0 1 2 ... 997 998 999]]'


def test_call_bound_to_a_variable_is_refused(model):
    document = description(model)
    root = document["objects"][0]
    root["children"].append(["__call__", {"variable": document["variables"][0]["key"]}])
    write_signed(model, document)
    assert _load_error(model).endswith("'__call__' must be a function or an object)")


def test_an_empty_index_compiles_saves_and_loads(tmp_path):
    @ag.function(input_signature=[rt.TensorSpec([2], rt.float32)], autograph=False)
    def whole(x):
        return x[()] * 2.0

    x = np.array([1.5, -2.0], np.float32)
    np.testing.assert_array_equal(whole(x).numpy(), x[()] * 2.0)
    path = str(tmp_path / "whole")
    rt.saved_model.save(rt.Module(), path, signatures=whole)
    served = rt.saved_model.load(path).signatures["serving_default"](x=x)["output_0"]
    np.testing.assert_array_equal(served, x * 2)


def _compile_fails(monkeypatch):
    """Python's compiler refuses every program the graph compiler makes (as it refuses more
    than 20 nested blocks)."""
    import runtime.execution.compile as compile_module

    def refuse(source, filename, mode):
        raise SyntaxError("too many statically nested blocks", (filename, 3, 1, "", 3, 1))

    monkeypatch.setattr(compile_module, "compile", refuse, raising=False)


def test_a_graph_that_does_not_compile_is_a_saved_model_error_at_save_and_at_load(
    tmp_path, monkeypatch
):
    path = str(tmp_path / "model")
    rt.saved_model.save(Printing(), path)
    with monkeypatch.context() as patch:
        _compile_fails(patch)
        message = _load_error(path)
        # run, saved also as the serving_default signature (its only function): either fails
        assert re.search(
            r"function '(run|serving_default)' does not compile: too many statically nested",
            message,
        )

        @ag.function(input_signature=[rt.TensorSpec([], rt.float32)], autograph=False)
        def double(x):
            return x * 2.0

        with pytest.raises(SavedModelError, match="Cannot save 'serving_default': its graph does "):
            rt.saved_model.save(rt.Module(), str(tmp_path / "other"), signatures=double)
    assert not os.path.exists(tmp_path / "other")


def test_a_path_holding_a_nul_is_a_saved_model_error(tmp_path):
    with pytest.raises(SavedModelError, match="a path cannot hold a NUL character"):
        rt.saved_model.save(Printing(), str(tmp_path / "a\0b"))


def test_the_sources_of_loaded_functions_leave_linecache_with_them(model):
    before = {name for name in linecache.cache if name.startswith("<rt-graph-")}
    loaded = rt.saved_model.load(model)
    added = {name for name in linecache.cache if name.startswith("<rt-graph-")} - before
    assert added and all(linecache.getlines(name) for name in added)
    del loaded
    gc.collect()
    assert not any(linecache.getlines(name) for name in added)  # emptied by the collector
    reloaded = rt.saved_model.load(model)  # and removed at the next registration
    assert not added & set(linecache.cache)
    del reloaded


@pytest.fixture
def doubling(tmp_path):
    @ag.function(input_signature=[rt.TensorSpec([None], rt.float32)], autograph=False)
    def double(x):
        return x * 2.0

    path = str(tmp_path / "double")
    rt.saved_model.save(rt.Module(), path, signatures=double)
    return path


@pytest.mark.parametrize("op_type", ["Mul", "Placeholder"])
def test_an_output_shape_the_graph_does_not_make_is_refused(doubling, op_type):
    # Trusted, a loaded x * 2 would declare (2,) and return (6,) for 6 values, and an ONNX
    # export of it would declare (2,).
    document = description(doubling)
    ops = document["functions"]["serving_default"]["graph"]["ops"]
    op = next(o for o in ops if o["type"] == op_type)
    op["outputs"][0]["shape"] = [2]
    write_signed(doubling, document)
    assert _load_error(doubling).endswith(
        f"({op_type}): its outputs are not what its inputs and attributes make: "
        "float32 (None,) (the file says float32 (2,))"
    )


def test_an_output_shape_that_knows_less_than_the_graph_loads_as_the_graph_makes_it(doubling):
    document = description(doubling)
    ops = document["functions"]["serving_default"]["graph"]["ops"]
    next(o for o in ops if o["type"] == "Mul")["outputs"][0]["shape"] = None
    write_signed(doubling, document)
    served = rt.saved_model.load(doubling).signatures["serving_default"]
    assert served.graph.outputs[0].shape.as_list() == [None]
    x = np.arange(6, dtype=np.float32)
    np.testing.assert_array_equal(served(x=x)["output_0"].numpy(), x * 2)


@pytest.fixture
def choosing(tmp_path):
    @ag.function(
        input_signature=[rt.TensorSpec([None], rt.float32), rt.TensorSpec([], rt.bool)],
        autograph=False,
    )
    def choose(x, p):
        return rt.cond(p, lambda: x * 2.0, lambda: x * 3.0)

    path = str(tmp_path / "choose")
    rt.saved_model.save(rt.Module(), path, signatures=choose)
    return path


_REFINED = "its outputs are not what its inputs and attributes make: float32 (None,) "
_REFINED += "(the file says float32 (2,))"
_KNOWS_MORE = "op 'cond' (If): the true branch's input 'x_capture' is float32 (2,), but the op "
_KNOWS_MORE += "gives it float32 (None,): a sub-graph input may know less than what it is given, "
_KNOWS_MORE += "never more"


@pytest.mark.parametrize("field, message", [("outputs", _REFINED), ("attrs", _KNOWS_MORE)])
def test_a_branch_input_that_knows_more_than_the_cond_gives_it_is_refused(choosing, field, message):
    # Each branch's x_capture stands for x, of shape (None,). Trusted as (2,), the cond would
    # declare (2,) and return (6,) for 6 values.
    document = description(choosing)
    ops = document["functions"]["serving_default"]["graph"]["ops"]
    cond = next(o for o in ops if o["type"] == "If")
    for branch in ("then_graph", "else_graph"):
        branch_ops = cond["attrs"][branch]["graph"]["ops"]
        placeholder = next(o for o in branch_ops if o["type"] == "Placeholder")
        if field == "outputs":  # refined beyond its attributes
            placeholder["outputs"][0]["shape"] = [2]
        else:
            placeholder["attrs"]["shape"] = {"shape": [2]}
    write_signed(choosing, document)
    assert _load_error(choosing).endswith(message)
