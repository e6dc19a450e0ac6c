"""``rt.keras.callbacks``: objects ``fit``, ``evaluate`` and ``predict`` call at each stage.

``Callback`` (the hooks), ``History`` (what ``fit`` returns), ``ProgbarLogger`` (the
progress bar), ``EarlyStopping``, ``LearningRateScheduler``, ``ReduceLROnPlateau``,
``ModelCheckpoint``, ``CSVLogger``, ``TerminateOnNaN``, ``LambdaCallback`` and ``TensorBoard``, as Keras 3's.
Set ``model.stop_training = True`` in a hook to end ``fit`` after the current epoch.
"""

from runtime.keras.callbacks.callback import Callback
from runtime.keras.callbacks.callback_list import CallbackList
from runtime.keras.callbacks.csv_logger import CSVLogger
from runtime.keras.callbacks.early_stopping import EarlyStopping
from runtime.keras.callbacks.history import History
from runtime.keras.callbacks.learning_rate import LearningRateScheduler, ReduceLROnPlateau
from runtime.keras.callbacks.model_checkpoint import ModelCheckpoint
from runtime.keras.callbacks.progbar_logger import ProgbarLogger
from runtime.keras.callbacks.simple import LambdaCallback, TerminateOnNaN
from runtime.keras.callbacks.tensorboard import TensorBoard

__all__ = [
    "CSVLogger",
    "Callback",
    "CallbackList",
    "EarlyStopping",
    "History",
    "LambdaCallback",
    "LearningRateScheduler",
    "ModelCheckpoint",
    "ProgbarLogger",
    "ReduceLROnPlateau",
    "TensorBoard",
    "TerminateOnNaN",
]
