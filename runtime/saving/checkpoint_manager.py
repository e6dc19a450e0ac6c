"""``rt.train.CheckpointManager`` and ``rt.train.latest_checkpoint`` (TensorFlow's, by name and
behaviour): numbered saves in a directory, the oldest deleted beyond ``max_to_keep``.

>>> import os, tempfile
>>> import runtime as rt
>>> directory = tempfile.mkdtemp()
>>> manager = rt.train.CheckpointManager(rt.train.Checkpoint(), directory, max_to_keep=2)
>>> paths = [manager.save() for _ in range(3)]
>>> [p.rsplit("/", 1)[1] for p in manager.checkpoints], os.path.exists(paths[0] + ".index")
(['ckpt-2', 'ckpt-3'], False)
>>> rt.train.latest_checkpoint(directory) == paths[-1] == manager.latest_checkpoint
True
"""

from __future__ import annotations

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
        # The checkpoints this manager may delete, oldest first: path -> when it was saved.
        self._managed = {}
        self._resume(get_checkpoint_state(self._directory), time.time())

    def _resume(self, state, now):
        """Takes over the checkpoints a state file lists (those in this manager's directory:
        a state file cannot make it delete files elsewhere)."""
        self._latest_checkpoint = state and state.model_checkpoint_path
        if state is None:
            # A little in the past, so a manager made again at once keeps what it saves.
            self._last_preserved_timestamp = now - 1.0
            return
        if state.last_preserved_timestamp > now:
            logger.warning(
                "time.time() returned a value %f seconds behind the last preserved checkpoint "
                "timestamp.",
                state.last_preserved_timestamp - now,
            )
        self._last_preserved_timestamp = min(state.last_preserved_timestamp, now)
        paths = state.all_model_checkpoint_paths
        saved_at = state.all_model_checkpoint_timestamps or [self._last_preserved_timestamp] * len(
            paths
        )
        for path, when in zip(paths, saved_at):
            when = min(when, now)  # a clock that went back does not make a save newer
            if when <= self._last_preserved_timestamp:
                continue  # kept for its age already: never deleted
            if self._owns(path):
                self._managed[path] = when
            else:
                logger.warning(
                    "%s lists %s, which is not in the directory %s: not managed (never deleted)",
                    os.path.join(self._directory, "checkpoint"),
                    path,
                    self._directory,
                )

    def _owns(self, path):
        return os.path.dirname(os.path.abspath(path)) == os.path.abspath(self._directory)

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
        return list(self._managed)

    def save(self, checkpoint_number=None, check_interval=True, options=None):
        """Saves a numbered checkpoint (``checkpoint_number``, or the checkpoint's save
        counter), deletes the oldest beyond ``max_to_keep``, and returns its path; None when
        ``checkpoint_interval`` steps have not passed since the last save."""
        if not self._interval_allows(check_interval):
            return None
        counter = self._checkpoint.save_counter
        counter.assign_add(1)
        number = _number(counter if checkpoint_number is None else checkpoint_number)
        path = self._checkpoint.write(f"{self._checkpoint_prefix}-{number}")
        self._managed.pop(path, None)  # saved again: now the newest
        self._managed[path] = time.time()
        self._latest_checkpoint = path
        retired = self._retire_oldest()
        # The state file names the new list before a file goes: killed while deleting, a
        # save leaves only unlisted files behind.
        self._record_state()
        for old in retired:
            remove_checkpoint(old)
        return path

    def _interval_allows(self, check_interval):
        """Whether ``step_counter`` moved enough since the last save (always without a
        ``checkpoint_interval``); remembers the step when it did."""
        if self._checkpoint_interval is None:
            return True
        step = _number(self._step_counter)
        if self._last_checkpoint_step is not None:
            steps = step - self._last_checkpoint_step
            if steps == 0 or (check_interval and steps < self._checkpoint_interval):
                return False
        self._last_checkpoint_step = step
        return True

    def _retire_oldest(self):
        """Takes the checkpoints beyond ``max_to_keep`` off the managed list, oldest first;
        returns those to delete: one saved ``keep_checkpoint_every_n_hours`` after the last
        kept one is kept for good instead."""
        if not self._max_to_keep:
            return []
        excess = list(self._managed)[: max(0, len(self._managed) - self._max_to_keep)]
        doomed = []
        for path in excess:
            saved_at = self._managed.pop(path)
            if self._kept_for_age(saved_at):
                self._last_preserved_timestamp = saved_at
            else:
                doomed.append(path)
        return doomed

    def _kept_for_age(self, saved_at):
        hours = self._keep_checkpoint_every_n_hours
        return bool(hours) and saved_at - self._last_preserved_timestamp >= hours * 3600.0

    def _record_state(self):
        write_state(
            self._directory,
            CheckpointState(
                model_checkpoint_path=self._latest_checkpoint,
                all_model_checkpoint_paths=list(self._managed),
                all_model_checkpoint_timestamps=list(self._managed.values()),
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
