"""Offline scripts for the bundled question sample (agent_core/data/samples/gsm8k_style.jsonl), and the judge.

The scripted model answers the 12 problems the way Huang et al. (2024) describe a model reviewing its
own reasoning without external feedback: its first answers are right on 9 (a single call, `direct`);
asked to critique itself (`reflection`, no tests), it catches one slip (task 4), "fixes" another into
a second wrong answer (task 9), and talks itself out of two right answers (tasks 3 and 10). So
reflection ends at 8 of 12 against direct's 9, one task fixed and two broken: a difference no test
can tell from chance at n = 12, which is what the Eval page then says. A demonstration of the
harness, labelled as scripted; it measures nothing about a real model.

The judge (scenario "eval/judge", role judge) compares the numbers, or the normalised texts, of the
answer and the expected answer its call context carries, and says VERDICT: CORRECT or INCORRECT.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

from ..script import Call, Reply, script


@dataclass(frozen=True)
class Answer:
    """One problem: the working of the first answer, its number, and what self-critique does to it."""

    working: tuple[str, str]
    first: str
    #: what the critic objects to (en, zh); None: it passes the first answer
    doubt: tuple[str, str] | None = None
    #: the answer after the critique
    revised: str = ""


A = Answer
ANSWERS: dict[str, Answer] = {
    "gsm8k-style/1": A(("24 + 18 = 42 muffins, 42 - 35 = 7.", "24 + 18 = 42 个，42 - 35 = 7。"), "7"),
    "gsm8k-style/2": A(("3 × 4 + 2 = 14 dollars, 20 - 14 = 6.", "3 × 4 + 2 = 14 美元，20 - 14 = 6。"), "6"),
    "gsm8k-style/3": A(
        ("60 × 3 = 180 km and 45 × 2 = 90 km, 180 + 90 = 270.", "60 × 3 = 180 公里，45 × 2 = 90 公里，共 270。"),
        "270",
        ("Check whether the speeds should be averaged over the whole trip.", "请检查是否应按整个行程的平均速度计算。"),
        "262.5",
    ),
    "gsm8k-style/4": A(
        ("5 × 12 = 60 crayons; a quarter is 15.", "5 × 12 = 60 支；四分之一是 15 支。"),
        "15",
        (
            "The question asks how many she keeps, not how many she gives away.",
            "题目问的是她留下多少支，而不是送出多少支。",
        ),
        "45",
    ),
    "gsm8k-style/5": A(("8 × 15 = 120 tulips, 120 - 27 = 93.", "8 × 15 = 120 朵，120 - 27 = 93。"), "93"),
    "gsm8k-style/6": A(
        ("Tuesday 24, Wednesday 19; 12 + 24 + 19 = 55.", "周二 24 页，周三 19 页；12 + 24 + 19 = 55。"), "55"
    ),
    "gsm8k-style/7": A(("1,200 / 25 = 48 packs, 48 × 3 = 144.", "1200 / 25 = 48 包，48 × 3 = 144。"), "144"),
    "gsm8k-style/8": A(
        ("15 × 6 × 5 = 450 dollars, 450 - 180 = 270.", "15 × 6 × 5 = 450 美元，450 - 180 = 270。"), "270"
    ),
    "gsm8k-style/9": A(
        ("40% of 500 liters is 200 liters.", "500 升的 40% 是 200 升。"),
        "200",
        ("Recheck the percentage.", "请重新核对百分比。"),
        "250",
    ),
    "gsm8k-style/10": A(
        ("In 3 years 2 × Ann + 10 = 30, so Ann is 10.", "3 年后 2 × 安 + 10 = 30，所以安现在 10 岁。"),
        "10",
        ("The 3 years may have been added twice.", "这 3 年可能被重复计算了。"),
        "13",
    ),
    "gsm8k-style/11": A(("27 apples at $2 each is 54.", "27 个苹果每个 2 美元，共 54 美元。"), "54"),
    "gsm8k-style/12": A(
        ("24 members come and each brings one guest: 48.", "24 名成员到场，每人带一位客人：48 人。"), "48"
    ),
}


def _reply(call: Call, answer: Answer, number: str) -> Reply:
    return Reply(f"{call.t(*answer.working)}\n{call.t('Answer', '答案')}: {number}")


def _play(task_id: str, call: Call) -> Reply:
    answer = ANSWERS[task_id]
    version = call.ctx.version or 0
    if call.role == "critic":
        draft = call.input("draft") or call.text
        under_review_is_first = f": {answer.first}" in draft and not (answer.revised and f": {answer.revised}" in draft)
        if answer.doubt is not None and under_review_is_first:
            return _verdict(call, "REVISE", answer.doubt)
        return _verdict(call, "PASS", ("The working adds up.", "推理过程无误。"))
    if call.role == "refiner" or (call.role == "actor" and version > 0):
        return _reply(call, answer, answer.revised or answer.first)
    if call.role in ("judge", "reflector"):
        return Reply(json.dumps({"passed": True, "feedback": None}))
    if call.role == "planner":
        steps = [
            {
                "description": call.t(
                    "Solve the problem step by step and give the final number.", "逐步解题并给出最终数字。"
                ),
                "tool": None,
                "critical": False,
            }
        ]
        return Reply(json.dumps({"steps": steps}, ensure_ascii=False))
    if call.ctx.protocol == "text":
        return Reply(f"Thought: {call.t(*answer.working)}\nFinal Answer: {answer.first}")
    return _reply(call, answer, answer.first)


def _verdict(call: Call, verdict: str, feedback: tuple[str, str]) -> Reply:
    if call.ctx.node == "reviewer":  # graph style reviews in free text
        text = call.t(*feedback)
        return Reply(text if verdict == "PASS" else f"1. {text}")
    return Reply(
        json.dumps(
            {"verdict": verdict, "analysis": call.t(*feedback), "feedback": call.t(*feedback)}, ensure_ascii=False
        )
    )


for _task_id in ANSWERS:
    script(f"eval/{_task_id}")(lambda call, _t=_task_id: _play(_t, call))


@script("eval/judge")
def judge(call: Call) -> Reply:
    """The scripted judge: the same number (or the same normalised text) is CORRECT."""
    from ...evaluation import scorers

    answer, expected = call.input("answer"), call.input("expected")
    want, got = scorers.number_of(expected), scorers.number_of(answer)
    same = (got is not None and want is not None and abs(got - want) < 1e-9) or scorers.normalise(
        answer
    ) == scorers.normalise(expected)
    reason = call.t(
        "The final answers mean the same." if same else "The final answers differ.",
        "两个最终答案意思相同。" if same else "两个最终答案不同。",
    )
    return Reply(f"{reason}\nVERDICT: {'CORRECT' if same else 'INCORRECT'}")
