"""A stand-in for ``keras.datasets.mnist``, which the tutorials download: random digits of
MNIST's shapes and dtypes (``uint8`` images of 28x28, ``uint8`` labels 0-9; 60,000 for
training and 10,000 for testing). As in MNIST most pixels are 0 and a digit's strokes are
bright: each class has its own random strokes (a fifth of the pixels), drawn at a random
brightness, some of them missing, with a few stray pixels, so a model can learn the classes
and the tutorials' accuracies mean something.

``MNIST_STANDIN_TRAIN`` and ``MNIST_STANDIN_TEST`` set smaller counts (tests use them).
"""

import os

import numpy as np


def load_data():
    """``(x_train, y_train), (x_test, y_test)``, as ``keras.datasets.mnist.load_data()``."""
    rng = np.random.default_rng(0)
    strokes = rng.random(size=(10, 28, 28)) < 0.2

    def digits(count):
        labels = rng.integers(0, 10, size=count).astype(np.uint8)
        kept = strokes[labels] & (rng.random(size=(count, 28, 28)) < 0.8)
        stray = rng.random(size=(count, 28, 28)) < 0.03
        brightness = rng.uniform(0.5, 1.0, size=(count, 1, 1)) * 255
        return ((kept | stray) * brightness).astype(np.uint8), labels

    train = digits(int(os.environ.get("MNIST_STANDIN_TRAIN", 60000)))
    test = digits(int(os.environ.get("MNIST_STANDIN_TEST", 10000)))
    return train, test
