"""Compare's one-click comparisons: which lanes each preset opens, with their switches and prompt additions."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class LaneSpec:
    """One lane of a preset: its variant, name, switches and prompt additions (per language)."""

    variant: str
    name: str
    switches: dict[str, bool] = field(default_factory=dict)
    #: prompt key -> (English, Chinese) text appended to the default prompt
    prompt_tails: dict[str, tuple[str, str]] = field(default_factory=dict)


@dataclass(frozen=True)
class Preset:
    label: str
    icon: str
    help: str
    lanes: tuple[LaneSpec, ...]
    #: the task the preset is about; None keeps the current one
    scenario: str | None = None


_STRICT = ("\n\nBe strict. Answer PASS only when every quality criterion is fully met and you would hand the "
           "draft over exactly as it is; otherwise answer REVISE and list every remaining problem.",
           "\n\n请从严评审：只有当每一条质量标准都完全满足、你愿意原样交付时才回答 PASS；"
           "否则回答 REVISE，并列出所有剩余问题。")
_LENIENT = ("\n\nBe lenient. Answer PASS unless the draft has a factual error or does not do the task; never "
            "ask for polish, style or extra detail.",
            "\n\n请宽松评审：除非草稿有事实错误或没有完成任务，否则一律回答 PASS；"
            "不要为润色、文风或补充细节要求修改。")

PRESETS: dict[str, Preset] = {
    "patterns": Preset(
        "Three patterns on this task", ":material/view_week:",
        "ReAct with its reflection advisor, Plan-and-Execute with its Reflector, and Reflection, on the task "
        "above. Off their own scenario, the offline model plays a short generic run.",
        (LaneSpec("react-advisor", "ReAct + advisor"),
         LaneSpec("plan-execute-reflector", "Plan-and-Execute + Reflector"),
         LaneSpec("reflection", "Reflection"))),
    "critic": Preset(
        "Strict vs lenient critic", ":material/gavel:",
        "Reflection on the report task, with one sentence added to the critic's prompt in each lane. The scripted "
        "offline model does not read prompts: connect a model in the sidebar to see the verdicts differ.",
        (LaneSpec("reflection", "Strict critic", prompt_tails={"critic": _STRICT}),
         LaneSpec("reflection", "Lenient critic", prompt_tails={"critic": _LENIENT})),
        scenario="report-criteria"),
    "executor": Preset(
        "Goal-blind vs goal-aware executor", ":material/visibility_off:",
        "Plan-and-Execute with the Reflector on the two long-haired cats: the goal-blind executor lists every "
        "spec and is sent back (RETRY); the goal-aware one answers for the cats at once (seed 03).",
        (LaneSpec("plan-execute-reflector", "Goal-blind executor", {"goal_aware_executor": False}),
         LaneSpec("plan-execute-reflector", "Goal-aware executor", {"goal_aware_executor": True})),
        scenario="vacuum-cats"),
}
