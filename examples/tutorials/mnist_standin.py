"""A stand-in for ``keras.datasets.mnist``, which the tutorials download: random digits of
MNIST's shapes and dtypes (``uint8`` images of 28x28, ``uint8`` labels 0-9; 60,000 for
training and 10,000 for testing). Each class's images share a random pattern under the
noise, so a model can learn them and the tutorials' accuracies mean something.

``MNIST_STANDIN_TRAIN`` and ``MNIST_STANDIN_TEST`` set smaller counts (tests use them).
"""

import os

import numpy as np


def load_data():
    """``(x_train, y_train), (x_test, y_test)``, as ``keras.datasets.mnist.load_data()``."""
    rng = np.random.default_rng(0)
    patterns = rng.integers(0, 256, size=(10, 28, 28))

    def digits(count):
        labels = rng.integers(0, 10, size=count).astype(np.uint8)
        noise = rng.integers(0, 256, size=(count, 28, 28))
        return ((patterns[labels] + 3 * noise) // 4).astype(np.uint8), labels

    train = digits(int(os.environ.get("MNIST_STANDIN_TRAIN", 60000)))
    test = digits(int(os.environ.get("MNIST_STANDIN_TEST", 10000)))
    return train, test
