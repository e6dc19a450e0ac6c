"""The models of the ``.keras`` fixtures (fixtures/make_fixtures.py, written with real Keras),
made here with ``rt.keras``: the same layers, shapes and arguments, so that a file saved here
can be set beside the one Keras wrote."""

from __future__ import annotations

import numpy as np

import runtime as rt
from tests.runtime.keras.fixtures import fixture_models

MODELS = fixture_models.models(rt.keras)


def inputs_for(name, model, rng):
    """Three examples for each of ``model``'s inputs (token ids for the embedding)."""
    arrays = []
    for dims in _input_dims(model):
        shape = (3, *dims)
        if name == "embedding":
            arrays.append(rng.integers(0, 10, size=shape).astype("int32"))
        else:
            arrays.append(rng.normal(size=shape).astype("float32"))
    return arrays


def _input_dims(model):
    if getattr(model, "inputs", None):  # functional
        return [tuple(tensor.shape[1:]) for tensor in model.inputs]
    return [tuple(model.get_build_config()["input_shape"][1:])]  # a Sequential built by Input


def make(name, seed=0):
    """``(model, inputs)``: the fixture's model made here, its weights drawn away from their
    initial values (variances positive); ``dense_compiled`` compiled and fitted twice."""
    rt.keras.backend.clear_session()
    rng = np.random.default_rng(seed)
    model = MODELS[name]()
    for variable in model.weights:
        value = rng.normal(scale=0.5, size=tuple(variable.shape))
        if "variance" in variable.name:
            value = np.abs(value) + 0.5
        variable.assign(value.astype(variable.dtype.as_numpy_dtype))
    xs = inputs_for(name, model, rng)
    if name == "dense_compiled":
        model.compile(optimizer=rt.keras.optimizers.Adam(0.01), loss="mse", metrics=["mae"])
        model.fit(xs[0], np.ones((3, 1), "float32"), epochs=2, verbose=0)
    return model, xs[0] if len(xs) == 1 else xs
