"""TensorFlow's guides, run with this project's names (examples/guides/*.py), print what
TensorFlow prints: each part of a guide is a test comparing its text with the guide's page.

Each expected text (tests/guides/) is the rendered guide's output (tensorflow.org/guide/
function, /intro_to_modules, /saved_model) with TensorFlow's names mapped to ours. A guide
runs once, as its notebook does (parts share names), and each part
is compared on its own (``examples/guides/sections.py`` prints a ``== title ==`` line before
each). Only stdout is compared: the notebook's stderr (the tracebacks ``assert_raises``
prints, TensorFlow's logged warnings) interleaves with it differently on every page.

Random values are normalised as ``tests/test_examples.normalise`` does (each entry of a
printed matrix becomes ``F``), and only in the parts that print random values (``RANDOM``);
there, the lines a loop prints once per iteration, which differ in number from run to run,
count once. A part marked ``xfail`` fails today for the reason given; when the feature
lands, the strict mark makes the test fail until the mark is removed.
"""

import functools
import os
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from tests.extras import import_extra
from tests.guides import Contains, Matches
from tests.guides import function as function_guide
from tests.guides import modules as modules_guide
from tests.guides import saved_model as saved_model_guide
from tests.test_examples import normalise

ROOT = Path(__file__).resolve().parent.parent
PROGRAMS = ROOT / "examples" / "guides"

# program -> (expected texts, xfail reasons, parts printing random values)
GUIDES = {
    "function": (function_guide.EXPECTED, function_guide.XFAIL, function_guide.RANDOM),
    "function_limitations": (function_guide.LIMITATIONS, function_guide.LIMITATIONS_XFAIL, set()),
    "modules": (modules_guide.EXPECTED, modules_guide.XFAIL, modules_guide.RANDOM),
    "saved_model": (saved_model_guide.EXPECTED, saved_model_guide.XFAIL, set()),
}
NEEDS = {  # the parts needing an optional extra
    ("modules", "Tracing the graph for TensorBoard"): "tensorboard",
    ("modules", "Saving Keras models"): "h5py",  # a .keras file
}


@functools.cache
def run_guide(name):
    """The guide's output, part by part: {title: text}."""
    result = subprocess.run(
        [sys.executable, str(PROGRAMS / f"{name}.py")],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "PYTHONPATH": str(ROOT)},  # this checkout's packages
    )
    parts = re.split(r"^== (.+) ==\n", result.stdout, flags=re.MULTILINE)
    return dict(zip(parts[1::2], parts[2::2]))


_FLOAT = re.compile(r"(?<![\w.])-?\d+\.\d*(?:e[+-]?\d+)?")


def normalise_random(text):
    """Every float becomes ``F`` (with the spaces that align it), as do the entries of a
    printed matrix; repeated lines (a loop's rows) count once."""
    text = re.sub(r" *F *", " F ", _FLOAT.sub("F", normalise(text)))
    lines = text.split("\n")
    return "\n".join(line for i, line in enumerate(lines) if i == 0 or line != lines[i - 1])


def cases():
    for guide, (expected, xfail, _) in GUIDES.items():
        for title in expected:
            marks = [pytest.mark.xfail(strict=True, reason=xfail[title])] if title in xfail else []
            yield pytest.param(guide, title, id=f"{guide}: {title}", marks=marks)


@pytest.mark.parametrize(("guide", "title"), list(cases()))
def test_guide_part_prints_what_tensorflow_prints(guide, title):
    if (guide, title) in NEEDS:
        import_extra(NEEDS[guide, title])
    expected, _, random_parts = GUIDES[guide]
    expected = expected[title]
    printed = run_guide(guide).get(title)
    assert printed is not None, f"the guide printed no part {title!r}"
    if isinstance(expected, (Contains, Matches)):
        assert expected.matches(printed), printed
        return
    if title in random_parts:
        printed, expected = normalise_random(printed), normalise_random(expected)
    assert printed == expected


@pytest.mark.parametrize("guide", list(GUIDES))
def test_every_part_of_the_guide_is_compared(guide):
    assert list(run_guide(guide)) == list(GUIDES[guide][0])


def numbers(text):
    return [float(f) for f in _FLOAT.findall(text)]


# The guide's claims that a restored model computes what the original did: "Should be the same
# result as above" (a checkpoint restored into a new module) and "will produce the same result
# when called on the same data" (a reloaded .keras file). The numbers the original printed
# (the first line of one part) against the restored model's (the last line of another).
SAME_RESULTS = [
    pytest.param(
        "modules",
        "Waiting to create variables",
        "Restoring weights",
        id="checkpoint",
    ),
    pytest.param(
        "modules",
        "Keras models",
        "Saving Keras models",
        id="keras file",
    ),
]


@pytest.mark.parametrize(("guide", "original", "restored"), SAME_RESULTS)
def test_a_restored_model_computes_what_the_original_did(guide, original, restored):
    if (guide, restored) in NEEDS:
        import_extra(NEEDS[guide, restored])
    parts = run_guide(guide)
    before = numbers(parts[original].split("\n")[0])
    after = numbers(parts[restored].rstrip("\n").split("\n")[-1])
    assert before, parts[original]
    np.testing.assert_allclose(after, before, rtol=1e-6)
