"""rt.config, TensorFlow's tf.config for a host with one CPU and no GPU."""

import pytest

import autograph as ag
import runtime as rt


def test_the_devices_are_the_cpu():
    assert [d.device_type for d in rt.config.list_physical_devices()] == ["CPU"]
    assert rt.config.list_physical_devices("GPU") == []
    assert rt.config.experimental.list_physical_devices("gpu") == []
    assert rt.config.list_logical_devices("CPU")[0].name == "/device:CPU:0"


def test_memory_growth_is_for_gpus_only():
    cpu = rt.config.list_physical_devices("CPU")[0]
    with pytest.raises(ValueError, match="non-GPU"):
        rt.config.experimental.set_memory_growth(cpu, True)


def test_run_functions_eagerly_is_the_switch_ag_has():
    traced = []

    @ag.function
    def f(x):
        traced.append(rt.executing_eagerly())
        return x

    rt.config.run_functions_eagerly(True)
    try:
        assert ag.functions_run_eagerly() and rt.config.functions_run_eagerly()
        f(rt.constant(1))
    finally:
        rt.config.run_functions_eagerly(False)
    assert not ag.functions_run_eagerly()
    f(rt.constant(1))
    assert traced == [True, False]
