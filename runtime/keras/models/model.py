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

from runtime.core import context
from runtime.core.tensor_shape import TensorShape
from runtime.core.tensor_spec import TensorSpec
from runtime.execution import staging
from runtime.execution.tracing import trace
from runtime.keras import losses, optimizers
from runtime.keras import metrics as metrics_module
from runtime.keras.layers.base import Layer
from runtime.keras.models import summary as summary_module
from runtime.keras.models import training
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
        self.compiled_loss = None
        self.compiled_metrics = []
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

    def compile(self, optimizer="rmsprop", loss=None, metrics=None, run_eagerly=False):
        """Sets the optimizer, the loss and the metrics; with ``run_eagerly`` the training step
        runs as Python, op by op, instead of as a traced graph. Traces nothing."""
        self.optimizer = optimizers.get(optimizer)
        self.loss = loss
        self.compiled_loss = None if loss is None else losses.get(loss)
        if metrics is None:
            metrics = []
        elif isinstance(metrics, str) or callable(metrics):
            metrics = [metrics]
        for metric in metrics:
            metrics_module.check(metric)
        self.compiled_metrics = list(metrics)
        self.run_eagerly = bool(run_eagerly)
        self.train_function = self.test_function = self.predict_function = None
        self._staged_steps = {}
        self._is_compiled = True

    @property
    def metrics_names(self):
        """``"loss"`` then each compiled metric's name: the keys of the logs and History."""
        return ["loss", *(metrics_module.name_of(m) for m in self.compiled_metrics)]

    def _check_compiled(self, needs_loss):
        if not self._is_compiled:
            raise RuntimeError(
                "You must compile your model before training/testing. Use "
                "`model.compile(optimizer, loss)`."
            )
        if needs_loss and self.compiled_loss is None:
            raise ValueError(
                "No loss found. You may have forgotten to provide a `loss` argument in the "
                "`compile()` method."
            )

    def fit(
        self,
        x=None,
        y=None,
        batch_size=32,
        epochs=1,
        verbose=1,
        callbacks=None,
        validation_split=0.0,
        validation_data=None,
        shuffle=True,
        initial_epoch=0,
    ):
        """Trains for ``epochs`` passes over ``(x, y)`` in batches; returns a ``History``.

        ``verbose=1`` prints ``Epoch i/n`` and a progress bar per epoch, ``2`` one
        line per epoch, ``0`` nothing. ``shuffle`` reorders the examples every epoch
        (with ``rt.random.set_seed``, the same way on every run).
        """
        return training.fit(
            self, x, y, batch_size, epochs, verbose, callbacks, validation_split,
            validation_data, shuffle, initial_epoch,
        )  # fmt: skip

    def evaluate(self, x=None, y=None, batch_size=32, verbose=1, return_dict=False, callbacks=None):
        """The loss (and metrics: ``[loss, *metrics]``) over ``(x, y)``, in inference mode;
        ``callbacks`` get the test hooks (``on_test_begin``, ``on_test_batch_end``...)."""
        return training.evaluate(self, x, y, batch_size, verbose, return_dict, callbacks)

    def predict(self, x, batch_size=32, verbose=0, callbacks=None):
        """The model's outputs for ``x``, batch by batch, as a numpy array; ``callbacks`` get
        the predict hooks (``on_predict_batch_end`` with ``{"outputs": ...}``)."""
        return training.predict(self, x, batch_size, verbose, callbacks)

    # --- saving ------------------------------------------------------------------------------

    def save(self, filepath, signatures=None):
        """Saves the model with ``rt.saved_model.save``: see ``_saved_model_functions``."""
        save(self, filepath, signatures=signatures)

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
