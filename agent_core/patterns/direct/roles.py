"""The one role of the `direct` baseline: the actor that answers."""

from __future__ import annotations

ROLES = ("actor",)
