"""Bundled example traces: one per scenario, recorded on the offline model, for Replay and demos.

They are recorded at a watchable speed so that replaying them at 1x feels like a live run.
Regenerate them after changing a pattern or a script:

    python -m agent_core.examples
"""

from __future__ import annotations

from pathlib import Path

from . import trace
from .models import ModelRouter
from .offline import OfflineModel
from .runner import stream
from .scenarios import SCENARIOS, for_scenario

DIRECTORY = Path(__file__).parent / "data" / "traces"
#: the offline pace the examples are recorded at
TOKENS_PER_SECOND = 80.0
FIRST_TOKEN_S = 0.25


def path_of(scenario_id: str, lang: str = "en") -> Path:
    return DIRECTORY / f"{scenario_id}.{lang}.json"


def available() -> list[tuple[str, str, Path]]:
    """(scenario id, language, path) of every bundled trace, in scenario order."""
    out = []
    for sid in SCENARIOS:
        for lang in ("en", "zh"):
            p = path_of(sid, lang)
            if p.exists():
                out.append((sid, lang, p))
    return out


def load(scenario_id: str, lang: str = "en") -> trace.Trace:
    return trace.loads(path_of(scenario_id, lang).read_bytes())


def record(
    scenario_id: str, lang: str, tokens_per_second: float = TOKENS_PER_SECOND, first_token_s: float = FIRST_TOKEN_S
) -> trace.Trace:
    """Run a scenario on the offline model and return its trace."""
    config, task = for_scenario(scenario_id, lang)
    models = ModelRouter(OfflineModel(tokens_per_second=tokens_per_second, first_token_s=first_token_s))
    events = list(stream(task, config, models))
    return trace.Trace.of(config.to_dict(), events, models.names())


def main() -> None:
    DIRECTORY.mkdir(parents=True, exist_ok=True)
    for sid in SCENARIOS:
        for lang in ("en", "zh"):
            tr = record(sid, lang)
            path_of(sid, lang).write_text(tr.dumps(indent=1), encoding="utf-8")
            print(f"{path_of(sid, lang).name}: {len(tr.events)} events, {tr.result['reason']}")


if __name__ == "__main__":
    main()
