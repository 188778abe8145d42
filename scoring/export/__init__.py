"""Hugging Face checkpoint -> exported ONNX model directory (``kgbench model export``),
and tiny checkpoints built offline for tests (:mod:`scoring.export.tiny`).

torch and transformers (the ``export`` extra) are imported only when an export or a
tiny model runs, so importing this package is cheap and needs neither.
"""

from scoring.export.model_export import DEFAULT_OPSET, ExportReport, export_model

__all__ = ["DEFAULT_OPSET", "ExportReport", "export_model"]
