"""``fit``, ``evaluate`` and ``predict``: batches of data through one step function.

The step (forward, loss, gradients, optimizer update, metrics) is plain Python
on eager tensors with ``run_eagerly``; otherwise it is staged
(``runtime.execution.staging``: an ``ag.function`` when autograph is loaded;
compiled by XLA when the model was compiled with ``jit_compile=True``), traced
at the first batch for the data's structure, dtypes and shapes with the batch
size left open (one graph serves the last, smaller batch too) and then run as a
graph.

A step is the model's ``train_step(data)``, ``test_step(data)`` or
``predict_step(data)``, Keras 3's defaults (``default_train_step``...) unless
the model overrides them; ``data`` is ``x``, ``(x,)``, ``(x, y)`` or ``(x, y,
sample_weight)``, ``x`` and ``y`` possibly nested (a list or dict of inputs or
targets). As in Keras 3 the loss tracker and the metrics are stateful: a step
adds its batch to them and returns their running results (a dict of scalars by
name); the loop resets them at the start of each epoch (and of each evaluation)
with ``model.reset_metrics()`` and reports the last step's results. With the
default steps the loop stages a lean step that returns nothing and reads
``model.get_metrics_result()`` eagerly only when the logs are wanted: by a batch
hook that reads them, and at the end of the epoch.

The data (``data_adapters``) comes as numpy batches; the loop wraps each as
tensors without copying, calls the staged function directly, and calls only the
callbacks that have batch hooks (the progress bar draws only on a terminal).
"""

from __future__ import annotations

import functools
import inspect

import numpy as np

from runtime import xla  # noqa: F401  (registers XLA for jit_compile)
from runtime.core import dtypes, nest
from runtime.core.tensor import EagerTensor
from runtime.core.tensor_spec import TensorSpec
from runtime.execution import staging
from runtime.gradients.tape import GradientTape
from runtime.keras.callbacks import CallbackList
from runtime.keras.models import data_adapters
from runtime.keras.models.data_adapters import EpochIterator, get_data
from runtime.ops.constant_ops import cast, convert_to_tensor
from runtime.ops.shape_ops import shape as shape_op

# --- the steps ----------------------------------------------------------------------------------
#
# ``Model.train_step(data)``, ``test_step(data)`` and ``predict_step(data)`` are Keras 3's
# default steps (below); a model may override them, as Keras' guide "Customizing what happens in
# fit()" does. ``data`` is the batch packed as Keras packs it: ``x``, ``(x,)``, ``(x, y)`` or
# ``(x, y, sample_weight)``. When a model keeps the default steps, the loop stages a lean step
# that only updates the metrics' state, and reads their results eagerly when logs are wanted.


def default_train_step(model, data):
    """Keras 3's ``Model.train_step``: the loss (``model.compute_loss``) and its gradients
    applied by the optimizer, the loss tracker and the metrics updated; returns
    ``model.compute_metrics(...)``, the running results by name."""
    x, y, sample_weight = data_adapters.unpack_x_y_sample_weight(data)
    y_pred = _train_update(model, x, y, sample_weight)
    return model.compute_metrics(x, y, y_pred, sample_weight=sample_weight)


def default_test_step(model, data):
    """Keras 3's ``Model.test_step``: the batch's loss and metrics added to the running ones,
    the model in inference mode."""
    x, y, sample_weight = data_adapters.unpack_x_y_sample_weight(data)
    y_pred = _test_update(model, x, y, sample_weight)
    return model.compute_metrics(x, y, y_pred, sample_weight=sample_weight)


def default_predict_step(model, data):
    """Keras 3's ``Model.predict_step``: the model's outputs for the batch's ``x``."""
    x, _, _ = data_adapters.unpack_x_y_sample_weight(data)
    return model(x, training=False)


def _train_update(model, x, y, sample_weight):
    """Forward, loss, loss tracker and the optimizer's update; returns ``y_pred``."""
    with GradientTape() as tape:
        y_pred = model(x, training=True)
        loss = _compute_loss(model, x, y, y_pred, sample_weight, training=True)
        model._loss_tracker.update_state(loss, sample_weight=_examples(x))
        # The tracker keeps the loss; the gradients are of the scaled loss, which the
        # optimizer's apply divides back (loss_scale_factor, as Keras 3).
        loss = model.optimizer.scale_loss(loss)
    variables = model.trainable_variables
    if variables:
        grads = tape.gradient(loss, variables)
        model.optimizer.apply_gradients(zip(grads, variables))
    return y_pred


def _test_update(model, x, y, sample_weight):
    y_pred = model(x, training=False)
    loss = _compute_loss(model, x, y, y_pred, sample_weight, training=False)
    model._loss_tracker.update_state(loss, sample_weight=_examples(x))
    return y_pred


def _lean_train_step(model, data):
    """``default_train_step`` that returns nothing: the metrics' state is updated in the
    graph, their results read eagerly only when logs are wanted (``EpochLogs``)."""
    x, y, sample_weight = data_adapters.unpack_x_y_sample_weight(data)
    y_pred = _train_update(model, x, y, sample_weight)
    _update_compiled_metrics(model, y, y_pred, sample_weight)


def _lean_test_step(model, data):
    x, y, sample_weight = data_adapters.unpack_x_y_sample_weight(data)
    y_pred = _test_update(model, x, y, sample_weight)
    _update_compiled_metrics(model, y, y_pred, sample_weight)


def _update_compiled_metrics(model, y, y_pred, sample_weight):
    if model._compile_metrics is not None:
        model._compile_metrics.update_state(y, y_pred, sample_weight)


def _model_step(kind, model, data):
    """The model's own ``<kind>_step`` method (an override, or Keras' default)."""
    return getattr(model, f"{kind}_step")(data)


_LEAN_STEPS = {"train": _lean_train_step, "test": _lean_test_step}


def keras_default(method):
    """Marks a ``Model`` method as Keras' default: ``step_for`` stages the lean step while a
    model overrides neither its step nor ``compute_metrics``."""
    method.keras_default = True
    return method


def step_for(model, kind):
    """``(step, lean)``: the function a loop stages for ``kind`` (called with the model and the
    packed batch), and whether it is the lean form of Keras' default step (whose logs are
    ``model.get_metrics_result()``)."""
    lean = _LEAN_STEPS.get(kind)
    own = type(model)
    if lean is not None and all(
        getattr(getattr(own, name), "keras_default", False)
        for name in (f"{kind}_step", "compute_metrics")
    ):
        return lean, True
    return functools.partial(_model_step, kind), False


def _compute_loss(model, x, y, y_pred, sample_weight, training):
    """``model.compute_loss``, called without ``training`` when an override does not take it
    (Keras added the argument in 3.3)."""
    if "training" in inspect.signature(model.compute_loss).parameters:
        return model.compute_loss(x, y, y_pred, sample_weight, training=training)
    return model.compute_loss(x, y, y_pred, sample_weight)


def _examples(x):
    """The number of examples in ``x`` (its first tensor's first dimension), as a float: the
    loss tracker's weight for the batch's mean loss."""
    first = next(t for t in nest.flatten(x) if t is not None)
    return cast(shape_op(convert_to_tensor(first))[0], dtypes.float32)


# --- calling a step -----------------------------------------------------------------------------


class StepRunner:
    """Calls the model's step of ``kind`` (``step_for``) on numpy batches (nested ``(x, y,
    sample_weight)`` structures) and gives its result; ``lean`` says the result is None and
    the logs are ``model.get_metrics_result()``.

    With ``model.run_eagerly`` the step is called as Python. Otherwise it is the model's
    staged function of that kind (``model.train_function``...) for the batch's structure,
    dtypes and shapes, the batch size left open: its arrays are flattened to TensorSpecs and
    rebuilt inside. Traced at its first call, it is kept on the model until ``compile``.
    """

    def __init__(self, model, kind):
        self.model = model
        self.kind = kind
        self.step, self.lean = step_for(model, kind)
        self._signature = None  # the last batch's: (key, function, dtypes)

    def __call__(self, batch):
        if any(map(nest.is_nested, batch)):
            arrays = [a for a in nest.flatten(batch) if a is not None]
            layout = nest.describe(batch)
        else:  # plain arrays (and Nones): no structure to walk, the common case
            arrays = [a for a in batch if a is not None]
            layout = tuple([a is None for a in batch])
        key = (self.kind, layout, *[(a.dtype, a.shape[1:]) for a in arrays])
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
    kept), packed as Keras' steps take it."""
    given = iter(tensors)
    batch = nest.map_structure(lambda a: None if a is None else next(given), structure)
    return step(model, data_adapters.pack_x_y_sample_weight(*batch))


class EpochLogs:
    """The logs of an epoch: the last step's running results (the metrics accumulate over the
    epoch), in the order of ``model.metrics`` (a staged step returns its dict by key). After
    a lean step, ``model.get_metrics_result()``, read when ``current()`` is called."""

    def __init__(self, runner):
        self.model = runner.model
        self.lean = runner.lean
        self._last = None
        self._ran = False

    def add(self, result):
        self._last = result
        self._ran = True

    def current(self):
        if not self._ran:
            return {}
        results = self.model.get_metrics_result() if self.lean else self._last
        if not isinstance(results, dict):  # a custom step may return anything; Keras logs dicts
            return {}
        return {
            name: _as_float(value)
            for name, value in self.model._logs_in_order(_flat_logs(results)).items()
        }


def _flat_logs(results):
    """A step's results with nested dicts (``{m.name: m.result()}`` over ``model.metrics``
    gives the compiled metrics' dict) merged into one level, as Keras logs them."""
    flat = {}
    for name, value in results.items():
        if isinstance(value, dict):
            flat.update(_flat_logs(value))
        else:
            flat[name] = value
    return flat


def _as_float(value):
    """A logged value as Python: a number, or a numpy array for a metric of several values
    (Keras' F1Score of each class)."""
    value = np.asarray(value._value if isinstance(value, EagerTensor) else value)
    return float(value) if value.size == 1 else value


def _reset_metrics(model):
    reset = getattr(model, "reset_metrics", None)
    if reset is not None:
        reset()


# The model's flag a callback sets to end each loop at the current batch, as Keras 3 names them.
_STOP_FLAGS = {"train": "stop_training", "test": "stop_evaluating", "predict": "stop_predicting"}


def run_epoch(runner, epochs_iterator, callback_list, mode):
    """Runs the step over one epoch's batches, calling the ``mode`` batch hooks, until they end
    or a callback sets the model's stop flag; returns the logs. ValueError (Keras' words) when
    there was no batch."""
    logs = EpochLogs(runner)
    batch_hooks = callback_list.wants_batches(mode)
    ran = False
    for step, batch in epochs_iterator.epoch():
        if batch_hooks:
            callback_list.on_batch_begin(mode, step)
        logs.add(runner(batch))
        ran = True
        if batch_hooks:  # the logs read only by a callback that reads them
            callback_list.on_batch_end(mode, step, logs.current)
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
    model._check_compiled()
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
    runner = StepRunner(model, "train")
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
        logs = run_epoch(runner, iterator, callback_list, "train")
        if validation is not None and _should_validate(epoch, validation_freq):
            val_logs = _evaluate(model, validation, callback_list)  # test hooks run, as in Keras
            logs.update({f"val_{name}": value for name, value in val_logs.items()})
        callback_list.on_epoch_end(epoch, logs)
        if model.stop_training:
            break
    if epochs > 0:  # the moving averages become the weights (use_ema), as in Keras' fit
        model.optimizer.finalize_variable_values(model.trainable_variables)
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
    model._check_compiled()
    batch_size = _check_batch_size(batch_size)
    verbose = _standardize_verbose(verbose)
    iterator = EpochIterator(get_data(x, y, sample_weight, batch_size), steps)
    callback_list = CallbackList(
        callbacks, model, {"verbose": verbose, "epochs": 1, "steps": iterator.num_batches},
        add_progbar=verbose != 0,
    )  # fmt: skip
    logs = _evaluate(model, iterator, callback_list)
    return logs if return_dict else model._flatten_metrics_in_order(logs)


def _evaluate(model, iterator, callback_list):
    """The loss and metrics over the data, between ``on_test_begin`` and ``on_test_end``."""
    _reset_metrics(model)
    model.stop_evaluating = False
    callback_list.on_test_begin()
    logs = run_epoch(StepRunner(model, "test"), iterator, callback_list, "test")
    callback_list.on_test_end(logs)
    return logs


def predict(model, x, batch_size=None, verbose="auto", steps=None, callbacks=None):
    batch_size = _check_batch_size(batch_size)
    verbose = _standardize_verbose(verbose)
    data = get_data(_predict_inputs(x), batch_size=batch_size)
    iterator = EpochIterator(data, steps)
    callback_list = CallbackList(
        callbacks, model, {"verbose": verbose, "epochs": 1, "steps": iterator.num_batches},
        add_progbar=verbose != 0,
    )  # fmt: skip
    runner = StepRunner(model, "predict")
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
    model._check_compiled()
    if class_weight is not None:
        if sample_weight is not None:
            raise ValueError(
                "Arguments `sample_weight` and `class_weight` cannot be specified at the same "
                f"time. Received: sample_weight={sample_weight}, class_weight={class_weight}"
            )
        sample_weight = data_adapters.class_weight_to_sample_weights(y, class_weight)
    return _on_batch(model, "train", (x, y, sample_weight), return_dict)


def test_on_batch(model, x, y=None, sample_weight=None, return_dict=False):
    model._check_compiled()
    return _on_batch(model, "test", (x, y, sample_weight), return_dict)


def _on_batch(model, kind, batch, return_dict):
    _reset_metrics(model)
    batch = tuple(
        data_adapters.as_structure(part, name)
        for part, name in zip(batch, ("x", "y", "sample_weight"))
    )
    runner = StepRunner(model, kind)
    logs = EpochLogs(runner)
    logs.add(runner(batch))
    logs = logs.current()
    return logs if return_dict else model._flatten_metrics_in_order(logs)


def predict_on_batch(model, x):
    result = StepRunner(model, "predict")((data_adapters.as_structure(x, "x"),))
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
