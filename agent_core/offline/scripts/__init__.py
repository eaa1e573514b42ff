"""Scripts of the offline model: every module in this folder (the generic script for free-text tasks,
the eval sets'), then every pattern's own (its folder's `offline.py`, named by its spec). Importing a
script module registers its scripts, so a new one needs no edit here."""

import importlib
import pkgutil

from ...patterns import registry

for _module in pkgutil.iter_modules(__path__):
    importlib.import_module(f"{__name__}.{_module.name}")
for _spec in registry.specs().values():
    if _spec.offline:
        importlib.import_module(_spec.offline)
