"""The options of Plan-and-Execute: its step limits and its switches (Reflector, goal-aware executor, rule
pre-check, selective reflection)."""

from __future__ import annotations

from dataclasses import dataclass

from ...config import Options
from ..spec import LimitSpec, SwitchSpec, Text

LIMITS = (
    LimitSpec(
        "max_plan_steps",
        1,
        12,
        Text("Max plan steps", "计划步骤上限"),
        Text("steps kept from a plan (longer plans are cut)", "计划最多保留的步骤数（更长的计划会被截断）"),
    ),
    LimitSpec(
        "max_step_rounds",
        1,
        8,
        Text("Max rounds per step", "每步最大轮次"),
        Text("tool-loop rounds per step; the last one has tools disabled", "每个步骤的工具循环轮次；最后一轮禁用工具"),
    ),
    LimitSpec(
        "max_step_retries",
        0,
        3,
        Text("Max retries per step", "每步最大重试次数"),
        Text(
            "RETRY re-runs of one step before its result is accepted", "单个步骤被 RETRY 重跑的次数上限，之后接受其结果"
        ),
    ),
    LimitSpec(
        "max_replans",
        0,
        5,
        Text("Max re-plans", "最大重规划次数"),
        Text("REPLANs before the run skips to synthesis", "REPLAN 次数上限，之后跳到综合步骤"),
    ),
)

SWITCHES = (
    SwitchSpec(
        "reflector",
        Text("Reflector", "反思器"),
        Text(
            "A Reflector judges every step: PASS, RETRY or REPLAN (seed 03).",
            "反思器评估每个步骤：PASS、RETRY 或 REPLAN（种子文章 03）。",
        ),
    ),
    SwitchSpec(
        "goal_aware_executor",
        Text("Goal-aware executor", "执行器可见目标"),
        Text(
            "Show the user's goal to the executor too (seed 03 argues it should stay goal-blind; try both).",
            "让执行器也看到用户目标（种子文章 03 主张执行器不看目标；两种都试试）。",
        ),
    ),
    SwitchSpec(
        "rule_precheck",
        Text("Rule pre-check", "规则预检"),
        Text(
            "A tool result with an error field means REPLAN at once, without asking the Reflector "
            "(also works without it).",
            "工具结果含 error 字段时立即 REPLAN，无需询问反思器（不开反思器也有效）。",
        ),
    ),
    SwitchSpec(
        "selective_reflection",
        Text("Selective reflection", "选择性反思"),
        Text("Reflect only on steps that used a tool.", "只对使用了工具的步骤做反思。"),
    ),
)


@dataclass(frozen=True)
class PlanExecuteOptions(Options):
    """What only a Plan-and-Execute run reads."""

    LIMITS = LIMITS

    reflector: bool = False
    """A Reflector judges every step: PASS, RETRY or REPLAN."""
    max_plan_steps: int = 6
    """Steps kept from a plan; longer plans are cut."""
    max_step_rounds: int = 3
    """Tool-loop rounds per step; the last one has tools disabled."""
    max_step_retries: int = 1
    """RETRY re-runs of one step before its result is accepted."""
    max_replans: int = 2
    """REPLANs before the run skips to synthesis."""
    goal_aware_executor: bool = False
    """The executor sees the user's goal too (seed 03 argues it should not)."""
    rule_precheck: bool = False
    """A tool result with an error field means REPLAN without asking the Reflector."""
    selective_reflection: bool = False
    """Only steps that used a tool are reviewed."""
