"""The models of the ``.keras`` fixtures (fixtures/make_fixtures.py, written with real Keras),
made here with ``rt.keras``: the same layers, shapes and arguments, so that a file saved here
can be set beside the one Keras wrote."""

from __future__ import annotations

import numpy as np

import runtime as rt

layers = rt.keras.layers


def sequential(input_shape, *stack):
    return rt.keras.Sequential([rt.keras.Input(input_shape), *stack])


def functional_merge():
    a, b = rt.keras.Input((3,)), rt.keras.Input((3,))
    joined = layers.Concatenate()([layers.Dense(4)(a), b])
    added = layers.Add()([layers.Dense(3)(joined), a])
    return rt.keras.Model([a, b], layers.Dense(2)(added))


MODELS = {
    "dense": lambda: sequential((4,), layers.Dense(3, activation="relu"), layers.Dense(2)),
    "dense_compiled": lambda: sequential((4,), layers.Dense(3, activation="tanh"), layers.Dense(1)),
    "dropout_flatten_activation": lambda: sequential(
        (2, 3), layers.Flatten(), layers.Dropout(0.5), layers.Dense(3), layers.Activation("tanh")
    ),
    "functional_merge": functional_merge,
    "embedding": lambda: sequential((5,), layers.Embedding(10, 4), layers.Flatten()),
    "conv1d": lambda: sequential((8, 3), layers.Conv1D(4, 3, activation="relu")),
    "conv2d_pooling": lambda: sequential(
        (8, 8, 2),
        layers.Conv2D(3, (3, 3), padding="same"),
        layers.MaxPooling2D(),
        layers.AveragePooling2D(pool_size=2),
        layers.GlobalAveragePooling2D(),
    ),
    "batch_normalization": lambda: sequential((4,), layers.BatchNormalization()),
    "layer_normalization": lambda: sequential((3, 4), layers.LayerNormalization()),
    "simple_rnn": lambda: sequential((5, 3), layers.SimpleRNN(4)),
    "lstm": lambda: sequential((5, 3), layers.LSTM(4, return_sequences=True)),
    "gru": lambda: sequential((5, 3), layers.GRU(4)),
    "reshape": lambda: sequential((6,), layers.Reshape((2, 3)), layers.Dense(2)),
    "activation_layers": lambda: sequential(
        (4,),
        layers.Dense(4),
        layers.ReLU(),
        layers.Dense(4),
        layers.LeakyReLU(negative_slope=0.2),
        layers.Dense(4),
        layers.ELU(),
        layers.Dense(4),
        layers.PReLU(),
        layers.Dense(3),
        layers.Softmax(),
    ),
}


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
