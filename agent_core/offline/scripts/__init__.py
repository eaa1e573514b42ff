"""Scripts of the offline model, one module per pattern (plus the eval tasks'); importing this package
imports every module in it, which registers their scripts — a new pattern's script needs no edit here."""

import importlib
import pkgutil

for _module in pkgutil.iter_modules(__path__):
    importlib.import_module(f"{__name__}.{_module.name}")
