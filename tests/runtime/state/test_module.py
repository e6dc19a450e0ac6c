"""rt.Module: names, name scopes, and finding variables and submodules through attributes."""

import pytest

import autograph as ag
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


class WithoutSuperInit(rt.Module):
    def __init__(self):  # no super().__init__(), as three TensorFlow tutorials write it
        self.w = rt.Variable(rt.ones([2, 3]), name="w")
        self.b = rt.Variable(rt.zeros([3]), name="b", trainable=False)
        self.inner = Dense(3, 1, name="inner")


def test_a_module_whose_init_skips_super_is_named_from_its_class():
    module = WithoutSuperInit()
    assert module.name == "without_super_init"
    # Python's own repr, as tf.Module keeps it ("<__main__.Dense object at 0x...>").
    assert repr(module) == object.__repr__(module)
    with module.name_scope:
        assert rt.Variable(1.0, name="v").name == "without_super_init/v:0"


def test_a_module_whose_init_skips_super_is_named_at_the_top_wherever_first_used():
    module = WithoutSuperInit()
    with rt.name_scope("outer"), module.name_scope:
        assert rt.Variable(1.0, name="v").name == "without_super_init/v:0"
    with module.name_scope:  # and the same scope after
        assert rt.Variable(1.0, name="u").name == "without_super_init/u:0"


def test_a_module_whose_init_skips_super_still_finds_its_variables():
    module = WithoutSuperInit()
    # Breadth first, attributes in name order: its own, then those of its submodule.
    assert [v.name for v in module.variables] == ["b:0", "w:0", "inner/b:0", "inner/w:0"]
    assert [v.name for v in module.trainable_variables] == ["w:0", "inner/w:0"]
    assert [m.name for m in module.submodules] == ["inner"]


def test_a_module_whose_init_skips_super_can_be_an_argument_of_a_function():
    @ag.function
    def apply(module, x):
        return x @ module.w + module.b

    module = WithoutSuperInit()
    spec = rt.TensorSpec([None, 2], rt.float32)
    # (The module shown with Python's repr, as tf.Module's.)
    assert "WithoutSuperInit object at" in str(apply.get_concrete_function(module, spec))
    assert apply(module, rt.ones([1, 2])).numpy().tolist() == [[2.0, 2.0, 2.0]]


def test_submodules_are_walked_depth_first_after_each_modules_own_attributes():
    # TensorFlow's order: a module's own attributes (by name), then each submodule found,
    # walked whole before the next: root.a, root.b, then a's subtree (x, y), then b's (z).
    root = rt.Module(name="root")
    root.a, root.b = rt.Module(name="a"), rt.Module(name="b")
    root.a.x = rt.Module(name="x")
    root.a.x.y = rt.Module(name="y")
    root.b.z = rt.Module(name="z")
    assert [m.name for m in root.submodules] == ["a", "b", "x", "y", "z"]


def test_non_trainable_variables_are_the_others_in_the_same_order():
    model = Model()
    expected = [v for v in model.variables if not v.trainable]
    assert list(model.non_trainable_variables) == expected
    assert [v.name for v in expected] == ["model/head/b:0", "model/first/b:0", "model/second/b:0"]


def test_methods_with_the_name_scope_can_call_each_other():
    class Nested(rt.Module):
        @rt.Module.with_name_scope
        def outer(self):
            inner = self.inner()
            return inner, rt.Variable(1.0, name="after").name

        @rt.Module.with_name_scope
        def inner(self):
            return rt.Variable(1.0, name="v").name

    module = Nested()
    assert module.outer() == ("nested/v:0", "nested/after:0")
    assert rt.Variable(1.0, name="outside").name == "outside:0"


def test_a_module_whose_init_skips_super_flattens_with_paths():
    module = WithoutSuperInit()
    paths = [
        path
        for path, _ in module._flatten(
            predicate=lambda v: isinstance(v, rt.Variable), with_path=True
        )
    ]
    assert paths == [("b",), ("w",), ("inner", "b"), ("inner", "w")]
    assert module.name_scope is module.name_scope


def test_flatten_expands_composites_only_when_asked():
    module = rt.Module(name="m")
    module.array = rt.TensorArray(rt.float32, size=1).write(0, 3.0)
    whole = list(module._flatten(with_path=True))
    assert [path for path, _ in whole] == [("array",)]
    assert whole[0][1] is module.array
    parts = list(module._flatten(with_path=True, expand_composites=True))
    assert [path[:2] for path, _ in parts] == [("array", "TensorArray")] * len(parts)
    assert all(not isinstance(part, rt.TensorArray) for _, part in parts)


def test_a_module_whose_init_skips_super_runs_methods_in_its_name_scope():
    class NoSuper(rt.Module):
        def __init__(self):
            self.w = rt.Variable(1.0, name="w")

        @rt.Module.with_name_scope
        def make(self):
            return rt.Variable(2.0, name="v").name

    module = NoSuper()
    assert module.make() == "no_super/v:0"
    assert module.name_scope.name == "no_super/"
