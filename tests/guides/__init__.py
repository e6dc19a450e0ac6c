"""What TensorFlow prints for each part of its guides, with TensorFlow's names mapped to
ours: ``tf.Tensor(...)`` -> ``rt.Tensor(...)``, ``dtype=tf.float32`` -> ``dtype=rt.float32``,
``tensorflow.python.framework.errors_impl`` -> ``runtime.errors``, ``tf.function`` ->
``ag.function``. One module a guide: ``EXPECTED`` (each part's printed text, in the order the
program prints them), ``XFAIL`` (the parts that fail today, with why), ``RANDOM`` (the parts
printing random values). tests/test_guides.py compares them.
"""

import re


class Contains:
    """An expected text of which only TensorFlow's own words are compared: the part printed
    starts with ``start`` and holds ``words``."""

    def __init__(self, start, words):
        self.start, self.words = start, words

    def matches(self, printed):
        return printed.startswith(self.start) and self.words in printed


class Matches:
    """An expected text that varies where TensorFlow's is not available to compare (a random
    stand-in for a download): the part printed matches ``pattern`` whole."""

    def __init__(self, pattern):
        self.pattern = re.compile(pattern)

    def matches(self, printed):
        return self.pattern.fullmatch(printed) is not None


def caught(error_class):
    """What the guides' ``assert_raises`` prints to stdout for a caught exception."""
    return f"Caught expected exception \n  <class '{error_class}'>:\n"


NO_SAVE_TRACE = (
    "saving does not trace a signature's function again (TensorFlow traces it once more as it "
    "saves, so the guide shows one more 'Tracing with' line)"
)
