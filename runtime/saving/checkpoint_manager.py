"""``rt.train.CheckpointManager`` and ``rt.train.latest_checkpoint`` (TensorFlow's, by name and
behaviour): numbered saves in a directory, the oldest deleted beyond ``max_to_keep``.

>>> import tempfile
>>> import runtime as rt
>>> directory = tempfile.mkdtemp()
>>> manager = rt.train.CheckpointManager(rt.train.Checkpoint(), directory, max_to_keep=2)
>>> paths = [manager.save() for _ in range(3)]
>>> [p.rsplit("/", 1)[1] for p in manager.checkpoints], rt.train.checkpoint_exists(paths[0])
(['ckpt-2', 'ckpt-3'], False)
>>> rt.train.latest_checkpoint(directory) == paths[-1] == manager.latest_checkpoint
True
"""

from __future__ import annotations

import collections
import logging
import os
import time

import numpy as np

from runtime.saving.checkpoint_files import checkpoint_exists, remove_checkpoint
from runtime.saving.checkpoint_state import CheckpointState, get_checkpoint_state, write_state

logger = logging.getLogger("runtime")


def latest_checkpoint(checkpoint_dir, latest_filename=None):
    """The newest checkpoint the ``checkpoint`` file of ``checkpoint_dir`` records, or None
    (no such file, or the checkpoint it names is gone: logged, as TensorFlow does)."""
    state = get_checkpoint_state(checkpoint_dir, latest_filename)
    if state is None or not state.model_checkpoint_path:
        return None
    if checkpoint_exists(state.model_checkpoint_path):
        return state.model_checkpoint_path
    logger.error("Couldn't match files for checkpoint %s", state.model_checkpoint_path)
    return None


def _number(value):
    """An int from a Python or numpy number, a tensor or a variable."""
    return int(np.asarray(value.numpy() if hasattr(value, "numpy") else value))


class CheckpointManager:
    """Saves ``checkpoint`` as ``<directory>/<checkpoint_name>-<n>`` and keeps the newest
    ``max_to_keep`` (``None``: all), each checkpoint ``keep_checkpoint_every_n_hours`` apart
    kept besides. Picks up the checkpoints the directory's ``checkpoint`` file lists."""

    def __init__(
        self,
        checkpoint,
        directory,
        max_to_keep,
        keep_checkpoint_every_n_hours=None,
        checkpoint_name="ckpt",
        step_counter=None,
        checkpoint_interval=None,
        init_fn=None,
        last_checkpoint_step=None,
    ):
        if max_to_keep is not None and max_to_keep <= 0:
            raise ValueError(
                f"Expected a positive integer or `None` for `max_to_keep`, got {max_to_keep}."
            )
        if checkpoint_interval is not None and step_counter is None:
            raise ValueError(
                "`step_counter` should be passed if `checkpoint_interval` is not None."
            )
        self._checkpoint = checkpoint
        self._max_to_keep = max_to_keep
        self._keep_checkpoint_every_n_hours = keep_checkpoint_every_n_hours
        self._directory = os.fspath(directory)
        self._checkpoint_prefix = os.path.join(self._directory, checkpoint_name)
        self._step_counter = step_counter
        self._checkpoint_interval = checkpoint_interval
        self._init_fn = init_fn
        self._last_checkpoint_step = last_checkpoint_step
        self._maybe_delete = collections.OrderedDict()  # path -> timestamp, oldest first
        self._recover(get_checkpoint_state(self._directory))

    def _recover(self, state):
        now = time.time()
        if state is None:
            self._latest_checkpoint = None
            # A little in the past, so a manager made again at once keeps what it saves.
            self._last_preserved_timestamp = now - 1.0
            return
        self._latest_checkpoint = state.model_checkpoint_path
        self._last_preserved_timestamp = state.last_preserved_timestamp
        if now < self._last_preserved_timestamp:
            logger.warning(
                "time.time() returned a value %f seconds behind the last preserved checkpoint "
                "timestamp.",
                self._last_preserved_timestamp - now,
            )
            self._last_preserved_timestamp = now
        timestamps = state.all_model_checkpoint_timestamps or [
            self._last_preserved_timestamp
        ] * len(state.all_model_checkpoint_paths)
        for path, timestamp in zip(state.all_model_checkpoint_paths, timestamps):
            timestamp = min(timestamp, now)
            if timestamp > self._last_preserved_timestamp:
                self._maybe_delete[path] = timestamp

    @property
    def directory(self):
        return self._directory

    @property
    def checkpoint(self):
        return self._checkpoint

    @property
    def checkpoint_interval(self):
        return self._checkpoint_interval

    @property
    def latest_checkpoint(self):
        """The newest checkpoint's prefix (for ``restore``), or None before any."""
        return self._latest_checkpoint

    @property
    def checkpoints(self):
        """The checkpoints managed (those kept for their age are not), oldest first."""
        return list(self._maybe_delete)

    def save(self, checkpoint_number=None, check_interval=True, options=None):
        """Saves a numbered checkpoint (``checkpoint_number``, or the checkpoint's save
        counter), deletes the oldest beyond ``max_to_keep``, and returns its path; None when
        ``checkpoint_interval`` steps have not passed since the last save."""
        if not self._due(check_interval):
            return None
        counter = self._checkpoint.save_counter
        counter.assign_add(1)
        number = _number(counter if checkpoint_number is None else checkpoint_number)
        path = self._checkpoint.write(f"{self._checkpoint_prefix}-{number}")
        self._maybe_delete.pop(path, None)  # saved again: now the newest
        self._maybe_delete[path] = time.time()
        self._latest_checkpoint = path
        # Recorded before deleting, and again after: a save killed while deleting still
        # leaves the new checkpoint listed.
        self._record_state()
        self._sweep()
        self._record_state()
        return path

    def _due(self, check_interval):
        if self._checkpoint_interval is None:
            return True
        step = _number(self._step_counter)
        last = self._last_checkpoint_step
        if last is not None and (
            step == last or (check_interval and step < last + self._checkpoint_interval)
        ):
            return False
        self._last_checkpoint_step = step
        return True

    def _sweep(self):
        if not self._max_to_keep:
            return
        while len(self._maybe_delete) > self._max_to_keep:
            path, timestamp = self._maybe_delete.popitem(last=False)
            hours = self._keep_checkpoint_every_n_hours
            if hours and timestamp - hours * 3600.0 >= self._last_preserved_timestamp:
                self._last_preserved_timestamp = timestamp  # kept for good, no longer managed
                continue
            remove_checkpoint(path)

    def _record_state(self):
        write_state(
            self._directory,
            CheckpointState(
                model_checkpoint_path=self._latest_checkpoint,
                all_model_checkpoint_paths=list(self._maybe_delete),
                all_model_checkpoint_timestamps=list(self._maybe_delete.values()),
                last_preserved_timestamp=self._last_preserved_timestamp,
            ),
        )

    def restore_or_initialize(self):
        """Restores the latest checkpoint and returns its path; without one, calls
        ``init_fn`` (when given) and returns None."""
        if self._latest_checkpoint is not None:
            self._checkpoint.restore(self._latest_checkpoint)
            if self._checkpoint_interval is not None:
                self._last_checkpoint_step = _number(self._step_counter)
            return self._latest_checkpoint
        if self._init_fn is not None:
            self._init_fn()
        return None
