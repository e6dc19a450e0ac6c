"""TensorFlow's tutorial "TensorFlow 2 quickstart for experts"
(tensorflow.org/tutorials/quickstart/advanced), its code with this project's names
(``tf.X`` is ``rt.X``, ``tf.keras`` is ``rt.keras``, ``tf.function`` is ``ag.function``)
and MNIST replaced by random digits of the same shapes (``mnist_standin``). Each
``== title ==`` is a part of the tutorial, its cells sharing the notebook's names as
globals. ``tests/test_tutorials.py`` runs it.

    python examples/tutorials/quickstart_experts.py
"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "guides"))

import mnist_standin  # noqa: E402
from sections import main, section  # noqa: E402

import autograph as ag  # noqa: E402
import runtime as rt  # noqa: E402
from runtime.keras import Model  # noqa: E402
from runtime.keras.layers import Conv2D, Dense, Flatten  # noqa: E402

SECTIONS = []


@section(SECTIONS, "Set up TensorFlow")
def set_up():
    print("TensorFlow version:", rt.__version__)


@section(SECTIONS, "Load and prepare the MNIST dataset")
def load_and_prepare():
    global train_ds, test_ds
    mnist = mnist_standin  # tf.keras.datasets.mnist

    (x_train, y_train), (x_test, y_test) = mnist.load_data()
    x_train, x_test = x_train / 255.0, x_test / 255.0

    # Add a channels dimension
    x_train = x_train[..., rt.newaxis].astype("float32")
    x_test = x_test[..., rt.newaxis].astype("float32")

    train_ds = rt.data.Dataset.from_tensor_slices((x_train, y_train)).shuffle(10000).batch(32)

    test_ds = rt.data.Dataset.from_tensor_slices((x_test, y_test)).batch(32)


@section(SECTIONS, "Build the model")
def build_the_model():
    global model, loss_object, optimizer
    global train_loss, train_accuracy, test_loss, test_accuracy, train_step, test_step

    class MyModel(Model):
        def __init__(self):
            super().__init__()
            self.conv1 = Conv2D(32, 3, activation="relu")
            self.flatten = Flatten()
            self.d1 = Dense(128, activation="relu")
            self.d2 = Dense(10)

        def call(self, x):
            x = self.conv1(x)
            x = self.flatten(x)
            x = self.d1(x)
            return self.d2(x)

    # Create an instance of the model
    model = MyModel()

    loss_object = rt.keras.losses.SparseCategoricalCrossentropy(from_logits=True)

    optimizer = rt.keras.optimizers.Adam()

    train_loss = rt.keras.metrics.Mean(name="train_loss")
    train_accuracy = rt.keras.metrics.SparseCategoricalAccuracy(name="train_accuracy")

    test_loss = rt.keras.metrics.Mean(name="test_loss")
    test_accuracy = rt.keras.metrics.SparseCategoricalAccuracy(name="test_accuracy")

    @ag.function
    def train_step(images, labels):
        with rt.GradientTape() as tape:
            # training=True is only needed if there are layers with different
            # behavior during training versus inference (e.g. Dropout).
            predictions = model(images, training=True)
            loss = loss_object(labels, predictions)
        gradients = tape.gradient(loss, model.trainable_variables)
        optimizer.apply_gradients(zip(gradients, model.trainable_variables))

        train_loss(loss)
        train_accuracy(labels, predictions)

    @ag.function
    def test_step(images, labels):
        # training=False is only needed if there are layers with different
        # behavior during training versus inference (e.g. Dropout).
        predictions = model(images, training=False)
        t_loss = loss_object(labels, predictions)

        test_loss(t_loss)
        test_accuracy(labels, predictions)


@section(SECTIONS, "Train and test")
def train_and_test():
    EPOCHS = 5

    for epoch in range(EPOCHS):
        # Reset the metrics at the start of the next epoch
        train_loss.reset_state()
        train_accuracy.reset_state()
        test_loss.reset_state()
        test_accuracy.reset_state()

        for images, labels in train_ds:
            train_step(images, labels)

        for test_images, test_labels in test_ds:
            test_step(test_images, test_labels)

        print(
            f"Epoch {epoch + 1}, "
            f"Loss: {train_loss.result():0.2f}, "
            f"Accuracy: {train_accuracy.result() * 100:0.2f}, "
            f"Test Loss: {test_loss.result():0.2f}, "
            f"Test Accuracy: {test_accuracy.result() * 100:0.2f}"
        )


if __name__ == "__main__":
    main(SECTIONS)
