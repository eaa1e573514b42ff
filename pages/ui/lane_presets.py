"""Compare's one-click comparisons: "every pattern and the baseline", then the presets the patterns
define in their specs (agent_core/patterns/registry.py)."""

from __future__ import annotations

from agent_core.patterns import registry
from agent_core.patterns.spec import LaneSpec, Preset, Text


def _every_pattern() -> Preset:
    specs = [s for s in registry.specs().values() if s.compare_variant]
    variants = registry.variants()
    lanes = tuple(LaneSpec(s.compare_variant, variants[s.compare_variant].label)
                  for s in sorted(specs, key=lambda s: s.baseline))  # the baseline last, beside the others
    return Preset(
        "patterns", Text("Every pattern and the baseline", "所有模式与基线"), ":material/view_week:",
        Text("Each pattern in its main variant on the task above, and the single-call baseline beside them: "
             "what does the loop buy over one call? Off their own scenario, the offline model plays a short "
             "generic run.",
             "在上面的任务上运行每种模式的主要变体，并把单次调用的基线放在旁边：循环到底比一次调用多带来了什么？"
             "不在自己的场景上时，离线模型会演示一段简短的通用运行。"),
        lanes)


PRESETS: dict[str, Preset] = {"patterns": _every_pattern(), **registry.presets()}
