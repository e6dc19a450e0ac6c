"""Signed edits of a saved graph that would make a small file cost much, or fail oddly.

Each is refused at load with a SavedModelError naming the description and the
problem: print templates whose slots multiply the output, an attribute binding
``__call__`` to a variable, a graph the compiler cannot compile.
"""

import os

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
