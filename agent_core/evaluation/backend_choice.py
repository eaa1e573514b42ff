"""The one choice of where a plan's runs go — the local pool or Ray — made the same way by the CLI's
`--backend` and by the Eval page's backend switch.

`start(plan, models, backend=...)` hands back an iterable of rows with the same face either way
(`total`, `jobs`, `concurrency`, `in_flight`, `gate`, `finished_rows()`, `stop()`, `close()`), so a
caller never branches on the backend again. `ray_installed()` says whether the optional extra is
there without importing it (importing Ray takes seconds and much memory; a page asks on every rerun).
"""

from __future__ import annotations

import importlib.util
import os
from collections.abc import Collection
from typing import Any

from ..errors import ConfigError
from ..models import ChatModel, ModelRouter
from ..pricing import PriceTable
from . import backends

BACKENDS = ("local", "ray")
#: how to get the optional extra, said wherever Ray is missing
RAY_INSTALL = "pip install -r requirements-ray.txt"


def ray_installed() -> bool:
    """Whether `import ray` can find Ray (a module made unimportable counts as missing)."""
    try:
        return importlib.util.find_spec("ray") is not None
    except (ImportError, ValueError):  # a half-imported or stubbed-out module
        return False


def start(
    p: backends.Plan,
    models: ModelRouter | ChatModel | None,
    *,
    backend: str = "local",
    done: Collection[tuple[str, str, int]] = (),
    concurrency: int = 1,
    address: str | None = None,
    prices: PriceTable | None = None,
) -> Any:
    """The plan's missing jobs under way on `backend`: the local pool's Evaluation, or a RayEvaluation
    (a local Ray instance, or the cluster at `address`, else at RAY_ADDRESS). ConfigError when the
    backend is unknown or Ray is not installed."""
    if backend not in BACKENDS:
        raise ConfigError(f"unknown backend {backend!r}; choose from {', '.join(BACKENDS)}")
    if backend == "local":
        return backends.local(p, models, done=done, concurrency=concurrency, prices=prices)
    from . import ray_backend  # imports nothing of Ray itself until the instance starts

    return ray_backend.RayEvaluation(
        p, models, done=done, address=address or os.environ.get("RAY_ADDRESS"), concurrency=concurrency, prices=prices
    )
