"""TensorFlow's tutorial "TensorFlow 2 quickstart for beginners"
(tensorflow.org/tutorials/quickstart/beginner), its code with this project's names
(``tf.X`` is ``rt.X``, ``tf.keras`` is ``rt.keras``) and MNIST replaced by random digits
of the same shapes (``mnist_standin``). Each ``== title ==`` is a part of the tutorial, its
cells sharing the notebook's names as globals; a cell's last expression, which the notebook
shows, is printed with ``show``. ``tests/test_tutorials.py`` runs it.

    python examples/tutorials/quickstart_beginner.py
"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "guides"))

import mnist_standin  # noqa: E402
from sections import main, section, show  # noqa: E402

import runtime as rt  # noqa: E402

SECTIONS = []


@section(SECTIONS, "Set up TensorFlow")
def set_up():
    print("TensorFlow version:", rt.__version__)


@section(SECTIONS, "Load a dataset")
def load_a_dataset():
    global x_train, y_train, x_test, y_test
    mnist = mnist_standin  # tf.keras.datasets.mnist

    (x_train, y_train), (x_test, y_test) = mnist.load_data()
    x_train, x_test = x_train / 255.0, x_test / 255.0


@section(SECTIONS, "Build a machine learning model")
def build_a_model():
    global model, loss_fn
    model = rt.keras.models.Sequential(
        [
            rt.keras.layers.Flatten(input_shape=(28, 28)),
            rt.keras.layers.Dense(128, activation="relu"),
            rt.keras.layers.Dropout(0.2),
            rt.keras.layers.Dense(10),
        ]
    )

    predictions = model(x_train[:1]).numpy()
    show(predictions)

    show(rt.nn.softmax(predictions).numpy())

    loss_fn = rt.keras.losses.SparseCategoricalCrossentropy(from_logits=True)

    show(loss_fn(y_train[:1], predictions).numpy())

    model.compile(optimizer="adam", loss=loss_fn, metrics=["accuracy"])


@section(SECTIONS, "Train and evaluate your model")
def train_and_evaluate():
    show(model.fit(x_train, y_train, epochs=5))

    show(model.evaluate(x_test, y_test, verbose=2))

    probability_model = rt.keras.Sequential([model, rt.keras.layers.Softmax()])

    show(probability_model(x_test[:5]))


if __name__ == "__main__":
    main(SECTIONS)
