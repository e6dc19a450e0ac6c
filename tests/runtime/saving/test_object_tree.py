"""Saving the object tree as TensorFlow does: every trackable reachable from the root, every
concrete function each ``ag.function`` has traced, restored at the same paths and dispatched by
the call's arguments; loaded objects save again. Expected values come from the original object
(or numpy), computed before the save."""

import inspect

import numpy as np
import pytest

import autograph as ag
import runtime as rt
from runtime.saved_model import SavedModelError


def _cycles(obj, tmp_path, n):
    """``obj`` saved and loaded ``n`` times, each load saved again (TensorFlow's load tests run
    their cases after 1, 2 and 3 cycles)."""
    for i in range(n):
        path = str(tmp_path / f"cycle{i}")
        rt.saved_model.save(obj, path)
        obj = rt.saved_model.load(path)
    return obj


class Scale(rt.Module):
    def __init__(self, w):
        super().__init__()
        self.w = w

    @ag.function(autograph=False)
    def __call__(self, x, training=False):
        return x * self.w + (1.0 if training else 0.0)


class Tree(rt.Module):
    def __init__(self):
        super().__init__()
        shared = rt.Variable(2.0, name="shared")
        self.first = Scale(shared)
        self.blocks = [Scale(shared), Scale(rt.Variable(3.0, name="three"))]
        self.by_name = {"four": Scale(rt.Variable(4.0, name="four"))}
        self.pair = (rt.Variable([1.0, -1.0], name="pair"), rt.Module(name="empty"))

    @ag.function(autograph=False)
    def total(self, x):
        return self.first(x) + self.blocks[1](x) + self.by_name["four"](x)


def _tree():
    tree = Tree()
    tree.total(rt.constant(1.0))
    tree.total(rt.constant([1.0, 2.0]))
    tree.first(rt.constant(1.0), training=True)
    tree.first(rt.constant(1.0))
    return tree


CYCLES = [1, 2, 3]


@pytest.mark.parametrize("cycles", CYCLES)
def test_a_module_holding_only_variables_saves_and_loads_them(tmp_path, cycles):
    module = rt.Module()
    module.v = rt.Variable([[1.0, 2.0]])
    module.step = rt.Variable(7, trainable=False)
    loaded = _cycles(module, tmp_path, cycles)
    np.testing.assert_array_equal(loaded.v.numpy(), [[1.0, 2.0]])
    assert loaded.step.numpy() == 7 and not loaded.step.trainable
    assert [v.name for v in loaded.trainable_variables] == [
        v.name for v in module.trainable_variables
    ]
    loaded.v.assign([[3.0, 4.0]])  # assignable
    np.testing.assert_array_equal(loaded.v.numpy(), [[3.0, 4.0]])


@pytest.mark.parametrize("cycles", CYCLES)
def test_a_function_traced_at_two_shapes_without_a_signature_dispatches_between_them(
    tmp_path, cycles
):
    @ag.function
    def double(x):
        return x * 2

    module = rt.Module()
    module.double = double
    scalar, vector = rt.constant(1.5), rt.constant([1, 2, 3])
    expected = [double(scalar).numpy(), double(vector).numpy()]
    loaded = _cycles(module, tmp_path, cycles)
    assert len(loaded.double.concrete_functions) == 2
    got = loaded.double(rt.constant(4.0))
    assert got.dtype == rt.float32 and got.numpy() == 8.0
    np.testing.assert_array_equal(loaded.double(rt.constant([5, 6, 7])).numpy(), [10, 12, 14])
    np.testing.assert_array_equal(loaded.double(scalar).numpy(), expected[0])
    np.testing.assert_array_equal(loaded.double(vector).numpy(), expected[1])
    assert loaded.double(x=rt.constant(1.0)).numpy() == 2.0  # by the parameter's name


def test_a_call_no_saved_concrete_function_matches_is_tensorflows_value_error(tmp_path):
    @ag.function
    def double(x):
        return x * 2

    module = rt.Module()
    module.double = double
    double(rt.constant(1.0))
    double(rt.constant([1, 2]))
    loaded = _cycles(module, tmp_path, 1)
    with pytest.raises(ValueError) as error:
        loaded.double(rt.constant([1.0, 2.0]))
    message = str(error.value)
    assert message.startswith(
        "Could not find matching concrete function to call loaded from the SavedModel. Got:\n"
        "  Positional arguments (1 total):\n"
    )
    assert "Expected these arguments to match one of the following 2 option(s):" in message
    assert "Option 1:\n  Positional arguments (1 total):\n    * TensorSpec(shape=(), " in message
    assert "Option 2:" in message and "shape=(2,), dtype=rt.int32" in message


@pytest.mark.parametrize("cycles", CYCLES)
def test_nested_modules_lists_dicts_and_tuples_are_restored_at_their_paths(tmp_path, cycles):
    tree = _tree()
    x = rt.constant([0.5, -2.0])
    expected = tree.total(x).numpy()
    loaded = _cycles(tree, tmp_path, cycles)
    assert isinstance(loaded.blocks, list) and isinstance(loaded.by_name, dict)
    assert isinstance(loaded.pair, tuple) and len(loaded.pair) == 2
    assert loaded.blocks[1].w.numpy() == 3.0 and loaded.by_name["four"].w.numpy() == 4.0
    np.testing.assert_array_equal(loaded.pair[0].numpy(), [1.0, -1.0])
    np.testing.assert_allclose(loaded.total(x).numpy(), expected)  # 2x + 3x + 4x
    np.testing.assert_allclose(expected, 9 * x.numpy())
    assert [v.name for v in loaded.trainable_variables] == [
        v.name for v in tree.trainable_variables
    ]


@pytest.mark.parametrize("cycles", CYCLES)
def test_a_variable_two_modules_hold_stays_one_variable(tmp_path, cycles):
    loaded = _cycles(_tree(), tmp_path, cycles)
    assert loaded.first.w is loaded.blocks[0].w
    loaded.blocks[0].w.assign(10.0)  # seen by the function that reads it through `first`
    x = np.array([1.0, 2.0], np.float32)
    np.testing.assert_allclose(loaded.total(rt.constant(x)).numpy(), (10 + 3 + 4) * x)


@pytest.mark.parametrize("cycles", CYCLES)
def test_python_valued_arguments_choose_the_concrete_function_traced_with_them(tmp_path, cycles):
    loaded = _cycles(_tree(), tmp_path, cycles)
    one = rt.constant(1.0)
    assert loaded.first(one, training=True).numpy() == 1.0 * 2.0 + 1.0
    assert loaded.first(one).numpy() == 2.0  # the default, False, as the Python function says
    assert loaded.first(one, False).numpy() == 2.0
    # Python values match by value, as TensorFlow's literals do: 1 == True
    assert loaded.first(one, training=1).numpy() == 3.0
    with pytest.raises(ValueError, match="Could not find matching concrete function"):
        loaded.first(one, training="yes")


@pytest.mark.parametrize("cycles", CYCLES)
def test_a_function_with_an_input_signature_never_called_is_traced_and_saved(tmp_path, cycles):
    class Signed(rt.Module):
        def __init__(self):
            super().__init__()
            self.v = rt.Variable(3.0)

        @ag.function(input_signature=[rt.TensorSpec([None], rt.float32)], autograph=False)
        def scaled(self, x):
            return x * self.v

    loaded = _cycles(Signed(), tmp_path, cycles)
    np.testing.assert_array_equal(loaded.scaled([1.0, 2.0]).numpy(), [3.0, 6.0])  # converted
    assert list(loaded.signatures) == ["serving_default"]
    out = loaded.signatures["serving_default"](x=rt.constant([2.0]))
    np.testing.assert_array_equal(out["output_0"].numpy(), [6.0])


def test_a_function_never_traced_is_saved_with_nothing_to_call(tmp_path):
    class Lazy(rt.Module):
        @ag.function
        def never(self, x):
            return x

    loaded = _cycles(Lazy(), tmp_path, 1)
    # As TensorFlow (load_test.py's test_call_untraced_function_raises_error): kept, with its
    # parameters, but nothing was traced to call.
    assert list(inspect.signature(loaded.never).parameters) == ["x"]
    with pytest.raises(ValueError, match="Found zero restored functions for caller function"):
        loaded.never(1)


def test_nested_arguments_dispatch_by_their_structure(tmp_path):
    @ag.function(autograph=False)
    def combine(pair, table):
        return pair[0] + pair[1] * table["scale"]

    module = rt.Module()
    module.combine = combine
    args = ((rt.constant(1.0), rt.constant(2.0)), {"scale": rt.constant(3.0)})
    expected = combine(*args).numpy()
    loaded = _cycles(module, tmp_path, 2)
    assert loaded.combine(*args).numpy() == expected == 7.0
    with pytest.raises(ValueError, match="Could not find matching"):
        loaded.combine([rt.constant(1.0), rt.constant(2.0)], args[1])  # a list, not the tuple


def test_a_loaded_function_is_called_inside_a_new_function_and_saved_with_it(tmp_path):
    loaded = _cycles(_tree(), tmp_path, 1)

    @ag.function(autograph=False)
    def twice_total(x):
        return 2.0 * loaded.total(x)

    x = rt.constant([1.0, 3.0])
    expected = twice_total(x).numpy()
    np.testing.assert_allclose(expected, 18 * x.numpy())
    holder = rt.Module()
    holder.twice_total = twice_total
    holder.tree = loaded
    again = _cycles(holder, tmp_path / "again", 1)
    np.testing.assert_allclose(again.twice_total(x).numpy(), expected)


def test_save_options_are_accepted_and_anything_else_is_a_type_error(tmp_path):
    module = rt.Module()
    module.v = rt.Variable(1.0)
    options = rt.saved_model.SaveOptions(save_debug_info=True, function_aliases={"f": None})
    assert options.save_debug_info and options.function_aliases == {"f": None}
    rt.saved_model.save(module, str(tmp_path / "a"), options=options)
    assert rt.saved_model.load(str(tmp_path / "a")).v.numpy() == 1.0
    with pytest.raises(TypeError, match="SaveOptions"):
        rt.saved_model.save(module, str(tmp_path / "b"), options={"save_debug_info": True})
    assert not (tmp_path / "b").exists()


def test_an_argument_a_saved_model_cannot_store_is_refused_by_name(tmp_path):
    @ag.function(autograph=False)
    def scaled(x, factor):
        return x * 2.0

    module = rt.Module()
    module.scaled = scaled
    scaled(rt.constant(1.0), object())
    with pytest.raises(SavedModelError, match="argument 'factor'.*traced with object"):
        rt.saved_model.save(module, str(tmp_path / "m"))
    assert not (tmp_path / "m").exists()


def test_an_object_naming_its_own_children_is_saved_by_them(tmp_path):
    class Holder:  # as rt.train.Checkpoint and optimizers name theirs
        def __init__(self, **children):
            self._children = children

        def _trackable_children(self):
            return sorted(self._children.items())

    inner = Scale(rt.Variable(5.0))
    inner(rt.constant(2.0))
    holder = Holder(model=inner, step=rt.Variable(3, trainable=False))
    loaded = _cycles(holder, tmp_path, 2)
    assert loaded.step.numpy() == 3
    assert loaded.model(rt.constant(2.0)).numpy() == inner(rt.constant(2.0)).numpy() == 10.0


@pytest.mark.parametrize("name", ["signatures", "_trackable_children"])
def test_an_attribute_a_loaded_object_uses_itself_is_refused_at_save(tmp_path, name):
    inner = rt.Module()
    setattr(inner, name, rt.Variable(1.0))
    outer = rt.Module()
    outer.inner = inner  # nested: every object of the tree is checked, not only the root
    with pytest.raises(SavedModelError, match=f"'{name}': a loaded object cannot take that name"):
        rt.saved_model.save(outer, str(tmp_path / "m"))
    assert not (tmp_path / "m").exists()


@pytest.mark.parametrize("cycles", [1, 2])
def test_tensor_and_numpy_defaults_are_saved_with_the_function(tmp_path, cycles):
    # TensorFlow's load_test.py test_function_with_defaults_input_tensor / _numpy: a default
    # beyond the call's arguments is saved and used by the loaded function.
    class Defaults(rt.Module):
        @ag.function(input_signature=[rt.TensorSpec([2], rt.float32)])
        def scaled(self, x=rt.constant([1.0, 2.0])):  # noqa: B008 (the default is the point)
            return 3.0 * x

        @ag.function(input_signature=[rt.TensorSpec([], rt.float32)])
        def shifted(self, x=np.array(5.0)):  # noqa: B008
            return x + 1.0

    loaded = _cycles(Defaults(), tmp_path, cycles)
    np.testing.assert_allclose(loaded.scaled().numpy(), [3.0, 6.0])
    np.testing.assert_allclose(loaded.scaled(rt.constant([2.0, 0.0])).numpy(), [6.0, 0.0])
    assert loaded.shifted().numpy() == 6.0
    assert loaded.shifted(np.array(2.0)).numpy() == 3.0  # float64 numpy, as TensorFlow converts


def test_a_function_returning_nothing_is_not_made_the_default_signature(tmp_path):
    # TensorFlow: "functions without outputs don't make sense as signatures" (the SavedModel
    # guide asserts that such a module saves with no signature at all).
    class Mutating(rt.Module):
        def __init__(self):
            super().__init__()
            self.v = rt.Variable(1.0)

        @ag.function(input_signature=[rt.TensorSpec([], rt.float32)])
        def mutate(self, new_v):
            self.v.assign(new_v)

    module = Mutating()
    module.mutate(rt.constant(2.0))
    rt.saved_model.save(module, str(tmp_path))
    loaded = rt.saved_model.load(str(tmp_path))
    assert len(loaded.signatures) == 0
    loaded.mutate(rt.constant(5.0))
    assert loaded.v.numpy() == 5.0
