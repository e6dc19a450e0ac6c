"""Keras's guide "Writing a training loop from scratch in TensorFlow" (keras.io/guides/
writing_a_custom_training_loop_in_tensorflow, TensorFlow's "Writing a training loop from
scratch"), its code with this project's names (``tf.X`` is ``rt.X``, ``keras`` is
``rt.keras``, ``tf.function`` is ``ag.function``) and MNIST replaced by random digits of
the same shapes (``mnist_standin``). Each ``== title ==`` is a part of the guide, its cells
sharing the guide's names as globals. ``tests/test_tutorials.py`` runs it.

Lines left out: the GAN's two lines saving a generated image with
``keras.utils.array_to_img`` (Pillow writes the PNG).

    python examples/tutorials/training_loop_from_scratch.py
"""

import os
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "guides"))

import mnist_standin  # noqa: E402
import numpy as np  # noqa: E402
from sections import main, section  # noqa: E402

import autograph as ag  # noqa: E402
import runtime as rt  # noqa: E402
from runtime import keras  # noqa: E402

SECTIONS = []
os.chdir(tempfile.mkdtemp(prefix="training-loop-"))  # ours: files go to a new directory


@section(SECTIONS, "A first end-to-end example")
def a_first_example():
    global get_model, batch_size, train_dataset, val_dataset

    def get_model():
        inputs = keras.Input(shape=(784,), name="digits")
        x1 = keras.layers.Dense(64, activation="relu")(inputs)
        x2 = keras.layers.Dense(64, activation="relu")(x1)
        outputs = keras.layers.Dense(10, name="predictions")(x2)
        model = keras.Model(inputs=inputs, outputs=outputs)
        return model

    model = get_model()

    # Instantiate an optimizer.
    optimizer = keras.optimizers.Adam(learning_rate=1e-3)
    # Instantiate a loss function.
    loss_fn = keras.losses.SparseCategoricalCrossentropy(from_logits=True)

    # Prepare the training dataset.
    batch_size = 32
    (x_train, y_train), (x_test, y_test) = mnist_standin.load_data()  # keras.datasets.mnist
    x_train = np.reshape(x_train, (-1, 784))
    x_test = np.reshape(x_test, (-1, 784))

    # Reserve 10,000 samples for validation.
    x_val = x_train[-10000:]
    y_val = y_train[-10000:]
    x_train = x_train[:-10000]
    y_train = y_train[:-10000]

    # Prepare the training dataset.
    train_dataset = rt.data.Dataset.from_tensor_slices((x_train, y_train))
    train_dataset = train_dataset.shuffle(buffer_size=1024).batch(batch_size)

    # Prepare the validation dataset.
    val_dataset = rt.data.Dataset.from_tensor_slices((x_val, y_val))
    val_dataset = val_dataset.batch(batch_size)

    epochs = 3
    for epoch in range(epochs):
        print(f"\nStart of epoch {epoch}")

        # Iterate over the batches of the dataset.
        for step, (x_batch_train, y_batch_train) in enumerate(train_dataset):
            # Open a GradientTape to record the operations run
            # during the forward pass, which enables auto-differentiation.
            with rt.GradientTape() as tape:
                # Run the forward pass of the layer.
                # The operations that the layer applies
                # to its inputs are going to be recorded
                # on the GradientTape.
                logits = model(x_batch_train, training=True)  # Logits for this minibatch

                # Compute the loss value for this minibatch.
                loss_value = loss_fn(y_batch_train, logits)

            # Use the gradient tape to automatically retrieve
            # the gradients of the trainable variables with respect to the loss.
            grads = tape.gradient(loss_value, model.trainable_weights)

            # Run one step of gradient descent by updating
            # the value of the variables to minimize the loss.
            optimizer.apply(grads, model.trainable_weights)

            # Log every 100 batches.
            if step % 100 == 0:
                print(f"Training loss (for 1 batch) at step {step}: {float(loss_value):.4f}")
                print(f"Seen so far: {(step + 1) * batch_size} samples")


@section(SECTIONS, "Low-level handling of metrics")
def low_level_metrics():
    global model, optimizer, loss_fn, train_acc_metric, val_acc_metric

    # Get a fresh model
    model = get_model()

    # Instantiate an optimizer to train the model.
    optimizer = keras.optimizers.Adam(learning_rate=1e-3)
    # Instantiate a loss function.
    loss_fn = keras.losses.SparseCategoricalCrossentropy(from_logits=True)

    # Prepare the metrics.
    train_acc_metric = keras.metrics.SparseCategoricalAccuracy()
    val_acc_metric = keras.metrics.SparseCategoricalAccuracy()

    epochs = 2
    for epoch in range(epochs):
        print(f"\nStart of epoch {epoch}")
        start_time = time.time()

        # Iterate over the batches of the dataset.
        for step, (x_batch_train, y_batch_train) in enumerate(train_dataset):
            with rt.GradientTape() as tape:
                logits = model(x_batch_train, training=True)
                loss_value = loss_fn(y_batch_train, logits)
            grads = tape.gradient(loss_value, model.trainable_weights)
            optimizer.apply(grads, model.trainable_weights)

            # Update training metric.
            train_acc_metric.update_state(y_batch_train, logits)

            # Log every 100 batches.
            if step % 100 == 0:
                print(f"Training loss (for 1 batch) at step {step}: {float(loss_value):.4f}")
                print(f"Seen so far: {(step + 1) * batch_size} samples")

        # Display metrics at the end of each epoch.
        train_acc = train_acc_metric.result()
        print(f"Training acc over epoch: {float(train_acc):.4f}")

        # Reset training metrics at the end of each epoch
        train_acc_metric.reset_state()

        # Run a validation loop at the end of each epoch.
        for x_batch_val, y_batch_val in val_dataset:
            val_logits = model(x_batch_val, training=False)
            # Update val metrics
            val_acc_metric.update_state(y_batch_val, val_logits)
        val_acc = val_acc_metric.result()
        val_acc_metric.reset_state()
        print(f"Validation acc: {float(val_acc):.4f}")
        print(f"Time taken: {time.time() - start_time:.2f}s")


@section(SECTIONS, "Speeding-up your training step with tf.function")
def speeding_up():
    @ag.function
    def train_step(x, y):
        with rt.GradientTape() as tape:
            logits = model(x, training=True)
            loss_value = loss_fn(y, logits)
        grads = tape.gradient(loss_value, model.trainable_weights)
        optimizer.apply(grads, model.trainable_weights)
        train_acc_metric.update_state(y, logits)
        return loss_value

    @ag.function
    def test_step(x, y):
        val_logits = model(x, training=False)
        val_acc_metric.update_state(y, val_logits)

    epochs = 2
    for epoch in range(epochs):
        print(f"\nStart of epoch {epoch}")
        start_time = time.time()

        # Iterate over the batches of the dataset.
        for step, (x_batch_train, y_batch_train) in enumerate(train_dataset):
            loss_value = train_step(x_batch_train, y_batch_train)

            # Log every 100 batches.
            if step % 100 == 0:
                print(f"Training loss (for 1 batch) at step {step}: {float(loss_value):.4f}")
                print(f"Seen so far: {(step + 1) * batch_size} samples")

        # Display metrics at the end of each epoch.
        train_acc = train_acc_metric.result()
        print(f"Training acc over epoch: {float(train_acc):.4f}")

        # Reset training metrics at the end of each epoch
        train_acc_metric.reset_state()

        # Run a validation loop at the end of each epoch.
        for x_batch_val, y_batch_val in val_dataset:
            test_step(x_batch_val, y_batch_val)

        val_acc = val_acc_metric.result()
        val_acc_metric.reset_state()
        print(f"Validation acc: {float(val_acc):.4f}")
        print(f"Time taken: {time.time() - start_time:.2f}s")


@section(SECTIONS, "Low-level handling of losses tracked by the model")
def losses_tracked_by_the_model():
    class ActivityRegularizationLayer(keras.layers.Layer):
        def call(self, inputs):
            self.add_loss(1e-2 * rt.reduce_sum(inputs))
            return inputs

    inputs = keras.Input(shape=(784,), name="digits")
    x = keras.layers.Dense(64, activation="relu")(inputs)
    # Insert activity regularization as a layer
    x = ActivityRegularizationLayer()(x)
    x = keras.layers.Dense(64, activation="relu")(x)
    outputs = keras.layers.Dense(10, name="predictions")(x)

    model = keras.Model(inputs=inputs, outputs=outputs)

    @ag.function
    def train_step(x, y):
        with rt.GradientTape() as tape:
            logits = model(x, training=True)
            loss_value = loss_fn(y, logits)
            # Add any extra losses created during the forward pass.
            loss_value += sum(model.losses)
        grads = tape.gradient(loss_value, model.trainable_weights)
        optimizer.apply(grads, model.trainable_weights)
        train_acc_metric.update_state(y, logits)
        return loss_value

    # ours: one step, to show the step runs (the guide only defines it)
    x_batch, y_batch = next(iter(train_dataset))
    print(f"Loss with the activity regularization: {float(train_step(x_batch, y_batch)):.4f}")


@section(SECTIONS, "End-to-end example: a GAN training loop from scratch")
def a_gan():
    discriminator = keras.Sequential(
        [
            keras.Input(shape=(28, 28, 1)),
            keras.layers.Conv2D(64, (3, 3), strides=(2, 2), padding="same"),
            keras.layers.LeakyReLU(negative_slope=0.2),
            keras.layers.Conv2D(128, (3, 3), strides=(2, 2), padding="same"),
            keras.layers.LeakyReLU(negative_slope=0.2),
            keras.layers.GlobalMaxPooling2D(),
            keras.layers.Dense(1),
        ],
        name="discriminator",
    )
    discriminator.summary()

    latent_dim = 128

    generator = keras.Sequential(
        [
            keras.Input(shape=(latent_dim,)),
            # We want to generate 128 coefficients to reshape into a 7x7x128 map
            keras.layers.Dense(7 * 7 * 128),
            keras.layers.LeakyReLU(negative_slope=0.2),
            keras.layers.Reshape((7, 7, 128)),
            keras.layers.Conv2DTranspose(128, (4, 4), strides=(2, 2), padding="same"),
            keras.layers.LeakyReLU(negative_slope=0.2),
            keras.layers.Conv2DTranspose(128, (4, 4), strides=(2, 2), padding="same"),
            keras.layers.LeakyReLU(negative_slope=0.2),
            keras.layers.Conv2D(1, (7, 7), padding="same", activation="sigmoid"),
        ],
        name="generator",
    )

    # Instantiate one optimizer for the discriminator and another for the generator.
    d_optimizer = keras.optimizers.Adam(learning_rate=0.0003)
    g_optimizer = keras.optimizers.Adam(learning_rate=0.0004)

    # Instantiate a loss function.
    loss_fn = keras.losses.BinaryCrossentropy(from_logits=True)

    @ag.function
    def train_step(real_images):
        # Sample random points in the latent space
        random_latent_vectors = rt.random.normal(shape=(batch_size, latent_dim))
        # Decode them to fake images
        generated_images = generator(random_latent_vectors)
        # Combine them with real images
        combined_images = rt.concat([generated_images, real_images], axis=0)

        # Assemble labels discriminating real from fake images
        labels = rt.concat([rt.ones((batch_size, 1)), rt.zeros((real_images.shape[0], 1))], axis=0)
        # Add random noise to the labels - important trick!
        labels += 0.05 * rt.random.uniform(labels.shape)

        # Train the discriminator
        with rt.GradientTape() as tape:
            predictions = discriminator(combined_images)
            d_loss = loss_fn(labels, predictions)
        grads = tape.gradient(d_loss, discriminator.trainable_weights)
        d_optimizer.apply(grads, discriminator.trainable_weights)

        # Sample random points in the latent space
        random_latent_vectors = rt.random.normal(shape=(batch_size, latent_dim))
        # Assemble labels that say "all real images"
        misleading_labels = rt.zeros((batch_size, 1))

        # Train the generator (note that we should *not* update the weights
        # of the discriminator)!
        with rt.GradientTape() as tape:
            predictions = discriminator(generator(random_latent_vectors))
            g_loss = loss_fn(misleading_labels, predictions)
        grads = tape.gradient(g_loss, generator.trainable_weights)
        g_optimizer.apply(grads, generator.trainable_weights)
        return d_loss, g_loss, generated_images

    # Prepare the dataset. We use both the training & test MNIST digits.
    batch_size = 64
    (x_train, _), (x_test, _) = mnist_standin.load_data()  # keras.datasets.mnist
    all_digits = np.concatenate([x_train, x_test])
    all_digits = all_digits.astype("float32") / 255.0
    all_digits = np.reshape(all_digits, (-1, 28, 28, 1))
    dataset = rt.data.Dataset.from_tensor_slices(all_digits)
    dataset = dataset.shuffle(buffer_size=1024).batch(batch_size)

    epochs = 1  # In practice you need at least 20 epochs to generate nice digits.

    for epoch in range(epochs):
        print(f"\nStart epoch {epoch}")

        for step, real_images in enumerate(dataset):
            # Train the discriminator & generator on one batch of real images.
            d_loss, g_loss, generated_images = train_step(real_images)

            # Logging.
            if step % 100 == 0:
                # Print metrics
                print(f"discriminator loss at step {step}: {d_loss:.2f}")
                print(f"adversarial loss at step {step}: {g_loss:.2f}")

            # To limit execution time we stop after 10 steps.
            # Remove the lines below to actually train the model!
            if step > 10:
                break


if __name__ == "__main__":
    main(SECTIONS)
