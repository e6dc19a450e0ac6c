"""``rt.onnx``: a function's graph as an ONNX model, to run where Python does not.

    pip install "autograph-numpy[onnx]"

``rt.onnx.export(fn, "model.onnx")`` writes the model (docs/export.md shows it
end to end, run by onnxruntime). Models use one ONNX operator set:

>>> import runtime as rt
>>> rt.onnx.OPSET
21
"""

from runtime.export.onnx_export import export
from runtime.export.onnx_types import OPSET

__all__ = ["export", "OPSET"]
