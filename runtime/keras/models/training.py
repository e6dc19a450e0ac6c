"""``fit``, ``evaluate`` and ``predict``: batches of data through one step function.

The step (forward, loss, gradients, optimizer update, metrics) is plain Python
on eager tensors with ``run_eagerly``; otherwise it is staged
(``runtime.execution.staging``: an ``ag.function`` when autograph is loaded;
compiled by XLA when the model was compiled with ``jit_compile=True``), traced
at the first batch for the data's structure, dtypes and shapes with the batch
size left open (one graph serves the last, smaller batch too) and then run as a
graph.

A step is ``train_step(model, x, y, sample_weight)``, ``test_step(model, x, y,
sample_weight)`` or ``predict_step(model, x)``; ``x`` and ``y`` may be nested
structures (a list or dict of inputs or targets), ``sample_weight`` None or a
tensor. A training or test step returns either the running logs (a dict: the
metrics accumulate over the epoch, reset at its start by
``model.reset_metrics()``, and the loop reports the last batch's), or the
batch's values (the loss, then each metric, a vector) which the loop averages
over the examples seen, as Keras does.

The data (``data_adapters``) comes as numpy batches; the loop wraps each as
tensors without copying, calls the staged function directly, and calls only the
callbacks that have batch hooks (the progress bar draws only on a terminal).
"""

from __future__ import annotations

import functools

import numpy as np

from runtime import xla  # noqa: F401  (registers XLA for jit_compile)
from runtime.core import dtypes, nest
from runtime.core.tensor import EagerTensor
from runtime.core.tensor_spec import TensorSpec
from runtime.execution import staging
from runtime.gradients.tape import GradientTape
from runtime.keras import metrics as metrics_module
from runtime.keras.callbacks import CallbackList
from runtime.keras.models import data_adapters
from runtime.keras.models.data_adapters import EpochIterator, get_data
from runtime.ops.array_ops import stack
from runtime.ops.constant_ops import cast
from runtime.ops.math_ops import add_n
from runtime.ops.reduction_ops import reduce_mean

# --- the steps ----------------------------------------------------------------------------------


def train_step(model, x, y, sample_weight=None):
    """One batch of training: the loss's gradients applied by the optimizer; returns the
    batch's loss and metrics as one vector."""
    with GradientTape() as tape:
        y_pred = model(x, training=True)
        loss = _total_loss(model, y, y_pred, sample_weight)
    variables = model.trainable_variables
    if variables:
        grads = tape.gradient(loss, variables)
        model.optimizer.apply_gradients(zip(grads, variables))
    return _batch_logs(model, loss, y, y_pred)


def test_step(model, x, y, sample_weight=None):
    """The batch's loss and metrics, with the model in inference mode."""
    y_pred = model(x, training=False)
    return _batch_logs(model, _total_loss(model, y, y_pred, sample_weight), y, y_pred)


def predict_step(model, x):
    return model(x, training=False)


def _total_loss(model, y, y_pred, sample_weight):
    """The compiled loss (one loss for several outputs: summed over them, as Keras 3 does) plus
    the model's own losses (``add_loss``, regularizers)."""
    if nest.is_nested(y):
        weights = (
            sample_weight if sample_weight is not None else nest.map_structure(lambda _: None, y)
        )
        flat = zip(nest.flatten(y), nest.flatten(y_pred), nest.flatten(weights))
        losses = [model.compiled_loss(t, p, sample_weight=w) for t, p, w in flat]
    else:
        losses = [model.compiled_loss(y, y_pred, sample_weight=sample_weight)]
    losses += [cast(extra, losses[0].dtype) for extra in getattr(model, "losses", None) or ()]
    return losses[0] if len(losses) == 1 else add_n(losses)


def _batch_logs(model, loss, y, y_pred):
    values = [cast(loss, dtypes.float32)]  # cast is the tensor itself when already float32
    for metric in model.compiled_metrics:
        per_example = metrics_module.resolve(metric, y, y_pred)(y, y_pred)
        values.append(reduce_mean(cast(per_example, dtypes.float32)))
    return values[0] if len(values) == 1 else stack(values)  # the loss alone: a scalar


# --- calling a step -----------------------------------------------------------------------------


class StepRunner:
    """Calls a step on numpy batches (nested ``(x, y, sample_weight)`` structures) and gives
    its result.

    With ``model.run_eagerly`` the step is called as Python. Otherwise it is the model's
    staged function of that kind (``model.train_function``...) for the batch's structure,
    dtypes and shapes, the batch size left open: its arrays are flattened to TensorSpecs and
    rebuilt inside. Traced at its first call, it is kept on the model until ``compile``.
    """

    def __init__(self, model, kind, step):
        self.model = model
        self.kind = kind
        self.step = step
        self._signature = None  # the last batch's: (key, function, dtypes)

    def __call__(self, batch):
        if any(nest.is_nested(part) for part in batch):
            arrays = [a for a in nest.flatten(batch) if a is not None]
            layout = nest.describe(batch)
        else:  # plain arrays (and Nones): no structure to walk, the common case
            arrays = [a for a in batch if a is not None]
            layout = tuple(a is None for a in batch)
        key = (self.kind, layout, *((a.dtype, a.shape[1:]) for a in arrays))
        if self._signature is None or self._signature[0] != key:
            self._signature = (key, *self._prepare(key, batch, arrays))
        _, function, types = self._signature
        return function(*[EagerTensor(a, d) for a, d in zip(arrays, types)])

    def _prepare(self, key, batch, arrays):
        types = [dtypes.as_dtype(a.dtype) for a in arrays]
        structure = nest.map_structure(lambda a: None if a is None else 0, batch)
        model = self.model
        # A partial, not a closure: each model's step is its own function to autograph's
        # retracing detector (which groups functions by their code).
        python_step = functools.partial(_call_rebuilt, self.step, model, structure)
        if model.run_eagerly:
            return python_step, types
        staged = model._staged_steps.get(key)
        if staged is None:
            specs = [TensorSpec((None, *a.shape[1:]), d) for a, d in zip(arrays, types)]
            jit_compile = bool(getattr(model, "jit_compile", False))
            staged = staging.function(python_step, f"{self.kind}_function", specs, jit_compile)
            model._staged_steps[key] = staged
        setattr(model, f"{self.kind}_function", staged)
        return staged, types


def _call_rebuilt(step, model, structure, *tensors):
    """``step`` called with the batch ``structure`` rebuilt from its flat tensors (its Nones
    kept)."""
    given = iter(tensors)
    return step(model, *nest.map_structure(lambda a: None if a is None else next(given), structure))


class EpochLogs:
    """The logs of an epoch from its steps' results: a step's dict is the running logs (its
    metrics accumulate), reported as they are; a vector of the batch's values is averaged
    over the examples seen."""

    def __init__(self, names):
        self.names = names
        self._totals = None
        self._seen = 0
        self._last = None

    def add(self, result, batch_size):
        if isinstance(result, dict):
            self._last = result
            return
        values = np.atleast_1d(result._value)
        self._totals = (
            values * batch_size if self._totals is None else self._totals + values * batch_size
        )
        self._seen += batch_size

    def current(self):
        if self._last is not None:
            return {name: _as_float(value) for name, value in self._last.items()}
        if self._totals is None:
            return {}
        return dict(zip(self.names, (self._totals / self._seen).tolist()))


def _as_float(value):
    """A logged value as Python: a number, or a numpy array for a metric of several values
    (Keras' F1Score of each class)."""
    value = np.asarray(value._value if isinstance(value, EagerTensor) else value)
    return float(value) if value.size == 1 else value


def _reset_metrics(model):
    reset = getattr(model, "reset_metrics", None)
    if reset is not None:
        reset()


def _batch_size(batch):
    inputs = batch[0]
    return len(inputs) if isinstance(inputs, np.ndarray) else len(nest.flatten(inputs)[0])


# The model's flag a callback sets to end each loop at the current batch, as Keras 3 names them.
_STOP_FLAGS = {"train": "stop_training", "test": "stop_evaluating", "predict": "stop_predicting"}


def run_epoch(runner, epochs_iterator, callback_list, mode, names):
    """Runs the step over one epoch's batches, calling the ``mode`` batch hooks, until they end
    or a callback sets the model's stop flag; returns the logs. ValueError (Keras' words) when
    there was no batch."""
    logs = EpochLogs(names)
    batch_hooks = callback_list.wants_batches(mode)
    ran = False
    for step, batch in epochs_iterator.epoch():
        if batch_hooks:
            callback_list.on_batch_begin(mode, step)
        logs.add(runner(batch), _batch_size(batch))
        ran = True
        if batch_hooks:
            callback_list.on_batch_end(mode, step, logs.current())
        if getattr(runner.model, _STOP_FLAGS[mode]):
            break
    if not ran:
        raise ValueError(
            f"Unexpected result of `{mode}_function` (Empty logs). This could be due to issues "
            "in input pipeline that resulted in an empty dataset."
        )
    return logs.current()


# --- the loops ----------------------------------------------------------------------------------


def fit(model, x=None, y=None, batch_size=None, epochs=1, verbose="auto", callbacks=None,
        validation_split=0.0, validation_data=None, shuffle=True, class_weight=None,
        sample_weight=None, initial_epoch=0, steps_per_epoch=None, validation_steps=None,
        validation_batch_size=None, validation_freq=1):  # fmt: skip
    model._check_compiled(needs_loss=True)
    batch_size = _check_batch_size(batch_size)
    verbose = _standardize_verbose(verbose)
    if validation_split and validation_data is None:
        (x, y, sample_weight), validation_data = data_adapters.train_validation_split(
            (x, y, sample_weight), validation_split
        )
    iterator = EpochIterator(
        get_data(x, y, sample_weight, batch_size, shuffle, class_weight), steps_per_epoch
    )
    validation = None
    if validation_data is not None:
        validation = _validation_iterator(
            validation_data, validation_batch_size or batch_size, validation_steps
        )
    runner = StepRunner(model, "train", train_step)
    callback_list = CallbackList(
        callbacks, model, {"verbose": verbose, "epochs": epochs, "steps": iterator.num_batches},
        add_history=True, add_progbar=verbose != 0,
    )  # fmt: skip
    model.stop_training = False
    callback_list.on_train_begin()
    logs = {}
    for epoch in range(initial_epoch, epochs):
        _reset_metrics(model)
        callback_list.on_epoch_begin(epoch)
        logs = run_epoch(runner, iterator, callback_list, "train", model.metrics_names)
        if validation is not None and _should_validate(epoch, validation_freq):
            val_logs = _evaluate(model, validation, callback_list)  # test hooks run, as in Keras
            logs.update({f"val_{name}": value for name, value in val_logs.items()})
        callback_list.on_epoch_end(epoch, logs)
        if model.stop_training:
            break
    callback_list.on_train_end(logs)
    model.history = callback_list.history
    return callback_list.history


def _validation_iterator(validation_data, batch_size, steps):
    if data_adapters.is_iterable_of_batches(validation_data):
        return EpochIterator(get_data(validation_data), steps)
    x, y, sample_weight = data_adapters.unpack_x_y_sample_weight(validation_data)
    return EpochIterator(get_data(x, y, sample_weight, batch_size), steps)


def _should_validate(epoch, validation_freq):
    if isinstance(validation_freq, int) and not isinstance(validation_freq, bool):
        return (epoch + 1) % validation_freq == 0
    if isinstance(validation_freq, list):
        return epoch + 1 in validation_freq
    raise ValueError(
        "Expected `validation_freq` to be a list or int. Received: "
        f"validation_freq={validation_freq} of the type {type(validation_freq)}."
    )


def evaluate(model, x=None, y=None, batch_size=None, verbose="auto", sample_weight=None,
             steps=None, callbacks=None, return_dict=False):  # fmt: skip
    model._check_compiled(needs_loss=True)
    batch_size = _check_batch_size(batch_size)
    verbose = _standardize_verbose(verbose)
    iterator = EpochIterator(get_data(x, y, sample_weight, batch_size), steps)
    callback_list = CallbackList(
        callbacks, model, {"verbose": verbose, "epochs": 1, "steps": iterator.num_batches},
        add_progbar=verbose != 0,
    )  # fmt: skip
    logs = _evaluate(model, iterator, callback_list)
    return logs if return_dict else _in_order(model, logs)


def _evaluate(model, iterator, callback_list):
    """The loss and metrics over the data, between ``on_test_begin`` and ``on_test_end``."""
    _reset_metrics(model)
    model.stop_evaluating = False
    callback_list.on_test_begin()
    logs = run_epoch(StepRunner(model, "test", test_step), iterator, callback_list, "test",
                     model.metrics_names)  # fmt: skip
    callback_list.on_test_end(logs)
    return logs


def _in_order(model, logs):
    """The logs as a list in ``metrics_names``' order (then any other, by name), or the one
    value when there is one, as Keras returns them."""
    names = [name for name in model.metrics_names if name in logs]
    values = [logs[name] for name in names] + [logs[k] for k in sorted(logs) if k not in names]
    return values[0] if len(values) == 1 else values


def predict(model, x, batch_size=None, verbose="auto", steps=None, callbacks=None):
    batch_size = _check_batch_size(batch_size)
    verbose = _standardize_verbose(verbose)
    data = get_data(_predict_inputs(x), batch_size=batch_size)
    iterator = EpochIterator(data, steps)
    callback_list = CallbackList(
        callbacks, model, {"verbose": verbose, "epochs": 1, "steps": iterator.num_batches},
        add_progbar=verbose != 0,
    )  # fmt: skip
    runner = StepRunner(model, "predict", predict_step)
    batch_hooks = callback_list.wants_batches("predict")
    outputs = []
    model.stop_predicting = False
    callback_list.on_predict_begin()
    for step, (inputs, _, _) in iterator.epoch():
        if batch_hooks:
            callback_list.on_batch_begin("predict", step)
        result = nest.map_structure(lambda t: t._value, runner((inputs,)))
        outputs.append(result)
        if batch_hooks:
            callback_list.on_batch_end("predict", step, {"outputs": result})
        if model.stop_predicting:
            break
    callback_list.on_predict_end()
    if not outputs:
        raise ValueError("Unexpected result of `predict_function` (Empty batch_outputs).")
    return nest.map_structure(lambda *parts: np.concatenate(parts), *outputs)


def _predict_inputs(x):
    """What ``predict`` iterates: a generator's batches are inputs alone, or ``(x,)``/``(x,
    y)``/``(x, y, w)`` tuples whose targets are left out."""
    if data_adapters.is_iterable_of_batches(x):
        return (data_adapters.unpack_x_y_sample_weight(batch)[0] for batch in x)
    return x


# --- one batch ----------------------------------------------------------------------------------


def train_on_batch(model, x, y=None, sample_weight=None, class_weight=None, return_dict=False):
    model._check_compiled(needs_loss=True)
    if class_weight is not None:
        if sample_weight is not None:
            raise ValueError(
                "Arguments `sample_weight` and `class_weight` cannot be specified at the same "
                f"time. Received: sample_weight={sample_weight}, class_weight={class_weight}"
            )
        sample_weight = data_adapters.class_weight_to_sample_weights(y, class_weight)
    return _on_batch(model, "train", train_step, (x, y, sample_weight), return_dict)


def test_on_batch(model, x, y=None, sample_weight=None, return_dict=False):
    model._check_compiled(needs_loss=True)
    return _on_batch(model, "test", test_step, (x, y, sample_weight), return_dict)


def _on_batch(model, kind, step, batch, return_dict):
    _reset_metrics(model)
    batch = tuple(
        data_adapters.as_structure(part, name)
        for part, name in zip(batch, ("x", "y", "sample_weight"))
    )
    logs = EpochLogs(model.metrics_names)
    logs.add(StepRunner(model, kind, step)(batch), _batch_size(batch))
    logs = logs.current()
    return logs if return_dict else _in_order(model, logs)


def predict_on_batch(model, x):
    result = StepRunner(model, "predict", predict_step)((data_adapters.as_structure(x, "x"),))
    return nest.map_structure(lambda t: t._value, result)


# --- arguments ----------------------------------------------------------------------------------


def _check_batch_size(batch_size):
    if batch_size is None:
        return 32
    if (
        not isinstance(batch_size, (int, np.integer))
        or isinstance(batch_size, bool)
        or batch_size < 1
    ):
        raise ValueError(f"batch_size must be a positive integer, got {batch_size!r}")
    return int(batch_size)


def _standardize_verbose(verbose):
    return 1 if verbose == "auto" else verbose
