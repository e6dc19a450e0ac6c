"""``TensorBoard``: ``fit``'s logs as TensorBoard event files (the ``tensorboard`` extra)."""

from __future__ import annotations

import os

import numpy as np

from runtime.keras.callbacks.callback import Callback
from runtime.keras.callbacks.learning_rate import current_learning_rate
from runtime.views import summaries


class TensorBoard(Callback):
    """Writes ``fit``'s logs where ``tensorboard --logdir log_dir`` shows them, as Keras 3 does.

    ``log_dir/train`` gets each epoch's logs as ``epoch_<name>`` (the learning rate too),
    at step ``epoch``; ``log_dir/validation`` the ``val_`` ones under the same tags, and
    ``evaluation_<name>_vs_iterations`` after each evaluation, at the optimizer's step.
    ``update_freq`` (``"epoch"``, ``"batch"`` or a number of batches) adds ``batch_<name>``
    every that many training batches; ``histogram_freq`` the histograms of the weights every
    that many epochs; ``write_graph`` the training step's graph (when it is traced).
    ``write_images``, ``write_steps_per_second``, ``profile_batch`` and the embeddings
    arguments are accepted, as Keras' are, and write nothing.

    >>> import tempfile, numpy as np, runtime as rt
    >>> from tensorboard.backend.event_processing.event_accumulator import EventAccumulator
    >>> log_dir = tempfile.mkdtemp()
    >>> model = rt.keras.Sequential([rt.keras.layers.Dense(1, input_shape=(1,))])
    >>> model.compile(optimizer="sgd", loss="mse")
    >>> _ = model.fit(np.ones((2, 1)), np.ones((2, 1)), epochs=2, verbose=0,
    ...               callbacks=[rt.keras.callbacks.TensorBoard(log_dir)])
    >>> events = EventAccumulator(log_dir + "/train"); _ = events.Reload()
    >>> sorted(events.Tags()["tensors"]), events.Tags()["graph"]
    (['epoch_learning_rate', 'epoch_loss'], True)
    """

    def __init__(self, log_dir="logs", histogram_freq=0, write_graph=True, write_images=False,
                 write_steps_per_second=False, update_freq="epoch", profile_batch=0,
                 embeddings_freq=0, embeddings_metadata=None):  # fmt: skip
        super().__init__()
        self.log_dir = os.fspath(log_dir)
        self.histogram_freq = histogram_freq
        self.write_graph = write_graph
        self.update_freq = 1 if update_freq == "batch" else update_freq
        self._writers = {}
        self._global_train_batch = 0
        self._graph_written = False

    def _writer(self, name):
        """The writer of ``log_dir/name``, made at its first use (no file that stays empty)."""
        if name not in self._writers:
            self._writers[name] = summaries.create_file_writer(os.path.join(self.log_dir, name))
        return self._writers[name]

    def _scalars(self, writer_name, logs, step, prefix=""):
        with self._writer(writer_name).as_default():
            for name, value in logs.items():
                summaries.scalar(prefix + name, float(value), step=step)

    def on_train_begin(self, logs=None):
        self._global_train_batch = 0
        self._graph_written = not self.write_graph

    def on_train_batch_end(self, batch, logs=None):
        self._global_train_batch += 1
        if not self._graph_written:
            self._write_train_graph()
        if self.update_freq != "epoch" and self._global_train_batch % self.update_freq == 0:
            self._scalars("train", logs or {}, self._global_train_batch, "batch_")

    def _write_train_graph(self):
        self._graph_written = True
        staged = getattr(self.model, "train_function", None)
        if staged is not None and not self.model.run_eagerly:
            self._writer("train").write_graph(staged.get_concrete_function())

    def on_epoch_end(self, epoch, logs=None):
        logs = dict(logs or {})
        train = {k: v for k, v in logs.items() if not k.startswith("val_")}
        if getattr(self.model, "optimizer", None) is not None and "learning_rate" not in train:
            train["learning_rate"] = current_learning_rate(self.model.optimizer)
        self._scalars("train", train, epoch, "epoch_")
        validation = {k[4:]: v for k, v in logs.items() if k.startswith("val_")}
        if validation:
            self._scalars("validation", validation, epoch, "epoch_")
        if self.histogram_freq and epoch % self.histogram_freq == 0:
            self._histograms(epoch)

    def _histograms(self, epoch):
        writer = self._writer("train")
        for layer in self.model.layers:
            for weight in layer.weights:
                tag = weight.name.split(":")[0] + "/histogram"
                writer.write(_histogram_pb(tag, np.asarray(weight.numpy())), epoch)
        writer.flush()

    def on_test_end(self, logs=None):
        optimizer = getattr(self.model, "optimizer", None)
        if optimizer is None or not hasattr(optimizer, "iterations"):
            return
        step = int(np.asarray(optimizer.iterations.numpy()))
        named = {f"evaluation_{name}_vs_iterations": value for name, value in (logs or {}).items()}
        self._scalars("validation", named, step)

    def on_train_end(self, logs=None):
        for writer in self._writers.values():
            writer.close()
        self._writers = {}


def _histogram_pb(tag, values):
    from tensorboard.plugins.histogram import summary_v2  # the extra, checked by the writer

    return summary_v2.histogram_pb(tag, values)
