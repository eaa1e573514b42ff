"""The roles of Reflection: the actor that drafts, the critic that judges, the refiner that rewrites."""

from __future__ import annotations

ROLES = ("actor", "critic", "refiner")
