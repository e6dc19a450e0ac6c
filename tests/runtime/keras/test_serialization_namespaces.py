"""Each namespace's ``serialize``/``deserialize`` (initializers, regularizers, constraints,
activations, losses, metrics, optimizers, schedules) goes through the one serializer,
``rt.keras.saving.serialize_keras_object``: what it writes is what Keras 3 writes, and a
registered class of the user's comes back from its registered name, as in Keras."""

import pytest

import runtime as rt

keras = rt.keras


def _registered(base, name):
    """A subclass of ``base`` registered as ``Test>name``, made fresh for each test."""
    cls = type(name, (base,), {"__module__": __name__})
    return keras.saving.register_keras_serializable(package="Test")(cls)


@pytest.mark.parametrize(
    "namespace, base, args",
    [
        (keras.initializers, keras.initializers.Ones, ()),
        (keras.regularizers, keras.regularizers.L2, (0.5,)),
        (keras.constraints, keras.constraints.NonNeg, ()),
        (keras.losses, keras.losses.MeanSquaredError, ()),
        (keras.metrics, keras.metrics.Mean, ()),
    ],
)
def test_a_registered_class_of_the_users_round_trips_through_its_namespace(namespace, base, args):
    cls = _registered(base, f"My{base.__name__}")
    config = namespace.serialize(cls(*args))
    # What keras.saving.serialize_keras_object writes for a class of the user's.
    assert config["module"] == __name__
    assert config["registered_name"] == f"Test>My{base.__name__}"
    assert config == keras.saving.serialize_keras_object(cls(*args))
    assert type(namespace.deserialize(config)) is cls


@pytest.mark.parametrize(
    "namespace, obj, module",
    [
        (keras.initializers, keras.initializers.Zeros(), "keras.initializers"),
        (keras.regularizers, keras.regularizers.L1(0.1), "keras.regularizers"),
        (keras.constraints, keras.constraints.MaxNorm(2.0), "keras.constraints"),
        (keras.losses, keras.losses.Huber(), "keras.losses"),
        (keras.metrics, keras.metrics.AUC(), "keras.metrics"),
        (keras.optimizers, keras.optimizers.SGD(), "keras.optimizers"),
        (
            keras.optimizers.schedules,
            keras.optimizers.schedules.ExponentialDecay(0.1, 10, 0.9),
            "keras.optimizers.schedules",
        ),
    ],
)
def test_a_builtin_object_is_written_under_its_keras_module(namespace, obj, module):
    config = namespace.serialize(obj)
    assert (config["module"], config["class_name"], config["registered_name"]) == (
        module,
        type(obj).__name__,
        None,
    )
    assert config["config"] == obj.get_config()
    assert type(namespace.deserialize(config)) is type(obj)


def test_a_function_is_written_as_keras_writes_it():
    # keras.metrics.serialize(keras.metrics.mean_squared_error) in Keras 3.15.
    assert keras.metrics.serialize(keras.metrics.mean_squared_error) == {
        "module": "builtins",
        "class_name": "function",
        "config": "mean_squared_error",
        "registered_name": "function",
    }
    assert keras.activations.serialize(keras.activations.relu) == "relu"


def test_each_namespace_keeps_its_own_words_for_a_name_it_does_not_know():
    with pytest.raises(ValueError, match="Unknown loss function: 'Nope'"):
        keras.losses.deserialize({"class_name": "Nope", "config": {}})
    with pytest.raises(ValueError, match="Unknown metric function: 'nope'"):
        keras.metrics.deserialize({"class_name": "function", "config": "nope"})
    with pytest.raises(ValueError, match="Unknown learning rate schedule: 'Nope'"):
        keras.optimizers.schedules.deserialize({"class_name": "Nope", "config": {}})
    with pytest.raises(ValueError, match="Could not interpret optimizer identifier: 'Nope'"):
        keras.optimizers.deserialize({"class_name": "Nope", "config": {}})
    with pytest.raises(ValueError, match="Unknown regularizer: 'nope'"):
        keras.regularizers.get("nope")


def test_a_lambda_activation_is_refused_for_what_it_is():
    config = keras.saving.serialize_keras_object(lambda x: x)
    with pytest.raises(ValueError, match="Python lambda"):
        keras.activations.deserialize(config)
