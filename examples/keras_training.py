"""Training end to end on synthetic data: a small classifier learns which quadrants of the
plane hold points labelled 1 (over 90% right on unseen points), first with its training step
traced into a graph, then run eagerly, op by op: the same seed gives the same epochs both
ways. A saved model predicts as the trained one.

    python examples/keras_training.py
"""

import tempfile

import numpy as np

import runtime as rt


def quadrants(n, seed):
    """Points of the plane, labelled 1 where x * y > 0: no straight line separates them."""
    x = np.random.default_rng(seed).normal(size=(n, 2)).astype(np.float32)
    return x, (x[:, 0] * x[:, 1] > 0).astype(np.int32)


def classifier():
    return rt.keras.Sequential(
        [
            rt.keras.layers.Dense(16, activation="relu", input_shape=(2,)),
            rt.keras.layers.Dense(16, activation="relu"),
            rt.keras.layers.Dense(2),
        ]
    )


x_train, y_train = quadrants(512, seed=0)
x_test, y_test = quadrants(256, seed=1)

histories = []
for run_eagerly in (False, True):
    rt.keras.backend.clear_session()
    rt.random.set_seed(0)
    model = classifier()
    model.compile(
        optimizer=rt.keras.optimizers.Adam(0.01),
        loss=rt.keras.losses.SparseCategoricalCrossentropy(from_logits=True),
        metrics=["accuracy"],
        run_eagerly=run_eagerly,
    )
    print(f"== run_eagerly={run_eagerly} ==")
    history = model.fit(x_train, y_train, batch_size=64, epochs=10, verbose=2)
    loss, accuracy = model.evaluate(x_test, y_test, verbose=0)
    print(f"test accuracy above 90%: {accuracy > 0.9}")
    histories.append(history.history)

same = all(np.allclose(histories[0][k], histories[1][k], rtol=1e-4) for k in histories[0])
print("graph and eager training give the same epochs:", same)

model.summary()
path = tempfile.mkdtemp(prefix="quadrants_")
rt.saved_model.save(model, path)
loaded = rt.saved_model.load(path)
# predict runs batches of 32, the loaded model all rows at once: BLAS may block the two
# products differently, so they agree to float32's rounding, not bit for bit.
same = np.allclose(loaded(x_test).numpy(), model.predict(x_test), rtol=1e-5, atol=1e-5)
print("saved model predicts the same:", same)
