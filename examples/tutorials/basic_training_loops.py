"""TensorFlow's guide "Basic training loops" (tensorflow.org/guide/basic_training_loops), its
code with this project's names (``tf.X`` is ``rt.X``, ``tf.keras`` is ``rt.keras``). Each
``== title ==`` is a part of the guide, its cells sharing the notebook's names as globals.
``tests/test_tutorials.py`` runs it.

Cells left out: the plots (``plt.plot``, ``plt.show``: matplotlib draws on a screen).
As in TensorFlow 2.21 (Keras 3), ``keras_model.save_weights("my_checkpoint")`` raises a
ValueError: Keras 3 saves weights only to a ``.weights.h5`` file. The program prints that
error and goes on, as the notebook's next cells do.

    python examples/tutorials/basic_training_loops.py
"""

import os
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "guides"))

from sections import main, section  # noqa: E402

import runtime as rt  # noqa: E402

SECTIONS = []
os.chdir(tempfile.mkdtemp(prefix="basic-training-loops-"))  # ours: files go to a new directory


@section(SECTIONS, "Data")
def data():
    global TRUE_W, TRUE_B, NUM_EXAMPLES, x, y, f
    # The actual line
    TRUE_W = 3.0
    TRUE_B = 2.0

    NUM_EXAMPLES = 201

    # A vector of random x values
    x = rt.linspace(-2, 2, NUM_EXAMPLES)
    x = rt.cast(x, rt.float32)

    def f(x):
        return x * TRUE_W + TRUE_B

    # Generate some noise
    noise = rt.random.normal(shape=[NUM_EXAMPLES])

    # Calculate y
    y = f(x) + noise


@section(SECTIONS, "Define the model")
def define_the_model():
    global MyModel, model

    class MyModel(rt.Module):
        def __init__(self, **kwargs):
            super().__init__(**kwargs)
            # Initialize the weights to `5.0` and the bias to `0.0`
            # In practice, these should be randomly initialized
            self.w = rt.Variable(5.0)
            self.b = rt.Variable(0.0)

        def __call__(self, x):
            return self.w * x + self.b

    model = MyModel()

    # List the variables tf.modules's built-in variable aggregation.
    print("Variables:", model.variables)

    # Verify the model works
    assert model(3.0).numpy() == 15.0


@section(SECTIONS, "Define a loss function")
def define_a_loss_function():
    global loss

    # This computes a single loss value for an entire batch
    def loss(target_y, predicted_y):
        return rt.reduce_mean(rt.square(target_y - predicted_y))

    print("Current loss: %1.6f" % loss(y, model(x)).numpy())


@section(SECTIONS, "Define a training loop")
def define_a_training_loop():
    global train, model, weights, biases, epochs, report, training_loop

    # Given a callable model, inputs, outputs, and a learning rate...
    def train(model, x, y, learning_rate):
        with rt.GradientTape() as t:
            # Trainable variables are automatically tracked by GradientTape
            current_loss = loss(y, model(x))

        # Use GradientTape to calculate the gradients with respect to W and b
        dw, db = t.gradient(current_loss, [model.w, model.b])

        # Subtract the gradient scaled by the learning rate
        model.w.assign_sub(learning_rate * dw)
        model.b.assign_sub(learning_rate * db)

    model = MyModel()

    # Collect the history of W-values and b-values to plot later
    weights = []
    biases = []
    epochs = range(10)

    # Define a training loop
    def report(model, loss):
        return f"W = {model.w.numpy():1.2f}, b = {model.b.numpy():1.2f}, loss={loss:2.5f}"

    def training_loop(model, x, y):
        for epoch in epochs:
            # Update the model with the single giant batch
            train(model, x, y, learning_rate=0.1)

            # Track this before I update
            weights.append(model.w.numpy())
            biases.append(model.b.numpy())
            current_loss = loss(y, model(x))

            print(f"Epoch {epoch:2d}:")
            print("    ", report(model, current_loss))

    current_loss = loss(y, model(x))

    print("Starting:")
    print("    ", report(model, current_loss))

    training_loop(model, x, y)

    print("Current loss: %1.6f" % loss(model(x), y).numpy())


@section(SECTIONS, "The same solution, but with Keras")
def the_same_solution_with_keras():
    global MyModelKeras

    class MyModelKeras(rt.keras.Model):
        def __init__(self, **kwargs):
            super().__init__(**kwargs)
            # Initialize the weights to `5.0` and the bias to `0.0`
            # In practice, these should be randomly initialized
            self.w = rt.Variable(5.0)
            self.b = rt.Variable(0.0)

        def call(self, x):
            return self.w * x + self.b

    keras_model = MyModelKeras()

    # Reuse the training loop with a Keras model
    training_loop(keras_model, x, y)

    # You can also save a checkpoint using Keras's built-in support
    keras_model.save_weights("my_checkpoint")


@section(SECTIONS, "Keras fit")
def keras_fit():
    keras_model = MyModelKeras()

    # compile sets the training parameters
    keras_model.compile(
        # By default, fit() uses tf.function().  You can
        # turn that off for debugging, but it is on now.
        run_eagerly=False,
        # Using a built-in optimizer, configuring as an object
        optimizer=rt.keras.optimizers.SGD(learning_rate=0.1),
        # Keras comes with built-in MSE error
        # However, you could use the loss function
        # defined above
        loss=rt.keras.losses.mean_squared_error,
    )

    print(x.shape[0])
    keras_model.fit(x, y, epochs=10, batch_size=1000)
    print("    ", report(keras_model, loss(y, keras_model(x))))  # ours: where fit left W and b


if __name__ == "__main__":
    main(SECTIONS)
