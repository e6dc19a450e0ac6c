"""What ``compile`` makes of its ``loss`` and ``metrics``: ``CompileLoss`` and ``CompileMetrics``.

Both are built at the first batch, from the labels and the predictions: a string
such as ``"accuracy"`` is resolved by their shapes (binary when the predictions
have one column, sparse categorical when the labels have one axis fewer or one
column against several, else categorical), as Keras 3 resolves it. For a model
with several outputs (a list or a dict of predictions), ``loss``, ``loss_weights``
and ``metrics`` may be one per output, as a list (in the outputs' order) or a
dict keyed by output name (``model.output_names`` when the model has them, else
the predictions' dict keys). A metric of one of several named outputs is logged
as ``<output>_<metric>``; each output's loss, with several losses, as
``<output>_loss``.

>>> import runtime as rt
>>> metrics = CompileMetrics(["accuracy", "mse"], None)
>>> metrics.update_state(rt.constant([[0.0, 1.0], [1.0, 0.0]]), rt.constant([[0.1, 0.9], [0.2, 0.8]]))
>>> {name: round(float(value), 6) for name, value in metrics.result().items()}  # categorical
{'accuracy': 0.5, 'mse': 0.325}
"""

from __future__ import annotations

from runtime.core import dtypes, nest
from runtime.keras import losses as losses_module
from runtime.keras import metrics as metrics_module
from runtime.keras.metrics.metric import Metric
from runtime.ops.constant_ops import cast, convert_to_tensor
from runtime.ops.shape_ops import shape as shape_op


def _shape_of(x):
    """``x``'s shape as a list: a tensor's, a TensorSpec's (a symbolic build), an array's."""
    shape = x.shape if hasattr(x, "shape") else convert_to_tensor(x).shape
    return shape.as_list() if hasattr(shape, "as_list") else list(shape)


def is_binary_or_sparse_categorical(y_true, y_pred):
    """``(binary, sparse)``: how ``"accuracy"`` and ``"crossentropy"`` read these shapes."""
    true_shape, pred_shape = _shape_of(y_true), _shape_of(y_pred)
    binary = bool(pred_shape) and pred_shape[-1] == 1
    sparse = len(true_shape) < len(pred_shape) or (
        bool(true_shape) and true_shape[-1] == 1 and bool(pred_shape) and pred_shape[-1] != 1
    )
    return binary, sparse


def get_metric(identifier, y_true, y_pred):
    """The Metric object ``identifier`` (a name, a function, a Metric) stands for, named as
    Keras names it in the logs: the string given, else the metric's or function's name."""
    if identifier is None:
        raise ValueError("Expected metric, received `None`")
    if str(identifier).lower() in ("accuracy", "acc"):
        binary, sparse = is_binary_or_sparse_categorical(y_true, y_pred)
        if binary:
            metric = metrics_module.BinaryAccuracy(name=str(identifier))
        elif sparse:
            metric = metrics_module.SparseCategoricalAccuracy(name=str(identifier))
        else:
            metric = metrics_module.CategoricalAccuracy(name=str(identifier))
    else:
        metric = metrics_module.get(identifier)
    if isinstance(identifier, str):
        name = identifier
    else:
        name = getattr(metric, "name", None) or getattr(metric, "__name__", "metric")
    if not isinstance(metric, Metric):
        metric = metrics_module.MeanMetricWrapper(metric)
    metric.name = name
    return metric


def check_metric_names(metrics):
    """ValueError at ``compile`` for a metric name that ``get_metric`` would not know."""
    for identifier in nest.flatten(metrics):
        if not isinstance(identifier, str) or identifier.lower() in ("accuracy", "acc"):
            continue
        if identifier not in metrics_module.lookup.BY_NAME:
            raise ValueError(
                f"Unknown metric function: '{identifier}'. Use 'accuracy', a name of "
                "rt.keras.metrics (such as 'mse' or 'binary_accuracy'), a Metric object or a "
                "function of (y_true, y_pred)."
            )


def check_losses(loss):
    """Raises at ``compile`` for a loss ``losses.get`` refuses (an unknown name, a class)."""
    for identifier in nest.flatten(loss):
        if identifier is not None and str(identifier).lower() not in ("crossentropy", "ce"):
            losses_module.get(identifier)


def get_loss(identifier, y_true, y_pred):
    """The Loss object ``identifier`` stands for (``"crossentropy"`` resolved by the shapes);
    None for an output without a loss."""
    if identifier is None:
        return None
    if str(identifier).lower() in ("crossentropy", "ce"):
        binary, sparse = is_binary_or_sparse_categorical(y_true, y_pred)
        identifier = (
            "binary_crossentropy"
            if binary
            else "sparse_categorical_crossentropy"
            if sparse
            else "categorical_crossentropy"
        )
    loss = losses_module.get(identifier)
    if isinstance(identifier, str) and not isinstance(identifier, losses_module.Loss):
        loss.name = identifier
    return loss


# --- the outputs ---------------------------------------------------------------------------------


def output_names_of(y_pred, model_output_names):
    """The names of a dict of predictions: the model's output names when they are its keys,
    else the keys in sorted order; a list's: the model's (or None)."""
    if isinstance(y_pred, dict):
        if model_output_names and set(y_pred) == set(model_output_names):
            return list(model_output_names)
        return sorted(y_pred)
    return list(model_output_names) if model_output_names else None


def per_output(values, count):
    """``values`` (labels, weights) as one per output: nested values flattened, a single value
    for each of ``count`` outputs."""
    if count == 1:  # a one-output structure ([y], {"out": y}) is its one value
        flat = nest.flatten(values) if nest.is_nested(values) else [values]
        return flat if len(flat) == 1 else [values]
    return nest.flatten(values) if nest.is_nested(values) else [values] * count


def _structure(y):
    return nest.map_structure(lambda _: "X", y)


def _spread(setting, names, count):
    """A per-output setting (loss, metrics, weights) as one entry per output, or None when it is
    not one per output."""
    if isinstance(setting, (list, tuple)) and len(setting) == count:
        return list(setting)
    if isinstance(setting, dict) and names and set(setting) <= set(names):
        return [setting.get(name) for name in names]
    return None


def leaf_paths(y):
    """The path (keys and indices) of each leaf of ``y``, in ``nest.flatten``'s order."""
    if isinstance(y, dict):
        return [(key, *rest) for key in sorted(y) for rest in leaf_paths(y[key])]
    if isinstance(y, (list, tuple)):
        return [(i, *rest) for i, item in enumerate(y) for rest in leaf_paths(item)]
    return [()]


def at_path(y, path):
    for key in path:
        y = y[key]
    return y


def read_along(setting, y_pred, argument, broadcast, path=()):
    """``setting`` (a loss or metrics structure) as one entry per leaf of ``y_pred``, read along
    its structure: a dict by key (a missing key: None), a list or tuple item by item; a leaf
    ``setting`` covers the outputs under it when ``broadcast``."""
    one_output = not nest.is_nested(y_pred) or len(nest.flatten(y_pred)) == 1
    if (
        argument == "loss"
        and one_output
        and isinstance(setting, (list, tuple))
        and len(setting) == 1
    ):
        setting = setting[0]  # one output's loss given in a list, as Keras accepts it
    if not nest.is_nested(y_pred):
        if isinstance(setting, dict):
            raise KeyError(
                f"The path: {path} in the `{argument}` argument, can't be found in the model's "
                "output (`y_pred`)."
            )
        return [setting]
    if setting is None:
        return [None] * len(leaf_paths(y_pred))
    if isinstance(setting, dict):
        if not isinstance(y_pred, dict):
            raise KeyError(
                f"The path: {path} in the `{argument}` argument, can't be found in the model's "
                "output (`y_pred`)."
            )
        for key in setting:
            if key not in y_pred:
                raise KeyError(
                    f"The path: {(*path, key)} in the `{argument}` argument, can't be found in "
                    "either the model's output (`y_pred`) or in the labels (`y_true`)."
                )
        return [
            entry
            for key in sorted(y_pred)
            for entry in read_along(
                setting.get(key), y_pred[key], argument, broadcast, (*path, key)
            )
        ]
    if isinstance(setting, (list, tuple)) and isinstance(y_pred, (list, tuple)):
        if len(setting) != len(y_pred):
            raise ValueError(
                f"`{argument}` has {len(setting)} entries at {path or 'the top'} where the "
                f"model's output has {len(y_pred)}: {_structure(y_pred)}"
            )
        return [
            entry
            for i, (item, pred) in enumerate(zip(setting, y_pred))
            for entry in read_along(item, pred, argument, broadcast, (*path, i))
        ]
    if broadcast and not nest.is_nested(setting):
        return [setting] * len(leaf_paths(y_pred))
    raise ValueError(
        f"`{argument}` does not match the structure of the model's output: "
        f"{_structure(y_pred)}. Received: {argument}={setting}"
    )


# --- metrics -------------------------------------------------------------------------------------


class CompileMetrics(Metric):
    """The metrics given to ``compile`` (and ``weighted_metrics``, which get the sample
    weights), one list per output, built at the first ``update_state``; ``result()`` is a dict
    of the values by log name."""

    def __init__(self, metrics, weighted_metrics, name="compile_metric", output_names=None):
        super().__init__(name=name)
        for argument, value in (("metrics", metrics), ("weighted_metrics", weighted_metrics)):
            if value and not isinstance(value, (list, tuple, dict)):
                raise ValueError(
                    f"Expected `{argument}` argument to be a list, tuple, or dict. Received "
                    f"instead: {argument}={value} of type {type(value)}"
                )
        self._user_metrics = metrics
        self._user_weighted_metrics = weighted_metrics
        self.name = "compile_metrics"
        self.output_names = output_names
        self.built = False
        self._names = None
        self._flat_metrics = self._flat_weighted_metrics = []

    @property
    def metrics(self):
        """Every metric built, unweighted first."""
        found = []
        for entry in self._flat_metrics + self._flat_weighted_metrics:
            found.extend(entry[1] if entry else [])
        return found

    @property
    def variables(self):
        return [v for metric in self.metrics for v in metric.variables]

    def build(self, y_true, y_pred):
        count = len(nest.flatten(y_pred))
        names = output_names_of(y_pred, self.output_names)
        self._names = names if count > 1 and isinstance(y_pred, (dict, list, tuple)) else None
        if isinstance(y_pred, dict) and any(nest.is_nested(v) for v in y_pred.values()):
            self._names = None  # a deeply nested output: read in flattened order
            names = self.output_names
        trues, preds = self._flatten_y(y_true, count), self._flatten_y(y_pred, count)
        self._flat_metrics = self._build_set(
            self._user_metrics, trues, preds, names, y_pred, "metrics"
        )
        self._flat_weighted_metrics = self._build_set(
            self._user_weighted_metrics, trues, preds, names, y_pred, "weighted_metrics"
        )
        self.built = True

    def _build_set(self, metrics, trues, preds, names, y_pred, argument):
        count = len(preds)
        if not metrics:
            return [None] * count
        if count == 1:
            return [(None, self._metric_list(nest.flatten(metrics), trues[0], preds[0]))]
        spread = _spread(metrics, names, count)
        if spread is None:
            try:
                spread = read_along(metrics, y_pred, argument, broadcast=False)
            except (KeyError, ValueError) as error:
                known = f"the output names of the model {names} or " if self.output_names else ""
                raise ValueError(
                    f"{error}\nInvalid `{argument}`. `{argument}` should contain metrics objects "
                    f"and either be a dict or a list matching {known}the output structure of the "
                    f"model: {_structure(y_pred)}.\nReceived: {argument}={metrics}"
                ) from error
        labels = names or [None] * count
        return [
            None if entry is None else (name, self._metric_list(entry, y_t, y_p))
            for entry, y_t, y_p, name in zip(spread, trues, preds, labels)
        ]

    @staticmethod
    def _metric_list(entry, y_true, y_pred):
        entries = entry if isinstance(entry, (list, tuple)) else [entry]
        return [get_metric(identifier, y_true, y_pred) for identifier in entries]

    def _flatten_y(self, y, count):
        if isinstance(y, dict) and self._names is not None:
            return [y[name] for name in self._names]
        return per_output(y, count)

    def update_state(self, y_true, y_pred, sample_weight=None):
        if not self.built:
            self.build(y_true, y_pred)
        count = len(self._flat_metrics)
        trues, preds = self._flatten_y(y_true, count), self._flatten_y(y_pred, count)
        for entry, y_t, y_p in zip(self._flat_metrics, trues, preds):
            for metric in entry[1] if entry else ():
                metric.update_state(y_t, y_p)
        weights = [None] * count
        if sample_weight is not None:
            weights = self._flatten_y(sample_weight, count)
            if len(weights) < count:  # one weight array for every output
                weights = [weights[0]] * count
        for entry, y_t, y_p, w in zip(self._flat_weighted_metrics, trues, preds, weights):
            for metric in entry[1] if entry else ():
                metric.update_state(y_t, y_p, sample_weight=w)

    def reset_state(self):
        for metric in self.metrics:
            metric.reset_state()

    def result(self):
        if not self.built:
            raise ValueError("Cannot get result() since the metric has not yet been built.")
        return {name: metric.result() for name, metric in self._named_metrics()}

    def result_names(self):
        """The keys of ``result()``, in its order, without computing it."""
        return [name for name, _ in self._named_metrics()] if self.built else []

    def _named_metrics(self):
        named, taken = [], {}
        for weighted, entries in ((False, self._flat_metrics), (True, self._flat_weighted_metrics)):
            for entry in entries:
                for metric in entry[1] if entry else ():
                    named.append((_log_name(entry[0], metric.name, weighted, taken), metric))
        return named

    def get_config(self):
        raise NotImplementedError


def _log_name(output_name, metric_name, weighted, taken):
    """A metric's key in the logs: ``<output>_<name>``; a repeated name gets ``_1``, ``_2``...
    (a weighted metric first ``weighted_<name>``), as Keras 3 names them."""

    def prefixed(name):
        return f"{output_name}_{name}" if output_name else name

    name = prefixed(metric_name)
    if name not in taken:
        taken[name] = 1
        return name
    if weighted:
        name = prefixed(f"weighted_{metric_name}")
        if name not in taken:
            taken[name] = 1
            return name
    index = taken[name]
    taken[name] += 1
    return f"{name}_{index}"


# --- loss ----------------------------------------------------------------------------------------


class CompileLoss:
    """The loss given to ``compile``: one Loss per output (or one for all), times its
    ``loss_weights`` entry, summed; with several losses each output's unweighted loss is
    tracked by a ``Mean`` named ``<output>_loss`` (``metrics``)."""

    def __init__(self, loss, loss_weights=None, reduction="sum_over_batch_size",
                 output_names=None):  # fmt: skip
        if loss_weights is not None and not isinstance(
            loss_weights, (list, tuple, dict, float, int)
        ):
            raise ValueError(
                "Expected `loss_weights` argument to be a float (single output case) or a list, "
                "tuple, or dict (multiple output case). Received instead: "
                f"loss_weights={loss_weights} of type {type(loss_weights)}"
            )
        self._user_loss = loss
        self._user_loss_weights = loss_weights
        self.reduction = reduction
        self.output_names = output_names
        self.name = "compile_loss"
        self.dtype = dtypes.float32
        self.built = False
        self.metrics = []
        self._flat_losses = []  # (path in y_pred, Loss, weight or None), outputs with a loss
        self._paths = []  # every output's path
        self._built_structure = None

    @property
    def variables(self):
        return [v for metric in self.metrics for v in metric.variables]

    def build(self, y_true, y_pred):
        loss, weights = self._by_output_names(y_pred)
        self._paths = leaf_paths(y_pred)
        self._built_structure = nest.map_structure(lambda _: None, y_pred)
        per_leaf = read_along(loss, y_pred, "loss", broadcast=True)
        weights = self._weights_per_leaf(weights, loss, y_pred, per_leaf)
        self._flat_losses = [
            (path, get_loss(entry, at_path(y_true, path) if _has(y_true, path) else None,
                            at_path(y_pred, path)), weight)
            for path, entry, weight in zip(self._paths, per_leaf, weights)
            if entry is not None
        ]  # fmt: skip
        self.metrics = []
        if len(self._flat_losses) > 1:
            self.metrics = [
                metrics_module.Mean(name=f"{self._loss_name(path, fn)}_loss")
                for path, fn, _ in self._flat_losses
            ]
        self.built = True

    def _by_output_names(self, y_pred):
        """A loss dict keyed by the model's output names, for outputs that are not a dict, as a
        list in the outputs' order (the weights too)."""
        loss, weights = self._user_loss, self._user_loss_weights
        names = self.output_names
        if names and isinstance(loss, dict) and not isinstance(y_pred, dict):
            if set(names) != set(loss):
                raise ValueError(
                    f"Expected keys {names} in loss dict, but found loss.keys()={list(loss)}"
                )
            loss = [loss[name] for name in names]
            if isinstance(weights, dict):
                weights = [weights.get(name) for name in names]
            if not isinstance(y_pred, (list, tuple)):
                loss = loss[0]
                weights = weights[0] if isinstance(weights, list) else weights
        return loss, weights

    def _weights_per_leaf(self, weights, loss, y_pred, per_leaf):
        if weights is None:
            return [None] * len(per_leaf)
        if not nest.is_nested(weights):
            return [weights] * len(per_leaf)
        try:
            return read_along(weights, y_pred, "loss_weights", broadcast=True)
        except (KeyError, ValueError):
            given = [entry for entry in nest.flatten(loss) if entry is not None]
            flat = nest.flatten(weights)
            if len(flat) != len(given):
                raise ValueError(
                    f"`loss_weights` must match the number of losses, got {len(given)} losses "
                    f"and {len(flat)} weights."
                ) from None
            in_order = iter(flat)  # one weight per loss given, in the loss's order
            return [None if entry is None else next(in_order) for entry in per_leaf]

    def _loss_name(self, path, loss):
        """A loss tracker's name: the output's path, its indices read as output names (or, with
        none, as the loss's name)."""
        flat_names = self.output_names or []
        index = self._paths.index(path)
        parts = []
        for key in path:
            if isinstance(key, int):
                key = flat_names[index] if index < len(flat_names) else loss.name
            parts.append(str(key))
        return "/".join(parts) or loss.name

    def _aligned_labels(self, y_true, y_pred, given_pred):
        """``y_true`` read as one label per output path of ``y_pred`` (``given_pred``: the
        predictions as the model gave them, before being read as the built structure)."""
        paths = self._paths
        if len(paths) == 1 and not nest.is_nested(y_true):
            return {paths[0]: y_true}
        if _same_structure(y_true, given_pred) and given_pred is not y_pred:
            return dict(zip(paths, nest.flatten(y_true)))
        if all(_has(y_true, path) for path in paths) and len(nest.flatten(y_true)) == len(paths):
            return {path: at_path(y_true, path) for path in paths}
        if isinstance(y_true, dict) and self.output_names and set(self.output_names) <= set(y_true):
            labels = [y_true[name] for name in self.output_names]
            return dict(zip(paths, labels))
        flat = nest.flatten(y_true) if nest.is_nested(y_true) else [y_true]
        if len(flat) == len(paths):
            return dict(zip(paths, flat))
        with_loss = [path for path, _, _ in self._flat_losses]
        if len(flat) == len(with_loss):  # labels only for the outputs that have a loss
            return dict(zip(with_loss, flat))
        raise ValueError(
            "y_true and y_pred have different structures.\n"
            f"y_true: {_structure(y_true)}\ny_pred: {_structure(y_pred)}\n"
        )

    def __call__(self, y_true, y_pred, sample_weight=None):
        """The weighted sum of the outputs' losses (None when no output has one)."""
        if not self.built:
            self.build(y_true, y_pred)
        given_pred = y_pred
        flat_pred = nest.flatten(y_pred)
        if len(flat_pred) == len(self._paths) and not all(_has(y_pred, p) for p in self._paths):
            y_pred = nest.pack_sequence_as(self._built_structure, flat_pred)  # as it was built
        labels = self._aligned_labels(y_true, y_pred, given_pred)
        weights = None
        if sample_weight is not None and nest.is_nested(sample_weight):
            weights = dict(zip(self._paths, per_output(sample_weight, len(self._paths))))
        trackers = iter(self.metrics)
        total = None
        for path, loss, weight in self._flat_losses:
            y_p = at_path(y_pred, path)
            w = weights.get(path) if weights is not None else sample_weight
            value = cast(loss(labels[path], y_p, w), self.dtype)
            if self.metrics:  # each output's unweighted loss, per example of the batch
                batch = cast(shape_op(convert_to_tensor(y_p))[0], self.dtype)
                next(trackers).update_state(value, sample_weight=batch)
            if weight is not None:
                value = value * cast(convert_to_tensor(weight), self.dtype)
            total = value if total is None else total + value
        return total


def _same_structure(a, b):
    try:
        nest.assert_same_structure(a, b)
    except (ValueError, TypeError):
        return False
    return True


def _has(y, path):
    """Whether ``path`` leads to a leaf of ``y``."""
    for key in path:
        if (
            isinstance(y, dict)
            and key in y
            or isinstance(y, (list, tuple))
            and isinstance(key, int)
            and key < len(y)
        ):
            y = y[key]
        else:
            return False
    return not nest.is_nested(y)
