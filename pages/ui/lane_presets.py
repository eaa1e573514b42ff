"""Compare's one-click comparisons: "every pattern and the baseline", then the presets the patterns
define in their specs (agent_core/patterns/registry.py); and which of their lanes the offline scripts
cover on a task (agent_core.offline.covers), so a placeholder lane is named before and after it runs."""

from __future__ import annotations

from agent_core.offline import covers
from agent_core.patterns import registry
from agent_core.patterns.spec import LaneSpec, Preset, Text

from .catalogue import VARIANTS
from .i18n import t


def _every_pattern() -> Preset:
    specs = [s for s in registry.specs().values() if s.compare_variant]
    variants = registry.variants()
    lanes = tuple(
        LaneSpec(s.compare_variant, variants[s.compare_variant].label) for s in sorted(specs, key=lambda s: s.baseline)
    )  # the baseline last, beside the others
    return Preset(
        "patterns",
        Text("The classic loops and the baseline", "经典循环与基线"),
        ":material/view_week:",
        Text(
            "The loops every course starts with, each in its main variant, on the task above, and the "
            "single-call baseline beside them: what does the loop buy over one call? Off their own scenario, "
            "the offline model plays a short generic run.",
            "在上面的任务上运行每门课都会先讲的几种循环（各取主要变体），并把单次调用的基线放在旁边：循环到底比"
            "一次调用多带来了什么？不在自己的场景上时，离线模型会演示一段简短的通用运行。",
        ),
        lanes,
    )


PRESETS: dict[str, Preset] = {"patterns": _every_pattern(), **registry.presets()}


def uncovered(preset: Preset, scenario: str | None) -> list[LaneSpec]:
    """The preset's lanes the offline scripts do not play on `scenario` (its own task, if it has one):
    offline, those lanes show placeholder text."""
    task = preset.scenario or scenario
    return [lane for lane in preset.lanes if not covers(task, VARIANTS[lane.variant].pattern)]


def offline_note(preset: Preset, scenario: str | None, lang: str) -> str:
    """What the preset plays on the offline model here: "" when every lane is a scripted run."""
    missing = uncovered(preset, scenario)
    if not missing:
        return ""
    if len(missing) == len(preset.lanes):
        return t("lane_presets.none_covered", lang)
    names = t("lane_presets.and", lang).join(lane.name(lang) for lane in missing)
    return t("lane_presets.some_covered", lang, lanes=names)
