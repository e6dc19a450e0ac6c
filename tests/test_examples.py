"""Run every seed-gallery script in examples/ and compare its whole stdout with the seed.

Each expected text is what the seed's TensorFlow program prints (seeds in
../shared/seeds), with TensorFlow's names mapped to ours: ``tf.Tensor(...)`` ->
``rt.Tensor(...)``, ``<tf.Tensor: id=113, shape=...>`` -> ``<rt.Tensor: shape=...>``
(the ``id=`` field of TF 2.0's repr is gone in later TensorFlow and in ours),
``tf.function``/``tf.Variable`` -> ``ag.function``/``rt.Variable``. Lines the
scripts add to label their output (``>>> ...``, ``== Rule 1 ... ==``) and
texts the seed does not show (error messages, ``ag.to_code``, reprs) are ours.

Only object addresses, random numbers, times and dates may differ between runs;
``normalise`` replaces them before comparing (a Keras progress line keeps its layout, its
times become ``T`` and its logged values ``V``). Everything else is behaviour: a difference
is a bug.
"""

import os
import platform
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from tests.extras import import_extra

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples"

# A line of a printed float matrix: tf.print's "[[1.5 -0.2 ...]" / " [0.3 ...]" or
# numpy's repr "array([[ 1.5, -0.2, ...]," / "       [ 0.3, ...]".
_WRAPPED_ROW = re.compile(r"(\[[^\]\n]*,)\n\s+(?=-?\d)")
_MATRIX_LINE = re.compile(r"^\s*(?:array\()?\[+ *-?\d")
_NUMBER = re.compile(r"(?<![A-Za-z_\d.]) *-?\d+(?:\.\d*)?(?:e[+-]?\d+)? *")  # not a dtype's bits


# Keras' progress lines: "2/2 [====] - 0s 2ms/step - loss: 1.8311", "8/8 - 0s - loss: ...".
_STEP_TIME = re.compile(r" - \d+s( \d+(?:us|ms|s)/step)?")
_LOGGED = re.compile(r"(\b(?:val_)?(?:loss|accuracy|mae): )-?\d+\.\d+(?:e[+-]\d+)?")
_DATETIME = re.compile(r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d(?:\.\d+)?")
_SECONDS = re.compile(r"((?:Eager|Graph) time: )\d+\.\d+(?:e[+-]\d+)?")


def normalise(text):
    """Replaces object addresses with 0x?, each random matrix entry with `` F``, times and
    dates with ``T``, and the values of Keras' logs with ``V``."""
    text = re.sub(r"0x[0-9a-fA-F]+", "0x?", text)
    # numpy wraps a row whose numbers print in scientific notation (wider): join it again.
    text = _WRAPPED_ROW.sub(r"\1 ", text)
    text = _STEP_TIME.sub(lambda m: " - Ts" + (" T/step" if m.group(1) else ""), text)
    text = _SECONDS.sub(r"\1T", _DATETIME.sub("T", _LOGGED.sub(r"\1V", text)))
    lines = [
        _NUMBER.sub(" F", line) if _MATRIX_LINE.match(line) else line for line in text.split("\n")
    ]
    return "\n".join(lines)


EXPECTED = {
    # Seed 000, "普通动态计算图" then "动态计算图封装": tf.print(z), then strjoin's
    # tf.print and print(result).
    "eager_strings": """\
hello world
hello world
rt.Tensor(b'hello world', shape=(), dtype=string)
""",
    # Seed 000, "AutoGraph 示例".
    "strjoin_function": """\
hello world
rt.Tensor(b'hello world', shape=(), dtype=string)
""",
    # Seeds 000 and 003, "AutoGraph 使用规范". Rule 1: the numpy array is frozen at trace
    # time, so both calls print the same numbers; tf.random.normal is an op, new numbers
    # each call. The seeds' TensorFlow printed the numpy array with numpy's repr
    # ("array([[ 0.44740285, ...]])"); TensorFlow today, and rt.print, print it as a tensor. The "printed the same"
    # lines are the script's; so are print's and rt.print's lines, which show what the rule's
    # text says (print once, while tracing, the symbolic tensor; tf.print on every call), as
    # TensorFlow prints it. Rule 2: 2, 3 and the notebook's echo of the result; the
    # error line is ours (the seed only says it raises). Rule 3: as printed in seed 003.
    "coding_rules": """\
== Rule 1: use runtime ops, not numpy, inside ag.function ==
[[ F F F]
 [ F F F]
 [ F F F]]
[[ F F F]
 [ F F F]
 [ F F F]]
np_random printed the same matrix twice: True
[[ F F F]
 [ F F F]
 [ F F F]]
[[ F F F]
 [ F F F]
 [ F F F]]
tf_random printed the same matrix twice: False
Tensor("x:0", shape=(), dtype=float32)
1
2
== Rule 2: create rt.Variable outside ag.function ==
2
3
<rt.Tensor: shape=(), dtype=float32, numpy=3.0>
ValueError: ag.function only supports singleton rt.Variables created on the first call: \
inner_var creates one on a later trace. Make sure the rt.Variable is only created once, \
or create it outside the function.
== Rule 3: do not modify outer Python lists inside ag.function ==
[<rt.Tensor: shape=(), dtype=float32, numpy=5.0>, <rt.Tensor: shape=(), dtype=float32, numpy=6.0>]
5.0
rt.Tensor(5.0, shape=(), dtype=float32)
6.0
rt.Tensor(6.0, shape=(), dtype=float32)
[<rt.Tensor 'x:0' shape=() dtype=float32>]
1
""",
    # Seeds 000, 002 and 003, "AutoGraph 机制原理": tracing 0 1 2 / 0 1 2 / tracing 0 1 2 /
    # tracing 0 1 2 twice; the returned tensors are seed 003's notebook echoes.
    "tracing_myadd": """\
>>> myadd(rt.constant("hello"), rt.constant("world"))
tracing
0
1
2
<rt.Tensor: shape=(), dtype=string, numpy=b'helloworld'>
>>> myadd(rt.constant("good"), rt.constant("morning"))
0
1
2
<rt.Tensor: shape=(), dtype=string, numpy=b'goodmorning'>
>>> myadd(rt.constant(1), rt.constant(2))
tracing
0
1
2
<rt.Tensor: shape=(), dtype=int32, numpy=3>
>>> myadd("hello", "world")
tracing
0
1
2
<rt.Tensor: shape=(), dtype=string, numpy=b'helloworld'>
>>> myadd("good", "morning")
tracing
0
1
2
<rt.Tensor: shape=(), dtype=string, numpy=b'goodmorning'>
traces: 4
""",
    # Seed 000, "应用 tf.Module 封装 AutoGraph": prints 4; the int call raises (the
    # message is ours: it names the argument and both dtypes).
    "input_signature": """\
4
TypeError: add_print: argument 'a' has dtype int32, but the input_signature requires float32 \
(Can not cast TensorSpec(shape=(), dtype=rt.int32, name=None) to \
TensorSpec(shape=(), dtype=rt.float32, name=None))
""",
    # Seed 001, "流控制和副作用" and "检查多态函数". TensorFlow's to_code text is its own
    # (tf__my_function, converted_call...; the seed says not to mind it): this is ours.
    # print(a_function) is "<...Function object at 0x...>" in TensorFlow.
    "concrete_functions": """\
First branch, with graph: 1.0
Second branch, with graph: [4. 4.]
def my_function(x):

    def if_true():
        nonlocal retval
        retval = x * x

    def if_false():
        nonlocal retval
        retval = x - 1
    retval = ag__.Undefined('retval')
    ag__.if_stmt(rt.reduce_sum(x) <= 1, if_true, if_false, ('retval',))
    return retval

<ag.Function my_function>
Calling a `Function`:
Int: rt.Tensor(1, shape=(), dtype=int32)
Float: rt.Tensor(1.0, shape=(), dtype=float32)
Rank-1 tensor of floats rt.Tensor([1. 1. 1.], shape=(3,), dtype=float32)
Inspecting concrete functions
Concrete function for float:
ConcreteFunction my_function(x)
  Args:
    x: float32 Tensor, shape=()
  Returns:
    float32 Tensor, shape=()
Concrete function for tensor of floats:
ConcreteFunction my_function(x)
  Args:
    x: float32 Tensor, shape=(3,)
  Returns:
    float32 Tensor, shape=(3,)
Concrete function for int:
ConcreteFunction my_function(x)
  Args:
    x: int32 Tensor, shape=()
  Returns:
    int32 Tensor, shape=()
Directly calling a concrete function: rt.Tensor(1, shape=(), dtype=int32)
""",
    # Seed 001, "跟踪和性能" (Tracing! once for tensors, once per Python value), then
    # "使用 run_functions_eagerly": every call runs the Python function.
    "python_side_effect": """\
Tracing!
rt.Tensor(6, shape=(), dtype=int32)
rt.Tensor(11, shape=(), dtype=int32)
Tracing!
rt.Tensor(6, shape=(), dtype=int32)
Tracing!
rt.Tensor(11, shape=(), dtype=int32)
Run all functions eagerly.
Tracing!
rt.Tensor(6, shape=(), dtype=int32)
Tracing!
rt.Tensor(11, shape=(), dtype=int32)
Tracing!
rt.Tensor(6, shape=(), dtype=int32)
Tracing!
rt.Tensor(11, shape=(), dtype=int32)
Functions run eagerly: False
""",
    # Seed 000/003, "应用 tf.Module 封装 AutoGraph" and saving: 6, the module's variables, no
    # submodules; the saved model's description (our saved_model_cli show); loaded in a fresh
    # process, the next add_print gives 11.
    "saved_model_demo": """\
6
(<rt.Variable 'demo_module/Variable:0' shape=() dtype=float32, numpy=6.0>,)
(<rt.Variable 'demo_module/Variable:0' shape=() dtype=float32, numpy=6.0>,)
()
saved model DIRECTORY (format autograph-saved-model version 2)
function 'add_print':
  inputs:
    a: float32 shape ()
  outputs:
    output_0: float32 shape ()
signature 'serving_default':
  inputs:
    a: float32 shape ()
  outputs:
    output_0: float32 shape ()
variables:
  demo_module/Variable:0: float32 shape ()
11
<rt.Variable 'demo_module/Variable:0' shape=() dtype=float32, numpy=11.0>
""",
    # Seeds 000 and 003, "查看计算图" / "在tensorboard中查看计算图": strjoin's tf.print, then
    # DemoModule's; the lines saying what the logs hold, read back with TensorBoard's own
    # reader, are ours (the seeds show the TensorBoard page). strjoin's join of two constants
    # is folded before it runs: only its print is timed.
    "tensorboard_trace": """\
hello world
tag 'autograph': a graph of 4 ops (Const, Const_1, StringJoin, PrintV2), 1 timed
5
tag 'demomodule': a graph of 6 ops (a, demo_module/Variable, demo_module/AssignAddVariableOp, \
demo_module/ReadVariableOp, demo_module/PrintV2, ReadVariableOp), 4 timed
loss: step 0: 1.0, step 1: 0.5, step 2: 0.25
""",
    # Seed 003, "tf.Module 和 tf.keras.Model, tf.keras.layers.Layer": subclasses of Module, the
    # summary (the seed's table, 44 / 10 / 3, total 57), the six variables (random kernels,
    # zero biases; printed one per line as the notebook shows a list), the first kernel row as
    # a list, the four trainable after freezing layer 0, False, the submodules (the seed's
    # TensorFlow lists an InputLayer first; ours has none), the layers, the name, and
    # name_scope() as TensorFlow 2.0's Keras gave it. Reprs of layers are ours.
    "keras_sequential": """\
True
True
True
Model: "sequential"
_________________________________________________________________
Layer (type)                 Output Shape              Param #   
dense (Dense)                (None, 4)                 44        
_________________________________________________________________
dense_1 (Dense)              (None, 2)                 10        
_________________________________________________________________
dense_2 (Dense)              (None, 1)                 3         
Total params: 57
Trainable params: 57
Non-trainable params: 0
_________________________________________________________________
[<rt.Variable 'dense/kernel:0' shape=(10, 4) dtype=float32, numpy=
array([[ F, F, F, F],
       [ F, F, F, F],
       [ F, F, F, F],
       [ F, F, F, F],
       [ F, F, F, F],
       [ F, F, F, F],
       [ F, F, F, F],
       [ F, F, F, F],
       [ F, F, F, F],
       [ F, F, F, F]],
      dtype=float32)>,
 <rt.Variable 'dense/bias:0' shape=(4,) dtype=float32, numpy=array([0., 0., 0., 0.], dtype=float32)>,
 <rt.Variable 'dense_1/kernel:0' shape=(4, 2) dtype=float32, numpy=
array([[ F, F],
       [ F, F],
       [ F, F],
       [ F, F]], dtype=float32)>,
 <rt.Variable 'dense_1/bias:0' shape=(2,) dtype=float32, numpy=array([0., 0.], dtype=float32)>,
 <rt.Variable 'dense_2/kernel:0' shape=(2, 1) dtype=float32, numpy=
array([[ F],
       [ F]], dtype=float32)>,
 <rt.Variable 'dense_2/bias:0' shape=(1,) dtype=float32, numpy=array([0.], dtype=float32)>]
[ F, F, F, F]
[<rt.Variable 'dense_1/kernel:0' shape=(4, 2) dtype=float32, numpy=
array([[ F, F],
       [ F, F],
       [ F, F],
       [ F, F]], dtype=float32)>,
 <rt.Variable 'dense_1/bias:0' shape=(2,) dtype=float32, numpy=array([0., 0.], dtype=float32)>,
 <rt.Variable 'dense_2/kernel:0' shape=(2, 1) dtype=float32, numpy=
array([[ F],
       [ F]], dtype=float32)>,
 <rt.Variable 'dense_2/bias:0' shape=(1,) dtype=float32, numpy=array([0.], dtype=float32)>]
False
(<rt.keras.layers.Dense 'dense'>, <rt.keras.layers.Dense 'dense_1'>, <rt.keras.layers.Dense 'dense_2'>)
[<rt.keras.layers.Dense 'dense'>, <rt.keras.layers.Dense 'dense_1'>, <rt.keras.layers.Dense 'dense_2'>]
sequential
sequential
""",  # noqa: W291 (Keras pads the rows of its table to 65 characters)
    # Seed 001, "看到速度的加快": the seconds the calls took (eager, then graph).
    "keras_timing": """\
Eager time: T
Graph time: T
""",
    # Seed 001, "使用 run_eagerly=True" and "使用 run_functions_eagerly": compiled without
    # run_eagerly, fit traces its step twice (the first trace makes the weights and the
    # optimizer's state) and the side effect is gone; with run_eagerly each of the two batches
    # prints; with run_functions_eagerly, get_concrete_function traces once and each call
    # prints. The bar is Keras' (2 batches of 32 and 28 examples); the ConcreteFunction text
    # is ours.
    "keras_run_eagerly": """\
Epoch 1/3

Currently running eagerly T

Currently running eagerly T
2/2 [==============================] - Ts T/step - loss: V
Epoch 2/3
2/2 [==============================] - Ts T/step - loss: V
Epoch 3/3
2/2 [==============================] - Ts T/step - loss: V
Running eagerly
Epoch 1/1

Currently running eagerly T

Currently running eagerly T
2/2 [==============================] - Ts T/step - loss: V
Run all functions eagerly.
Tracing

Currently running eagerly T
ConcreteFunction SequentialModel(inputs, args, kwargs)
  Args:
    inputs: float32 Tensor, shape=(60, 28, 28)
  Returns:
    float32 Tensor, shape=(60, 10)

Calling twice eagerly

Currently running eagerly T

Currently running eagerly T
""",
    # Ours (the end-to-end example): the same seed gives the same epochs traced and
    # eagerly, over 90% on unseen points, and a saved model that predicts the same.
    "keras_training": """\
== run_eagerly=False ==
Epoch 1/10
8/8 - Ts - loss: V - accuracy: V
Epoch 2/10
8/8 - Ts - loss: V - accuracy: V
Epoch 3/10
8/8 - Ts - loss: V - accuracy: V
Epoch 4/10
8/8 - Ts - loss: V - accuracy: V
Epoch 5/10
8/8 - Ts - loss: V - accuracy: V
Epoch 6/10
8/8 - Ts - loss: V - accuracy: V
Epoch 7/10
8/8 - Ts - loss: V - accuracy: V
Epoch 8/10
8/8 - Ts - loss: V - accuracy: V
Epoch 9/10
8/8 - Ts - loss: V - accuracy: V
Epoch 10/10
8/8 - Ts - loss: V - accuracy: V
test accuracy above 90%: True
== run_eagerly=True ==
Epoch 1/10
8/8 - Ts - loss: V - accuracy: V
Epoch 2/10
8/8 - Ts - loss: V - accuracy: V
Epoch 3/10
8/8 - Ts - loss: V - accuracy: V
Epoch 4/10
8/8 - Ts - loss: V - accuracy: V
Epoch 5/10
8/8 - Ts - loss: V - accuracy: V
Epoch 6/10
8/8 - Ts - loss: V - accuracy: V
Epoch 7/10
8/8 - Ts - loss: V - accuracy: V
Epoch 8/10
8/8 - Ts - loss: V - accuracy: V
Epoch 9/10
8/8 - Ts - loss: V - accuracy: V
Epoch 10/10
8/8 - Ts - loss: V - accuracy: V
test accuracy above 90%: True
graph and eager training give the same epochs: True
Model: "sequential"
_________________________________________________________________
Layer (type)                 Output Shape              Param #   
dense (Dense)                (None, 16)                48        
_________________________________________________________________
dense_1 (Dense)              (None, 16)                272       
_________________________________________________________________
dense_2 (Dense)              (None, 2)                 34        
Total params: 354
Trainable params: 354
Non-trainable params: 0
_________________________________________________________________
saved model predicts the same: True
""",  # noqa: W291 (Keras pads the rows of its table to 65 characters)
}
NEEDS = {"tensorboard_trace": "tensorboard"}  # an optional extra the example needs


def run_example(name, *args, env=None):
    return subprocess.run(
        [sys.executable, f"examples/{name}.py", *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
        env=None if env is None else {**os.environ, **env},
    )


@pytest.mark.parametrize("name", list(EXPECTED))
def test_example_prints_what_the_seed_prints(name):
    if name in NEEDS:
        import_extra(NEEDS[name])
    result = run_example(name)
    assert result.returncode == 0, result.stderr
    assert result.stderr == ""
    assert normalise(result.stdout) == normalise(EXPECTED[name])


# numpy's OpenBLAS picks its matrix-product kernels by CPU, and each kernel blocks (sums) a
# product its own way. OPENBLAS_CORETYPE chooses one: with those this CPU can run, one machine
# computes what others do. The x86-64 kernels and the CPU features they need:
_BLAS_KERNELS = {"Nehalem": (), "Sandybridge": ("AVX",), "Haswell": ("AVX2", "FMA3")}


def blas_kernels_this_cpu_runs():
    """The OpenBLAS kernels of other x86-64 CPUs that this one can run (none elsewhere)."""
    if platform.machine().lower() not in ("x86_64", "amd64"):
        return []
    features = getattr(np._core._multiarray_umath, "__cpu_features__", {})  # numpy 2's own probe
    return [k for k, needs in _BLAS_KERNELS.items() if all(features.get(f) for f in needs)]


@pytest.mark.parametrize("kernel", blas_kernels_this_cpu_runs())
def test_the_training_example_prints_the_same_with_every_blas_kernel(kernel):
    """Its printed text holds on every machine: what it compares across two paths (the
    model's predict, in batches, and the loaded model's call) it compares to a tolerance.
    (This CPU's own kernel runs in test_example_prints_what_the_seed_prints.)"""
    result = run_example("keras_training", env={"OPENBLAS_CORETYPE": kernel})
    assert result.returncode == 0, result.stderr
    assert normalise(result.stdout) == normalise(EXPECTED["keras_training"])


@pytest.mark.parametrize("words", [[], ["static", "graph"]])
def test_static_graph_runs_the_loop_before_the_join_it_waits_for(words):
    """The README's first command: the loop prints 0, 1, 2, then the joined words come."""
    result = run_example("static_graph", *words)
    assert result.returncode == 0, result.stderr
    assert result.stderr == ""
    joined = " ".join(words or ["hello", "world"]).encode()
    assert result.stdout.splitlines()[-4:] == ["0", "1", "2", repr(joined)]


@pytest.mark.parametrize("name", sorted(p.stem for p in EXAMPLES.glob("*.py")))
def test_readme_links_example(name):
    assert f"examples/{name}.py" in (ROOT / "README.md").read_text(encoding="utf-8")


def test_normalise_hides_times_dates_and_logged_values_of_keras_lines():
    assert normalise("2/2 [===] - 1s 25ms/step - loss: 1.8311 - val_accuracy: 5.0e-04") == (
        "2/2 [===] - Ts T/step - loss: V - val_accuracy: V"
    )
    assert (
        normalise("8/8 - 0s - loss: 0.5393\nGraph time: 0.125")
        == "8/8 - Ts - loss: V\nGraph time: T"
    )
    assert normalise("Currently running eagerly 2026-11-24 09:05:28.061986") == (
        "Currently running eagerly T"
    )
    assert normalise("Total params: 57") == "Total params: 57"


def test_normalise_hides_only_addresses_and_matrix_entries():
    assert normalise("<F at 0x7f3a>\n[[1.5 -2e-05]\n [3 4.25]]\nx: 2.5") == (
        "<F at 0x?>\n[[ F F]\n [ F F]]\nx: 2.5"
    )
    assert normalise("array([[ 0.25, -1.5 ],\n       [ 1.0e-03,  2.  ]])") == (
        "array([[ F, F],\n       [ F, F]])"
    )


def test_every_seed_gallery_example_is_checked():
    # static_graph.py predates the gallery; its graph dump is our own format, not the seed's.
    assert {p.stem for p in EXAMPLES.glob("*.py")} - {"static_graph"} == set(EXPECTED)
