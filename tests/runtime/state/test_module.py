"""rt.Module: names, name scopes, and finding variables and submodules through attributes."""

import pytest

import runtime as rt


class Dense(rt.Module):
    def __init__(self, n_in, n_out, name=None):
        super().__init__(name=name)
        with self.name_scope:
            self.w = rt.Variable(rt.ones([n_in, n_out]), name="w")
            self.b = rt.Variable(rt.zeros([n_out]), name="b", trainable=False)


class Model(rt.Module):
    def __init__(self):
        super().__init__()
        with self.name_scope:
            self.layers = [Dense(2, 3, name="first"), Dense(3, 1, name="second")]
            self.extra = {"head": Dense(1, 1, name="head")}
        self.shared = self.layers[0]  # the same module twice: listed once


def test_default_name_is_the_class_name_in_snake_case():
    class DemoModule(rt.Module):
        pass

    class HTTPServerV2(rt.Module):
        pass

    assert DemoModule().name == "demo_module"
    assert HTTPServerV2().name == "http_server_v2"
    assert rt.Module(name="custom").name == "custom"


def test_invalid_names_are_refused():
    with pytest.raises(ValueError, match="not a valid module name"):
        rt.Module(name="has space")


def test_variables_are_named_under_the_module_scope():
    layer = Dense(2, 3, name="dense")
    assert layer.w.name == "dense/w:0"
    assert Model().layers[1].w.name == "model/second/w:0"


def test_variables_and_trainable_variables_are_found_through_containers():
    model = Model()
    names = [v.name for v in model.variables]
    assert len(names) == 6
    assert len(set(map(id, model.variables))) == 6
    assert {v.name for v in model.trainable_variables} == {
        "model/first/w:0",
        "model/second/w:0",
        "model/head/w:0",
    }


def test_submodules_are_listed_once_in_a_stable_order():
    model = Model()
    subs = model.submodules
    assert [m.name for m in subs] == ["head", "first", "second"]
    assert [m.name for m in model.submodules] == [m.name for m in subs]


def test_cycles_between_modules_end():
    a, b = rt.Module(name="a"), rt.Module(name="b")
    a.other, b.other = b, a
    a.v = rt.Variable(1.0)
    assert a.submodules == (b,)
    assert len(a.variables) == 1


def test_private_attributes_hold_variables_too():
    class Hidden(rt.Module):
        def __init__(self):
            super().__init__()
            self._w = rt.Variable(1.0)

    assert [v.numpy() for v in Hidden().variables] == [1.0]
