"""``fit``, ``evaluate`` and ``predict``: numpy batches through one step function.

The step (forward, loss, gradients, optimizer update, metrics) is plain Python
on eager tensors with ``run_eagerly``; otherwise it is staged
(``runtime.execution.staging``: an ``ag.function`` when autograph is loaded),
traced at the first batch for the data's dtypes and shapes with the batch size
left open (one graph serves the last, smaller batch too) and then run as a
graph. A step returns one value, the batch's loss (or a vector: the loss, then the
metrics), which the loop averages over the examples seen, as Keras does.

The loop itself does little per batch: a shuffled batch is gathered from the data
by the epoch's permutation (unshuffled, it is a numpy view), wrapped as a tensor
without copying, the staged function is called directly, and the progress bar
draws only on a terminal.
"""

from __future__ import annotations

import functools
import math

import numpy as np

from runtime.core import dtypes, nest
from runtime.core.tensor import EagerTensor, Tensor
from runtime.core.tensor_spec import TensorSpec
from runtime.execution import staging
from runtime.gradients.tape import GradientTape
from runtime.keras import metrics as metrics_module
from runtime.keras.callbacks import CallbackList, History
from runtime.keras.progbar import Progbar
from runtime.ops.array_ops import stack
from runtime.ops.constant_ops import cast
from runtime.ops.random_ops import RandomState
from runtime.ops.reduction_ops import reduce_mean

# --- the steps ----------------------------------------------------------------------------------


def train_step(model, x, y):
    """One batch of training: the loss's gradients applied by the optimizer; returns the
    batch's loss and metrics as one vector."""
    with GradientTape() as tape:
        y_pred = model(x, training=True)
        loss = model.compiled_loss(y, y_pred)
    variables = model.trainable_variables
    if variables:
        grads = tape.gradient(loss, variables)
        model.optimizer.apply_gradients(zip(grads, variables))
    return _batch_logs(model, loss, y, y_pred)


def test_step(model, x, y):
    """The batch's loss and metrics, with the model in inference mode."""
    y_pred = model(x, training=False)
    return _batch_logs(model, model.compiled_loss(y, y_pred), y, y_pred)


def predict_step(model, x):
    return model(x, training=False)


def _batch_logs(model, loss, y, y_pred):
    values = [cast(loss, dtypes.float32)]  # cast is the tensor itself when already float32
    for metric in model.compiled_metrics:
        per_example = metrics_module.resolve(metric, y, y_pred)(y, y_pred)
        values.append(reduce_mean(cast(per_example, dtypes.float32)))
    return values[0] if len(values) == 1 else stack(values)  # the loss alone: a scalar


class StepRunner:
    """Calls a step on numpy batches and gives its result.

    With ``model.run_eagerly`` the step is called as Python. Otherwise it is the
    model's staged function of that kind (``model.train_function``...) for these
    arrays' dtypes and shapes, the batch size left open: traced at its first
    call, and kept on the model until ``compile``.
    """

    def __init__(self, model, kind, step, arrays):
        self._dtypes = [dtypes.as_dtype(a.dtype) for a in arrays]
        python_step = functools.partial(step, model)
        if model.run_eagerly:
            self._call = python_step
            return
        specs = [TensorSpec((None, *a.shape[1:]), d) for a, d in zip(arrays, self._dtypes)]
        key = (kind, tuple((s.dtype, s.shape.as_tuple()) for s in specs))
        staged = model._staged_steps.get(key)
        if staged is None:
            staged = model._staged_steps[key] = staging.function(
                python_step, f"{kind}_function", specs
            )
        setattr(model, f"{kind}_function", staged)
        self._call = staged

    def __call__(self, *batch):
        return self._call(*[EagerTensor(b, d) for b, d in zip(batch, self._dtypes)])


# --- the data -----------------------------------------------------------------------------------


def as_array(data, what):
    """``data`` (numpy, a list, a tensor) as a numpy array with examples along the first axis;
    float64 becomes float32, as Keras feeds its layers."""
    if data is None:
        raise ValueError(f"{what} is None: fit and evaluate need inputs and targets")
    if isinstance(data, Tensor):
        data = data.numpy()
    array = np.asarray(data)
    if array.dtype == np.float64:
        array = array.astype(np.float32)
    if array.ndim == 0:
        raise ValueError(f"{what} must have a batch dimension, got a scalar")
    if len(array) == 0:
        raise ValueError("Expected input data to be non-empty.")
    return array


def _arrays(x, y):
    x, y = as_array(x, "x"), as_array(y, "y")
    if len(x) != len(y):
        raise ValueError(
            f"Data cardinality is ambiguous:\n  x sizes: {len(x)}\n  y sizes: {len(y)}\n"
            "Make sure all arrays contain the same number of samples."
        )
    return x, y


def _check_batch_size(batch_size):
    if not isinstance(batch_size, int) or isinstance(batch_size, bool) or batch_size < 1:
        raise ValueError(f"batch_size must be a positive integer, got {batch_size!r}")


# --- the loops ----------------------------------------------------------------------------------


def fit(model, x, y, batch_size, epochs, verbose, callbacks, validation_split, validation_data,
        shuffle, initial_epoch):  # fmt: skip
    model._check_compiled(needs_loss=True)
    _check_batch_size(batch_size)
    x, y = _arrays(x, y)
    if validation_split and validation_data is None:
        if not 0 < validation_split < 1:
            raise ValueError(f"validation_split must be in (0, 1), got {validation_split}")
        keep = int(len(x) * (1 - validation_split))
        x, y, validation_data = x[:keep], y[:keep], (x[keep:], y[keep:])
    if validation_data is not None:
        validation_data = _arrays(*validation_data)
    n = len(x)
    steps = math.ceil(n / batch_size)
    names = model.metrics_names
    runner = StepRunner(model, "train", train_step, [x, y])
    history = History()
    callback_list = CallbackList(
        [*(callbacks or ()), history], model, {"verbose": verbose, "epochs": epochs, "steps": steps}
    )
    generator = RandomState(None).generator if shuffle else None
    model.stop_training = False
    callback_list.on_train_begin()
    logs = {}
    for epoch in range(initial_epoch, epochs):
        if verbose:
            print(f"Epoch {epoch + 1}/{epochs}")
        callback_list.on_epoch_begin(epoch)
        order = generator.permutation(n) if generator is not None else None
        logs, bar = _run_epoch(
            runner, x, y, order, batch_size, names, verbose, callback_list, steps, "train"
        )
        if validation_data is not None:  # the test hooks run, as in Keras' fit
            val = _evaluate_arrays(model, *validation_data, batch_size, 0, callback_list)
            logs.update({f"val_{name}": value for name, value in val.items()})
        if bar is not None:
            bar.update(steps, logs, finalize=True)
        callback_list.on_epoch_end(epoch, logs)
        if model.stop_training:
            break
    if epochs > 0:  # the moving averages become the weights (use_ema), as in Keras' fit
        model.optimizer.finalize_variable_values(model.trainable_variables)
    callback_list.on_train_end(logs)
    model.history = history
    return history


def _run_epoch(runner, x, y, order, batch_size, names, verbose, callback_list, steps, mode):
    """Runs the step over the batches (the examples in ``order``, or as they are: then each
    batch is a view), calling the ``mode`` batch hooks (``"train"``, ``"test"``); returns the
    epoch's logs and its progress bar."""
    n = len(x)
    totals = np.zeros(len(names))
    seen = 0
    bar = Progbar(steps, verbose) if verbose else None
    batch_hooks = callback_list.wants_batches(mode)

    def current_logs():
        return dict(zip(names, (totals / max(seen, 1)).tolist()))

    for step, start in enumerate(range(0, n, batch_size)):
        if batch_hooks:
            callback_list.on_batch_begin(mode, step)
        stop = min(start + batch_size, n)
        if order is None:
            values = runner(x[start:stop], y[start:stop])._value
        else:  # gathered batch by batch: cheaper than reordering the whole data each epoch
            picked = order[start:stop]
            values = runner(x[picked], y[picked])._value
        totals += values * (stop - start)
        seen += stop - start
        if bar is not None:
            bar.update(step + 1, current_logs)
        if batch_hooks:
            callback_list.on_batch_end(mode, step, current_logs())
    return current_logs(), bar


def evaluate(model, x, y, batch_size, verbose, return_dict, callbacks=None):
    model._check_compiled(needs_loss=True)
    _check_batch_size(batch_size)
    x, y = _arrays(x, y)
    steps = math.ceil(len(x) / batch_size)
    callback_list = CallbackList(
        callbacks or (), model, {"verbose": verbose, "epochs": 1, "steps": steps}
    )
    logs = _evaluate_arrays(model, x, y, batch_size, verbose, callback_list)
    if return_dict:
        return logs
    values = [logs[name] for name in model.metrics_names]
    return values[0] if len(values) == 1 else values


def _evaluate_arrays(model, x, y, batch_size, verbose, callback_list):
    """The loss and metrics over ``(x, y)``, between ``on_test_begin`` and ``on_test_end``."""
    runner = StepRunner(model, "test", test_step, [x, y])
    steps = math.ceil(len(x) / batch_size)
    callback_list.on_test_begin()
    logs, bar = _run_epoch(
        runner, x, y, None, batch_size, model.metrics_names, verbose, callback_list, steps, "test"
    )
    if bar is not None:
        bar.update(steps, logs, finalize=True)
    callback_list.on_test_end(logs)
    return logs


def predict(model, x, batch_size, verbose, callbacks=None):
    _check_batch_size(batch_size)
    x = as_array(x, "x")
    runner = StepRunner(model, "predict", predict_step, [x])
    steps = math.ceil(len(x) / batch_size)
    callback_list = CallbackList(
        callbacks or (), model, {"verbose": verbose, "epochs": 1, "steps": steps}
    )
    batch_hooks = callback_list.wants_batches("predict")
    bar = Progbar(steps, verbose) if verbose else None
    outputs = []
    callback_list.on_predict_begin()
    for step, start in enumerate(range(0, len(x), batch_size)):
        if batch_hooks:
            callback_list.on_batch_begin("predict", step)
        result = nest.map_structure(lambda t: t._value, runner(x[start : start + batch_size]))
        outputs.append(result)
        if batch_hooks:
            callback_list.on_batch_end("predict", step, {"outputs": result})
        if bar is not None:
            bar.update(step + 1, {})
    if bar is not None:
        bar.update(steps, {}, finalize=True)
    callback_list.on_predict_end()
    return nest.map_structure(lambda *parts: np.concatenate(parts), *outputs)
