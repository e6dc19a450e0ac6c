"""Exporting graphs to other runtimes: ONNX (``rt.onnx.export``)."""
