"""The roles of ReAct: the actor that reasons and acts, the judge of its final answers (the reflection
advisor), and the reflector of the observation check."""

from __future__ import annotations

ROLES = ("actor", "judge", "reflector")
