"""``rt.saved_model``: save a module's functions and variables, load them without their code.

The format is the project's own (``docs/modules-and-saving.md``): ``saved_model.json``
describes every saved function's graph and the variables, and names the arrays file
(``arrays-<generation>.npz``) holding the values, with SHA-256s of both. The files are
untrusted input: loading checks every op against the op table before building anything,
reads within size limits, never unpickles or evaluates, and raises ``SavedModelError``
naming the file on any damage. Saving is atomic and keeps files that are not the model's.

>>> import tempfile, runtime as rt, autograph as ag
>>> class Counter(rt.Module):
...     def __init__(self):
...         super().__init__()
...         with self.name_scope:
...             self.total = rt.Variable(1.0)
...     @ag.function(input_signature=[rt.TensorSpec([], rt.float32)])
...     def add(self, a):
...         self.total.assign_add(a)
...         return self.total
>>> path = tempfile.mkdtemp()
>>> counter = Counter()
>>> _ = counter.add(rt.constant(5.0))
>>> rt.saved_model.save(counter, path, signatures={"serving_default": counter.add})
>>> loaded = rt.saved_model.load(path)
>>> loaded.add(rt.constant(10.0))
<rt.Tensor: shape=(), dtype=float32, numpy=16.0>
>>> loaded.total
<rt.Variable 'counter/Variable:0' shape=() dtype=float32, numpy=16.0>
>>> loaded.signatures["serving_default"](a=rt.constant(1.0))  # by name, a dict, as in TensorFlow
{'output_0': <rt.Tensor: shape=(), dtype=float32, numpy=17.0>}
"""

from runtime.saving.format import SavedModelError
from runtime.saving.loaded import (
    LoadedConcreteFunction,
    LoadedFunction,
    LoadedObject,
    SignatureFunction,
)
from runtime.saving.options import LoadOptions, SaveOptions
from runtime.saving.reader import contains_saved_model, load, show
from runtime.saving.writer import save

__all__ = [
    "save",
    "load",
    "contains_saved_model",
    "show",
    "SavedModelError",
    "SaveOptions",
    "LoadOptions",
    "LoadedConcreteFunction",
    "LoadedObject",
    "LoadedFunction",
    "SignatureFunction",
]
