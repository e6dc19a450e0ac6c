"""The object tree, concrete-function arguments and parameters of a description are untrusted
like the rest: each damage is a SavedModelError naming the description file, and nothing in
them is ever run. Each edit is signed, as an attacker would sign it, to reach the checks."""

import os

import pytest

import autograph as ag
import runtime as rt
from runtime.saved_model import SavedModelError
from runtime.saving.format import MAX_GRAPH_DEPTH
from tests.runtime.saving.model_files import description, write_signed


class Leaf(rt.Module):
    def __init__(self):
        super().__init__()
        self.v = rt.Variable(2.0)

    @ag.function(autograph=False)
    def scale(self, x, twice=False):
        return x * self.v * (2.0 if twice else 1.0)


@pytest.fixture
def model(tmp_path):
    root = rt.Module()
    root.leaf = Leaf()
    root.items = [rt.Variable(1.0), (rt.Variable(3.0),)]
    root.leaf.scale(rt.constant(1.0))
    root.leaf.scale(rt.constant(1.0), twice=True)
    path = str(tmp_path / "model")
    rt.saved_model.save(root, path)
    return path


def _error(path):
    with pytest.raises(SavedModelError) as error:
        rt.saved_model.load(path)
    message = str(error.value)
    assert message.startswith(os.path.join(path, "saved_model.json") + ": "), message
    return message


def _node(document, kind):
    return next(n for n in document["objects"] if n["kind"] == kind)


def _function_ref(document):
    for node in document["objects"]:
        for _, ref in node["children"]:
            if "function" in ref:
                return ref["function"]
    raise AssertionError("no function")


def _edit_and_load(path, edit):
    document = description(path)
    edit(document)
    write_signed(path, document)
    return _error(path)


def test_the_undamaged_model_loads_and_dispatches(model):
    loaded = rt.saved_model.load(model)
    assert loaded.leaf.scale(rt.constant(3.0)).numpy() == 6.0
    assert loaded.leaf.scale(rt.constant(3.0), twice=True).numpy() == 12.0
    assert loaded.items[1][0].numpy() == 3.0


@pytest.mark.parametrize(
    "edit, problem",
    [
        (lambda d: d["objects"][0]["children"].append(["x", {"object": 99}]), "no object 99"),
        (lambda d: d["objects"][0]["children"].append(["x", {"object": -1}]), "no object -1"),
        (lambda d: d["objects"][0]["children"].append(["x", {"code": "os"}]), "unknown kind"),
        (lambda d: d["objects"][0]["children"].append(["x", {"variable": "v99"}]), "no variable"),
        (lambda d: d["objects"][0].update(kind="module"), "unknown kind 'module'"),
        (lambda d: d["objects"][0].update(extra=1), "unknown fields 'extra'"),
        (lambda d: d["objects"].clear(), "must hold the root object"),
        (lambda d: d["objects"][0]["variables"].append("v99"), "no variable 'v99'"),
        (lambda d: _node(d, "list")["children"].reverse(), "numbered in order"),
    ],
)
def test_a_damaged_object_tree_is_refused(model, edit, problem):
    assert problem in _edit_and_load(model, edit)


# ``variables`` is not among them: a saved attribute of that name is the user's, as in
# TensorFlow (tests/runtime/tensorflow/test_load.py::test_list).
@pytest.mark.parametrize(
    "name", ["__class__", "__dict__", "signatures", "_derived", "_trackable_children", "a b"]
)
def test_an_attribute_a_loaded_object_cannot_take_is_refused(model, name):
    def edit(document):
        document["objects"][0]["children"].append([name, {"object": 1}])

    assert "cannot name an attribute of a loaded object" in _edit_and_load(model, edit)


def test_a_tuple_holding_itself_is_refused(model):
    def edit(document):
        index = document["objects"].index(_node(document, "tuple"))
        _node(document, "tuple")["children"] = [["0", {"object": index}]]

    assert "holds itself" in _edit_and_load(model, edit)


def test_tuples_nested_too_deeply_are_refused_before_they_are_built(model):
    def edit(document):
        start = len(document["objects"])
        for i in range(MAX_GRAPH_DEPTH + 5):
            document["objects"].append(
                {"kind": "tuple", "children": [["0", {"object": start + i + 1}]]}
            )
        document["objects"].append({"kind": "tuple", "children": []})
        document["objects"][0]["children"].append(["deep", {"object": start}])

    assert "nested too deeply" in _edit_and_load(model, edit)


@pytest.mark.parametrize(
    "edit, problem",
    [
        (lambda f: f.update(concrete=["nowhere"]), "no function 'nowhere'"),
        (lambda f: f["parameters"][0].update(kind=9), "a parameter must be"),
        (lambda f: f["parameters"][0].update(name="not a name"), "a parameter must be"),
        (lambda f: f["parameters"].append(dict(f["parameters"][0])), "parameters are damaged"),
        (lambda f: f["parameters"][1].update(default={"tensor": 0}), "not the next input"),
        # A default's own values (a tensor default): a known dtype, the values its shape says.
        (
            lambda f: f["parameters"][1].update(
                default={"constant": {"dtype": "float32", "shape": [3], "values": [1.0]}}
            ),
            "values do not fit its shape",
        ),
        (
            lambda f: f["parameters"][1].update(
                default={"constant": {"dtype": "string", "shape": [], "values": ["x"]}}
            ),
            "must be finite numbers",
        ),
        (
            lambda f: f["parameters"][1].update(
                default={"array": {"dtype": "bool", "shape": [1], "values": [1]}}
            ),
            "must be bools",
        ),
        (
            lambda f: f["parameters"][1].update(
                default={"constant": {"dtype": "float32", "shape": [-1], "values": []}}
            ),
            "shape is damaged",
        ),
        (lambda f: f["parameters"].pop(), "traced for other parameters"),
    ],
)
def test_a_damaged_function_reference_is_refused(model, edit, problem):
    assert problem in _edit_and_load(model, lambda d: edit(_function_ref(d)))


def test_a_concrete_function_reference_naming_other_than_one_function_is_refused(model):
    def edit(document):  # the function traced twice, referred to as one concrete function
        for node in document["objects"]:
            for entry in node["children"]:
                if "function" in entry[1]:
                    entry[1] = {"concrete_function": entry[1]["function"]}
                    return

    assert "must name one function" in _edit_and_load(model, edit)


@pytest.mark.parametrize(
    "edit, problem",
    [
        (lambda i: i[0].__setitem__(1, {"tensor": 1}), "is not the next input"),
        (lambda i: i[0].__setitem__(1, {"value": 1.0}), "hold 0 tensors, but its graph has 1"),
        (lambda i: i[1].__setitem__(1, {"value": [1]}), "a Python value must be"),
        (lambda i: i[1].__setitem__(1, {"pickle": "x"}), "unknown kind of argument"),
        (lambda i: i.append(["y", {"value": 1}]), "traced for other parameters"),
        (lambda i: i[1].__setitem__(0, "x"), "named twice"),
        (lambda i: i.append(["__import__('os')", {"value": 1}]), "must be [name, structure]"),
        (lambda i: i[1].__setitem__(1, {"dict": [["k", {"value": 1}]] * 2}), "given twice"),
        # A named tuple's class is made from its name and fields: each must be a plain name.
        (
            lambda i: i[1].__setitem__(1, {"namedtuple": ["os.system", [["a", {"value": 1}]]]}),
            "a named tuple's name or fields are damaged",
        ),
        (
            lambda i: i[1].__setitem__(1, {"namedtuple": ["P", [["_x", {"value": 1}]]]}),
            "a named tuple's name or fields are damaged",
        ),
        (lambda i: i[1].__setitem__(1, {"namedtuple": ["P"]}), "a named tuple is damaged"),
        (lambda i: i[1].__setitem__(1, {"dtype": "object"}), "unknown dtype 'object'"),
    ],
)
def test_damaged_arguments_as_traced_are_refused(model, edit, problem):
    def damage(document):
        edit(next(f for f in document["functions"].values() if f["name"] == "scale")["inputs"])

    assert problem in _edit_and_load(model, damage)


def test_damaged_signatures_are_refused(tmp_path):
    @ag.function(input_signature=[rt.TensorSpec([], rt.float32)], autograph=False)
    def f(x):
        return x

    path = str(tmp_path / "m")
    rt.saved_model.save(rt.Module(), path, signatures=f)
    for edit, problem in [
        (lambda d: d["signatures"][0].__setitem__(1, "nowhere"), "no function 'nowhere'"),
        (lambda d: d["signatures"].append(list(d["signatures"][0])), "listed twice"),
        (lambda d: d["signatures"].append("serving_default"), "must be [name, function key]"),
    ]:
        rt.saved_model.save(rt.Module(), path, signatures=f)
        assert problem in _edit_and_load(path, edit)


@pytest.mark.parametrize(
    "defaults, problem",
    [
        ([[5, {"dtype": "float32", "shape": [], "values": [1.0]}]], "must be [input index"),
        ([[0, {"dtype": "int64", "shape": [], "values": [1]}]], "does not fit it"),
        ([[0, {"dtype": "float32", "shape": [2, 2], "values": [1.0] * 4}]], "does not fit it"),
        ("x", "defaults must be a list"),
    ],
)
def test_damaged_input_defaults_are_refused(model, defaults, problem):
    def damage(document):
        next(f for f in document["functions"].values() if f["name"] == "scale")["defaults"] = (
            defaults
        )

    assert problem in _edit_and_load(model, damage)
