"""What the ported Keras 3 tests need of ``keras.src.testing`` and ``absl`` parameterized,
written for ``rt.keras``: a ``TestCase`` with Keras' assertions (tensors compared by value,
floats to a tolerance) and ``parameters``/``named_parameters`` expanded into test methods."""

from __future__ import annotations

import unittest

import numpy as np
import pytest

import runtime as rt


def as_numpy(value):
    """A tensor, variable, list or number as a numpy array."""
    if hasattr(value, "numpy"):
        return np.asarray(value.numpy())
    if isinstance(value, (list, tuple)):
        return np.asarray([as_numpy(v) for v in value])
    return np.asarray(value)


class TestCase(unittest.TestCase):
    """``keras.src.testing.TestCase``'s assertions, for rt tensors."""

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        for name, method in list(vars(cls).items()):
            cases = getattr(method, "_parameter_cases", None)
            if cases is None:
                continue
            delattr(cls, name)
            for suffix, args, kwargs_ in cases:
                setattr(cls, f"{name}_{suffix}", _bound_case(method, args, kwargs_))

    def assertAllClose(self, x1, x2, atol=1e-6, rtol=1e-6, msg=None):
        np.testing.assert_allclose(
            as_numpy(x1), as_numpy(x2), atol=atol, rtol=rtol, err_msg=msg or ""
        )

    def assertAllEqual(self, x1, x2, msg=None):
        np.testing.assert_array_equal(as_numpy(x1), as_numpy(x2), err_msg=msg or "")

    def assertAlmostEqual(self, first, second, places=None, msg=None, delta=None):
        first, second = as_numpy(first), as_numpy(second)
        if first.size == 1 and second.size == 1:
            first, second = first.item(), second.item()
            super().assertAlmostEqual(first, second, places=places, msg=msg, delta=delta)
        else:  # TensorFlow tensors compare element by element
            atol = delta if delta is not None else 0.5 * 10 ** -(7 if places is None else places)
            np.testing.assert_allclose(first, second, rtol=0, atol=atol, err_msg=msg or "")

    def assertLen(self, iterable, expected_len, msg=None):
        self.assertEqual(len(iterable), expected_len, msg=msg)

    def assertDType(self, x, dtype, msg=None):
        found = getattr(x, "dtype", None)
        found = getattr(found, "name", found)
        self.assertEqual(str(found), str(dtype), msg=msg)

    def run_class_serialization_test(self, instance, custom_objects=None):
        """``from_config(get_config())`` rebuilds an object with the same config, and so does
        ``rt.keras.metrics.deserialize(serialize(...))`` for a metric."""
        config = instance.get_config()
        revived = type(instance).from_config(config)
        self.assertEqual(revived.get_config(), config)
        if isinstance(instance, rt.keras.metrics.Metric):
            serialized = rt.keras.metrics.serialize(instance)
            again = rt.keras.metrics.deserialize(serialized, custom_objects=custom_objects)
            self.assertEqual(again.get_config(), config)
        return revived


def _bound_case(method, args, kwargs):
    def case(self):
        return method(self, *args, **kwargs)

    case.__name__ = method.__name__
    return case


def parameters(*cases):
    """absl's ``parameterized.parameters``: one test per case (a tuple of arguments, a dict of
    keyword arguments, or one argument)."""

    if len(cases) == 1 and isinstance(cases[0], list):  # absl: one list is the list of cases
        cases = tuple(cases[0])

    def mark(method):
        expanded = []
        for index, case in enumerate(cases):
            if isinstance(case, dict):
                expanded.append((str(index), (), case))
            elif isinstance(case, (tuple, list)):
                expanded.append((str(index), tuple(case), {}))
            else:
                expanded.append((str(index), (case,), {}))
        method._parameter_cases = expanded
        return method

    return mark


def named_parameters(*cases):
    """absl's ``parameterized.named_parameters``: dicts with ``testcase_name``, or tuples whose
    first item is the name."""

    def mark(method):
        expanded = []
        for case in cases:
            if isinstance(case, dict):
                case = dict(case)
                expanded.append((case.pop("testcase_name"), (), case))
            else:
                expanded.append((case[0], tuple(case[1:]), {}))
        method._parameter_cases = expanded
        return method

    return mark


class parameterized:  # noqa: N801 - absl's module name, as the ported tests spell it
    parameters = staticmethod(parameters)
    named_parameters = staticmethod(named_parameters)
    TestCase = TestCase


class ops:  # noqa: N801 - keras.ops, the few the ported tests call
    @staticmethod
    def transpose(x):
        return rt.transpose(rt.convert_to_tensor(x))

    @staticmethod
    def one_hot(x, num_classes):
        return rt.one_hot(rt.convert_to_tensor(x), num_classes)

    @staticmethod
    def cast(x, dtype):
        return rt.cast(rt.convert_to_tensor(x), dtype)

    @staticmethod
    def convert_to_tensor(x, dtype=None):
        x = rt.convert_to_tensor(x)
        return x if dtype is None else rt.cast(x, dtype)  # keras.ops casts

    @staticmethod
    def mean(x, axis=None):
        return rt.reduce_mean(rt.convert_to_tensor(x), axis=axis)

    @staticmethod
    def square(x):
        return rt.square(rt.convert_to_tensor(x))

    @staticmethod
    def log(x):
        return rt.math.log(rt.convert_to_tensor(x))

    @staticmethod
    def sum(x, axis=None):
        return rt.reduce_sum(rt.convert_to_tensor(x), axis=axis)

    @staticmethod
    def shape(x):
        return tuple(rt.convert_to_tensor(x).shape.as_list())

    @staticmethod
    def ones(shape, dtype="float32"):
        return rt.ones(shape, dtype=dtype)

    @staticmethod
    def array(x, dtype=None):
        return rt.convert_to_tensor(np.asarray(x, dtype=dtype))


class backend:  # noqa: N801 - keras.backend, what the ported tests call
    floatx = staticmethod(rt.keras.backend.floatx)
    epsilon = staticmethod(rt.keras.backend.epsilon)
    Variable = staticmethod(rt.Variable)

    @staticmethod
    def backend():
        return "tensorflow"  # the backend whose behaviour rt.keras follows

    @staticmethod
    def set_floatx(value):
        if value != rt.keras.backend.floatx():
            raise NotImplementedError("rt.keras keeps floatx float32")

    @staticmethod
    def KerasTensor(shape, dtype="float32"):  # noqa: N802
        return KerasTensor(shape, dtype)

    @staticmethod
    def compute_output_spec(fn, *args, **kwargs):
        raise NotImplementedError("rt.keras has no backend.compute_output_spec")


KerasTensor = rt.keras.KerasTensor
register_keras_serializable = rt.keras.saving.register_keras_serializable


class dtype_policies:  # noqa: N801 - rt.keras has no mixed-precision policies
    class dtype_policy:  # noqa: N801
        @staticmethod
        def dtype_policy():
            return None

        @staticmethod
        def set_dtype_policy(policy):
            if policy is not None:
                raise NotImplementedError("rt.keras has no dtype policies")

    @staticmethod
    def DTypePolicy(name):  # noqa: N802
        raise NotImplementedError("rt.keras has no dtype policies")


class metrics_utils:  # noqa: N801 - the enums the AUC tests compare with
    AUCCurve = rt.keras.metrics.auc.AUCCurve
    AUCSummationMethod = rt.keras.metrics.auc.AUCSummationMethod


def xfail(cls, method_name, reason):
    """Marks a ported case that rt.keras does not pass yet: strict, so it is noticed when it
    starts passing."""
    method = getattr(cls, method_name)
    setattr(cls, method_name, pytest.mark.xfail(reason=reason, strict=True)(method))


NO_SYMBOLIC = (
    "rt.keras has no backend.compute_output_spec (running a metric on symbolic KerasTensors)"
)
NO_DTYPE_POLICY = "rt.keras has no mixed-precision dtype policies (issue 31)"
TF_VARIABLE_NAMES = (
    "rt.Variable is named as TensorFlow names it (`precision/true_positives:0`), not by Keras 3's "
    "short name"
)
