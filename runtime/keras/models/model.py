"""``Model``: a layer made of layers, that trains (``compile``, ``fit``, ``evaluate``, ``predict``).

>>> import numpy as np, runtime as rt
>>> class Linear(rt.keras.Model):
...     def __init__(self):
...         super().__init__()
...         self.dense = rt.keras.layers.Dense(1, kernel_initializer="zeros")
...     def call(self, x):
...         return self.dense(x)
>>> rt.keras.backend.clear_session()
>>> model = Linear()
>>> model.compile(optimizer=rt.keras.optimizers.SGD(0.1), loss="mse")
>>> x = np.array([[0.0], [1.0], [2.0]], np.float32)
>>> history = model.fit(x, 2 * x + 1, epochs=200, verbose=0)
>>> model.predict(np.array([[3.0]])).round(3)
array([[7.]], dtype=float32)
>>> model.name, [v.name for v in model.weights]
('linear', ['dense/kernel:0', 'dense/bias:0'])
"""

from __future__ import annotations

from runtime.core import context, dtypes
from runtime.core.tensor_shape import TensorShape
from runtime.core.tensor_spec import TensorSpec
from runtime.execution import staging
from runtime.execution.tracing import trace
from runtime.keras import metrics as metrics_module
from runtime.keras import optimizers
from runtime.keras.layers.base import Layer
from runtime.keras.metrics.metric import Metric
from runtime.keras.models import compile_config, compile_utils, training
from runtime.keras.models import summary as summary_module
from runtime.keras.saving import saving_api
from runtime.ops.constant_ops import cast
from runtime.ops.math_ops import add_n
from runtime.ops.reduction_ops import reduce_sum
from runtime.saving.writer import save

# The class of functional models (runtime.keras.models.functional, which sets it): what
# Model(inputs, outputs) makes.
FUNCTIONAL = {}


def _functional_arguments(args, kwargs):
    """Whether a model is made from inputs and outputs (Keras' rule)."""
    return (
        len(args) == 2
        or (len(args) == 1 and "outputs" in kwargs)
        or ("inputs" in kwargs and "outputs" in kwargs)
    )


class Model(Layer):
    """A model: subclass it, create layers in ``__init__`` and use them in ``call``; or
    ``Model(inputs, outputs)`` from ``rt.keras.Input`` KerasTensors (the functional API:
    ``runtime.keras.models.functional``).
    """

    _base_class_name = "Model"

    def __new__(cls, *args, **kwargs):
        if cls is Model and _functional_arguments(args, kwargs):
            return super().__new__(FUNCTIONAL["class"])
        return super().__new__(cls)

    def __init__(self, *args, **kwargs):
        if _functional_arguments(args, kwargs):  # a subclass made from inputs and outputs
            FUNCTIONAL["class"].become_functional(self, *args, **kwargs)
            return
        if args:
            raise TypeError(f"Model.__init__ takes keyword arguments only; got {args!r}")
        super().__init__(**kwargs)
        self.optimizer = None
        self.loss = None
        self._compile_loss = self._compile_metrics = self._loss_tracker = None
        self.run_eagerly = False
        self.train_function = self.test_function = self.predict_function = None
        self._staged_steps = {}  # (kind, input signature) -> staged step, until compile
        self.stop_training = False
        self.history = None
        self._is_compiled = False

    def call(self, inputs, training=None):
        raise NotImplementedError(
            f"Model {type(self).__name__} has no call(): when subclassing the `Model` class, "
            "you should implement a `call()` method."
        )

    @property
    def layers(self):
        """The layers this model holds directly, in the order they were assigned."""
        return self._sublayers()

    @layers.setter
    def layers(self, _):
        raise AttributeError(
            "`Model.layers` attribute is reserved and should not be used. Please use another name."
        )

    def get_layer(self, name=None, index=None):
        """The layer of that name, or at that index of ``layers``."""
        if index is not None:
            return self.layers[index]
        for layer in self.layers:
            if layer.name == name:
                return layer
        raise ValueError(
            f"No such layer: {name}. Existing layers are: {[x.name for x in self.layers]}."
        )

    @classmethod
    def from_config(cls, config, custom_objects=None):
        """The model a ``get_config()`` describes: a functional model's config (``layers``,
        ``input_layers``, ``output_layers``) makes a functional model."""
        revived = FUNCTIONAL["class"].revive(cls, config, custom_objects)
        return revived if revived is not None else cls(**config)

    # --- building ----------------------------------------------------------------------------

    def build(self, input_shape):
        """Builds the model for inputs of ``input_shape`` (batch dimension included, ``None``
        allowed) by calling it on a placeholder in a scratch graph."""
        if input_shape is None:
            raise ValueError("Input shape must be defined when calling `build()` on a model.")
        spec = TensorSpec(input_shape, self._dtype)
        with context.eager_mode():
            trace(lambda x: self.call(x), [spec], "scratch_graph")
        self._build_input_shape = spec.shape
        self.built = True

    def _maybe_build(self, input_shape):
        if type(self).build is Model.build:
            # A subclassed model's layers build themselves when its call uses them.
            self._build_input_shape = input_shape
            self.built = True
        else:
            super()._maybe_build(input_shape)

    def summary(self, line_length=None, positions=None, print_fn=None):
        """Prints the table of layers (name and type, output shape, parameters) and the totals.
        The output shape of a layer of a subclassed model is ``multiple``: its call decides."""
        print_fn = print_fn or print
        for line in summary_module.summary_lines(self, line_length, positions):
            print_fn(line)

    def _summary_output_shapes(self):
        return ["multiple"] * len(self.layers)

    # --- training ----------------------------------------------------------------------------

    def compile(
        self,
        optimizer="rmsprop",
        loss=None,
        loss_weights=None,
        metrics=None,
        weighted_metrics=None,
        run_eagerly=False,
        steps_per_execution=1,
        jit_compile="auto",
        auto_scale_loss=True,
    ):
        """Sets the optimizer, the loss and the metrics; with ``run_eagerly`` the training step
        runs as Python, op by op, instead of as a traced graph. Traces nothing.

        ``loss``, ``loss_weights``, ``metrics`` and ``weighted_metrics`` (metrics that get
        the sample weights) may be given per output, as a list or a dict by output name
        (``runtime.keras.models.compile_utils``). The metrics are built at the first batch.
        """
        # Everything is checked before anything changes: a refused compile leaves the model
        # as it was.
        new_optimizer = optimizers.get(optimizer)
        output_names = getattr(self, "output_names", None)
        compile_loss = compile_metrics = None
        if loss is not None:
            compile_utils.check_losses(loss)
            compile_loss = compile_utils.CompileLoss(loss, loss_weights, output_names=output_names)
        if metrics is not None or weighted_metrics is not None:
            compile_metrics = compile_utils.CompileMetrics(
                metrics, weighted_metrics, output_names=output_names
            )
            compile_utils.check_metric_names([metrics or [], weighted_metrics or []])
        self.optimizer, self.loss = new_optimizer, loss
        self._compile_loss, self._compile_metrics = compile_loss, compile_metrics
        self._loss_tracker = metrics_module.Mean(name="loss")
        self.run_eagerly = bool(run_eagerly)
        self.jit_compile = False if run_eagerly or jit_compile == "auto" else bool(jit_compile)
        self.steps_per_execution = steps_per_execution
        self._compile_arguments = {  # what a .keras file's compile config records
            "loss_weights": loss_weights,
            "metrics": metrics,
            "weighted_metrics": weighted_metrics,
            "jit_compile": jit_compile,
        }
        self.train_function = self.test_function = self.predict_function = None
        self._staged_steps = {}
        self._is_compiled = True

    @property
    def compiled_loss(self):
        return self._compile_loss

    @property
    def compiled_metrics(self):
        return self._compile_metrics

    @property
    def compiled(self):
        return self._is_compiled

    @property
    def metrics(self):
        """The loss tracker (``"loss"``), the compiled metrics, each output's loss tracker, then
        the Metric objects the model holds in its attributes, as Keras 3 orders them."""
        found = []
        if self._is_compiled:
            found.append(self._loss_tracker)
            if self._compile_metrics is not None:
                found.append(self._compile_metrics)
            if self._compile_loss is not None:
                found.extend(self._compile_loss.metrics)
        compiled = {id(self._loss_tracker), id(self._compile_metrics)}
        for value in vars(self).values():
            for item in value if isinstance(value, (list, tuple)) else (value,):
                if isinstance(item, Metric) and id(item) not in compiled:
                    found.append(item)
        return found

    @property
    def metrics_names(self):
        """The names of ``metrics``: ``["loss", "compile_metrics", ...]`` once compiled with
        metrics, as in Keras 3 (the logs name each compiled metric)."""
        return [m.name for m in self.metrics]

    @property
    def metrics_variables(self):
        """The state variables of every metric in ``metrics``."""
        return [v for metric in self.metrics for v in metric.variables]

    def reset_metrics(self):
        """Resets the state of every metric in ``metrics`` (``fit`` does it each epoch)."""
        for metric in self.metrics:
            metric.reset_state()

    def compute_loss(self, x=None, y=None, y_pred=None, sample_weight=None, training=True):
        """The compiled loss of ``y_pred`` against ``y`` plus the model's added losses
        (``self.losses``: ``add_loss``, regularizers), summed. Override to change the loss."""
        del x, training  # the default loss reads neither
        parts = []
        if self._compile_loss is not None:
            value = self._compile_loss(y, y_pred, sample_weight)
            if value is not None:
                parts.append(value)
        for extra in getattr(self, "losses", None) or ():
            parts.append(reduce_sum(cast(extra, dtypes.float32)))
        if not parts:
            raise ValueError("No loss to compute. Provide a `loss` argument in `compile()`.")
        return parts[0] if len(parts) == 1 else add_n(parts)

    @training.keras_default
    def train_step(self, data):
        """One batch of ``fit``, Keras 3's: ``data`` is ``x``, ``(x,)``, ``(x, y)`` or ``(x, y,
        sample_weight)`` (``rt.keras.utils.unpack_x_y_sample_weight`` unpacks it); the loss
        (``compute_loss``) is minimized by the optimizer, the metrics updated, their results
        returned by name. Override it to train another way (Keras' guide "Customizing what
        happens in fit()"): ``fit`` stages the override, once per input signature.

        >>> import numpy as np, runtime as rt
        >>> class Doubled(rt.keras.Sequential):
        ...     def train_step(self, data):
        ...         logs = super().train_step(data)
        ...         return {**logs, "loss_times_2": 2 * logs["loss"]}
        >>> model = Doubled([rt.keras.layers.Dense(1, kernel_initializer="zeros")])
        >>> model.compile("sgd", "mse")
        >>> history = model.fit(np.ones((4, 1)), np.ones((4, 1)), verbose=0)
        >>> {k: round(v[0], 3) for k, v in history.history.items()}
        {'loss': 1.0, 'loss_times_2': 2.0}
        """
        return training.default_train_step(self, data)

    @training.keras_default
    def test_step(self, data):
        """One batch of ``evaluate``, Keras 3's: the loss and metrics updated in inference
        mode, their results returned by name. Override it as ``train_step``."""
        return training.default_test_step(self, data)

    def predict_step(self, data):
        """One batch of ``predict``, Keras 3's: ``self(x, training=False)`` for the batch's
        ``x``. Override it to predict another way."""
        return training.default_predict_step(self, data)

    @training.keras_default
    def compute_metrics(self, x, y, y_pred, sample_weight=None):
        """Updates the compiled metrics with the batch; returns ``get_metrics_result()``."""
        del x  # the default metrics do not read it
        if self._compile_metrics is not None:
            self._compile_metrics.update_state(y, y_pred, sample_weight)
        return self.get_metrics_result()

    def get_metrics_result(self):
        """Every metric's result by name (a metric giving a dict adds its entries)."""
        results = {}
        for metric in self.metrics:
            value = metric.result()
            if isinstance(value, dict):
                results.update(value)
            else:
                results[metric.name] = value
        return results

    def _metric_log_names(self):
        """The names of the metrics' results in the order of ``metrics`` (each compiled metric
        in its place)."""
        names = []
        for metric in self.metrics:
            if isinstance(metric, compile_utils.CompileMetrics):
                names.extend(metric.result_names())
            else:
                names.append(metric.name)
        return names

    def _logs_in_order(self, logs):
        """``logs`` with the metrics' names first, in the order of ``metrics``: a staged step
        returns its dict sorted by key, an eager one in the order it was made."""
        names = [name for name in self._metric_log_names() if name in logs]
        return {**{name: logs[name] for name in names}, **logs}

    def _flatten_metrics_in_order(self, logs):
        """``logs`` as a list, in the order of ``metrics``, then any other keys sorted; one value
        alone, as Keras' ``evaluate`` returns it."""
        names = [name for name in self._metric_log_names() if name in logs]
        values = [logs[name] for name in names]
        values += [logs[key] for key in sorted(logs) if key not in names]
        return values[0] if len(values) == 1 else values

    def _check_compiled(self):
        """ValueError in Keras 3's words before ``compile``. Whether there is a loss is
        ``compute_loss``'s to say: a model may have only the losses it adds (``add_loss``)."""
        if not self._is_compiled:
            raise ValueError("You must call `compile()` before using the model.")

    def fit(self, x=None, y=None, batch_size=None, epochs=1, verbose="auto", callbacks=None,
            validation_split=0.0, validation_data=None, shuffle=True, class_weight=None,
            sample_weight=None, initial_epoch=0, steps_per_epoch=None, validation_steps=None,
            validation_batch_size=None, validation_freq=1):  # fmt: skip
        """Trains for ``epochs`` passes over the data in batches; returns a ``History``.

        ``x`` and ``y`` are arrays (a list or dict of them for several inputs or
        outputs), or ``x`` is a generator (any iterable) of ``(x, y)`` or ``(x, y,
        sample_weight)`` batches. ``verbose=1`` (``"auto"``) prints ``Epoch i/n`` and a
        progress bar per epoch, ``2`` one line per epoch, ``0`` nothing. ``shuffle``
        reorders the examples every epoch (with ``rt.random.set_seed``, the same way on
        every run). The rest are Keras 3's: docs/training.md.
        """
        return training.fit(
            self, x, y, batch_size, epochs, verbose, callbacks, validation_split,
            validation_data, shuffle, class_weight, sample_weight, initial_epoch,
            steps_per_epoch, validation_steps, validation_batch_size, validation_freq,
        )  # fmt: skip

    def evaluate(self, x=None, y=None, batch_size=None, verbose="auto", sample_weight=None,
                 steps=None, callbacks=None, return_dict=False):  # fmt: skip
        """The loss (and metrics: ``[loss, *metrics]``) over the data, in inference mode;
        ``callbacks`` get the test hooks (``on_test_begin``, ``on_test_batch_end``...)."""
        return training.evaluate(
            self, x, y, batch_size, verbose, sample_weight, steps, callbacks, return_dict
        )

    def predict(self, x, batch_size=None, verbose=0, steps=None, callbacks=None):
        """The model's outputs for ``x`` (arrays, a list or dict of them, or a generator of
        batches), batch by batch, as numpy arrays (a list or dict of them for several
        outputs); ``callbacks`` get the predict hooks (``on_predict_batch_end`` with
        ``{"outputs": ...}``)."""
        return training.predict(self, x, batch_size, verbose, steps, callbacks)

    def train_on_batch(self, x, y=None, sample_weight=None, class_weight=None, return_dict=False):
        """One training step on this batch; its loss (and metrics), as ``evaluate`` gives them."""
        return training.train_on_batch(self, x, y, sample_weight, class_weight, return_dict)

    def test_on_batch(self, x, y=None, sample_weight=None, return_dict=False):
        """The loss (and metrics) of this batch, in inference mode."""
        return training.test_on_batch(self, x, y, sample_weight, return_dict)

    def predict_on_batch(self, x):
        """The model's outputs for this batch, as numpy arrays."""
        return training.predict_on_batch(self, x)

    # --- saving ------------------------------------------------------------------------------

    def save(self, filepath, overwrite=True, signatures=None, **kwargs):
        """``"m.keras"``: Keras 3's ``.keras`` file (``rt.keras.saving.save_model``). A path
        without that extension: a SavedModel directory, with ``rt.saved_model.save`` (see
        ``_saved_model_functions``), where Keras 3 raises: programs written for TensorFlow 2's
        Keras save so."""
        if str(filepath).endswith(".keras"):
            saving_api.save_model(self, filepath, overwrite=overwrite, **kwargs)
        elif kwargs:
            raise TypeError(f"save() got unexpected keyword arguments: {sorted(kwargs)}")
        else:
            save(self, filepath, signatures=signatures)

    def save_weights(self, filepath, overwrite=True):
        """Saves the weights (and the optimizer's state) to a ``.weights.h5`` file."""
        saving_api.save_weights(self, filepath, overwrite=overwrite)

    def load_weights(self, filepath, skip_mismatch=False):
        """Assigns the weights from a ``.weights.h5`` or ``.keras`` file."""
        saving_api.load_weights(self, filepath, skip_mismatch=skip_mismatch)

    def get_compile_config(self):
        """What ``compile`` was given, as Keras 3 saves it (``{}`` before ``compile``)."""
        if not self._is_compiled:
            return {}
        return compile_config.compile_config(self)

    def compile_from_config(self, config):
        """Compiles the model as ``get_compile_config()`` describes, optimizer state made."""
        compile_config.compile_from_config(self, config)

    def _saved_model_functions(self):
        """What ``rt.saved_model.save`` saves of a model besides its variables: the
        ``ag.function`` methods with an input_signature its class defines, and once built,
        its ``__call__`` in inference mode, traced for the shape it was built with (any batch
        size), also as the ``serving_default`` signature unless others are given. Not the
        training steps ``fit`` keeps."""
        functions = {}
        for cls in type(self).__mro__[: type(self).__mro__.index(Model)]:
            for name in vars(cls):
                fn = getattr(self, name) if not name.startswith("_") else None
                if hasattr(fn, "get_concrete_function") and getattr(fn, "input_signature", None):
                    functions.setdefault(name, fn.get_concrete_function())
        shape = self._build_input_shape
        if self.built and isinstance(shape, TensorShape) and shape.rank:  # one input tensor
            spec = TensorSpec([None, *shape.as_list()[1:]], self._dtype)
            serve = staging.function(lambda inputs: self(inputs, training=False), self.name, [spec])
            functions["__call__"] = functions["serving_default"] = serve.get_concrete_function()
        return functions
