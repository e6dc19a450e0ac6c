"""A Function traced with a variable argument (TensorFlow's VariableSpec) in a saved object: that
concrete function is left out with a logged warning, the rest of the object saves and loads."""

from __future__ import annotations

import logging

import numpy as np

import autograph as ag
import runtime as rt


class _Model(rt.Module):
    def __init__(self):
        super().__init__()
        self.v = rt.Variable(3.0)

    @ag.function
    def read(self, var):
        return var.read_value() * 2.0

    @ag.function
    def scale(self, x):
        return self.v * x


def test_a_function_traced_with_a_variable_argument_is_left_out_with_a_warning(tmp_path, caplog):
    model = _Model()
    model.read(model.v)
    model.scale(rt.constant(2.0))
    with caplog.at_level(logging.WARNING, logger="runtime"):
        rt.saved_model.save(model, str(tmp_path))
    assert any("traced with a variable argument" in r.getMessage() for r in caplog.records)
    loaded = rt.saved_model.load(str(tmp_path))
    np.testing.assert_allclose(loaded.scale(rt.constant(2.0)).numpy(), 6.0)
    np.testing.assert_allclose(loaded.v.numpy(), 3.0)
