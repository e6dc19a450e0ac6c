"""``rt.train``: training checkpoints (``tf.train.Checkpoint``, ``CheckpointManager``).

>>> import runtime as rt
>>> sorted(rt.train.__all__)
['Checkpoint', 'CheckpointManager', 'get_checkpoint_state', 'latest_checkpoint', 'list_variables']
"""

from runtime.saving.checkpoint import Checkpoint
from runtime.saving.checkpoint_listing import list_variables
from runtime.saving.checkpoint_manager import CheckpointManager, latest_checkpoint
from runtime.saving.checkpoint_state import get_checkpoint_state

__all__ = [
    "Checkpoint",
    "CheckpointManager",
    "get_checkpoint_state",
    "latest_checkpoint",
    "list_variables",
]
