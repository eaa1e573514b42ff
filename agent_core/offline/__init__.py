"""The embedded offline model and its scripts (see model.py)."""

from .model import MODEL_NAME, OfflineModel, covers, placeholder

__all__ = ["MODEL_NAME", "OfflineModel", "covers", "placeholder"]
