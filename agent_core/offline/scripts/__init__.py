"""Scripts of the offline model: the generic one for free-text tasks, the eval tasks', and every
pattern's own (its folder's `offline.py`, named by its spec) — a new pattern's script needs no edit here."""

import importlib

from ...patterns import registry
from . import eval_tasks, generic  # noqa: F401  (importing a script module registers its scripts)

for _spec in registry.specs().values():
    if _spec.offline:
        importlib.import_module(_spec.offline)
