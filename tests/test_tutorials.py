"""TensorFlow's tutorials, run with this project's names (examples/tutorials/*.py): each part
runs, and what it prints says it trained: accuracies above chance on the stand-in digits
(``mnist_standin``: each class has its own pattern under the noise), the basic loop's line
found, ``fit`` reaching what the hand-written loop reaches.

Their numbers are random (initial weights, shuffles), so the checks are bounds, not texts; the
programs run on fewer digits than MNIST has (``MNIST_STANDIN_TRAIN``/``_TEST``), the same
shapes.
"""

import functools
import os
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PROGRAMS = ROOT / "examples" / "tutorials"


# How many training digits each program gets (12,000 unless named: the guide from scratch
# keeps 10,000 aside for validation and trains on the 2,000 left). The experts' conv model
# learns the stand-ins within an epoch of 3,000, and 12,000 take it a minute an epoch.
TRAINING_DIGITS = {"quickstart_experts": 3000}


@functools.cache
def run_tutorial(name, train=12000, test=600):
    """The tutorial's output, part by part: {title: text}."""
    result = subprocess.run(
        [sys.executable, str(PROGRAMS / f"{name}.py")],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
        env={
            **os.environ,
            "PYTHONPATH": str(ROOT),
            "MNIST_STANDIN_TRAIN": str(train),
            "MNIST_STANDIN_TEST": str(test),
        },
    )
    parts = re.split(r"^== (.+) ==\n", result.stdout, flags=re.MULTILINE)
    return dict(zip(parts[1::2], parts[2::2]))


def output(name):
    return run_tutorial(name, train=TRAINING_DIGITS.get(name, 12000))


def part(name, title):
    text = output(name)[title]
    assert "!! " not in text, text
    return text


def floats(pattern, text):
    return [float(value) for value in re.findall(pattern, text)]


def test_quickstart_for_beginners_trains_the_sequential_model():
    assert part("quickstart_beginner", "Set up TensorFlow").startswith("TensorFlow version: ")
    built = part("quickstart_beginner", "Build a machine learning model")
    assert built.count("array([[") == 2  # the logits and their softmax, one digit each
    trained = part("quickstart_beginner", "Train and evaluate your model")
    assert trained.count("Epoch ") == 5
    # evaluate's [loss, accuracy]: the last pair printed
    loss, accuracy = map(float, re.findall(r"\[([\d.e-]+), ([\d.e-]+)\]", trained)[-1])
    assert accuracy > 0.5 and loss < 2.0  # chance is 0.1, log(10) = 2.3
    assert "shape=(5, 10), dtype=float32" in trained  # the probability model's output


def test_quickstart_for_experts_trains_the_conv_model_with_its_own_steps():
    text = part("quickstart_experts", "Train and test")
    lines = re.findall(r"Epoch (\d), Loss: ([\d.]+), Accuracy: ([\d.]+), Test Loss: "
                       r"([\d.]+), Test Accuracy: ([\d.]+)", text)  # fmt: skip
    assert [int(epoch) for epoch, *_ in lines] == [1, 2, 3, 4, 5]
    assert float(lines[-1][4]) > 50.0 and float(lines[-1][1]) < float(lines[0][1])


def test_basic_training_loops_find_the_line_by_hand_and_with_fit():
    name = "basic_training_loops"
    assert part(name, "Define the model").startswith("Variables: (<rt.Variable")
    loop = part(name, "Define a training loop")
    reports = re.findall(r"W = ([\d.-]+), b = ([\d.-]+), loss=([\d.]+)", loop)
    assert len(reports) == 11  # the start, then ten epochs
    w, b, _ = map(float, reports[-1])
    assert abs(w - 3.0) < 0.5 and abs(b - 2.0) < 0.5
    # Keras 3 saves weights only to `.weights.h5` files: TensorFlow 2.21 raises here too.
    saving = output(name)["The same solution, but with Keras"]
    assert "!! ValueError: The filename must end in `.weights.h5`." in saving
    fitted = part(name, "Keras fit")
    # fit takes the same full-batch SGD steps as the hand-written loop: where it ends agrees.
    where_fit_ends = re.findall(r"W = ([\d.-]+), b = ([\d.-]+)", fitted)[-1]
    assert where_fit_ends == tuple(reports[-1][:2])


def test_training_loop_from_scratch_runs_every_part():
    name = "training_loop_from_scratch"
    first = part(name, "A first end-to-end example")
    assert first.count("Start of epoch") == 3 and "Training loss (for 1 batch) at step 0" in first
    for title in (
        "Low-level handling of metrics",
        "Speeding-up your training step with tf.function",
    ):
        accuracies = floats(r"Validation acc: ([\d.]+)", part(name, title))
        assert len(accuracies) == 2 and accuracies[-1] > 0.5
    losses = part(name, "Low-level handling of losses tracked by the model")
    assert floats(r"activity regularization: ([\d.]+)", losses)
    gan = part(name, "End-to-end example: a GAN training loop from scratch")
    assert 'Model: "discriminator"' in gan and "discriminator loss at step 0" in gan
