"""Offline scripts for LATS: round half up (the search backtracks from a dead-end branch), the bundled
eval tasks, and free-text tasks.

Every reply is a pure function of the request. The expander reads the candidate it grows (the call's
`parent` input: none at the root) and its place among its siblings (`attempt`); the evaluator and the
self-reflector read the candidate they judge (`draft`). So a run plays the same way whatever the
limits: a wider expansion adds candidates, a smaller exploration weight keeps the search longer in the
float branch, and every candidate is real Python that the sandbox runs against scenarios.ROUND_TESTS.

The same task is played for Reflection and self-consistency too (Compare's "Reflection vs
self-consistency vs LATS"), by their roles: Reflection refines one line of float drafts and never
leaves it; the samples vote for the common float draft; only the search backtracks to decimal
arithmetic.
"""

from __future__ import annotations

import json

from ...offline.script import Call, Reply, script
from ...offline.scripts.eval_tasks import PLAYERS, Solution
from ...offline.scripts.generic import label, role, topic

# --- round half up: the candidates ----------------------------------------------------------------

#: node 1: scale, add a half, floor (passes 2.5 and 2.675; fails -2.5, 1.005, 0.285)
FLOOR = '''
import math


def round_half_up(x: float, digits: int = 0) -> float:
    """Scale by 10**digits, add 0.5 and floor: x rounded to `digits` places, halves up."""
    scale = 10 ** digits
    return math.floor(x * scale + 0.5) / scale
'''

#: node 2: decimal arithmetic from str(x), but quantize's default rounding (passes 2.675 only)
HALF_EVEN = '''
from decimal import Decimal


def round_half_up(x: float, digits: int = 0) -> float:
    """Decimal arithmetic on str(x), quantized to `digits` places: exact for the number as written."""
    step = Decimal(1).scaleb(-digits)
    return float(Decimal(str(x)).quantize(step))
'''

#: the float branch's revisions: each fixes the sign, none can see a half the binary float has lost
COPYSIGN = '''
import math


def round_half_up(x: float, digits: int = 0) -> float:
    """Floor |x| * 10**digits + 0.5, then restore the sign: halves away from zero."""
    scale = 10 ** digits
    return math.copysign(math.floor(abs(x) * scale + 0.5) / scale, x)
'''

SIGNED_HALF = '''
def round_half_up(x: float, digits: int = 0) -> float:
    """Add a signed half to x * 10**digits, then truncate: halves away from zero."""
    scale = 10 ** digits
    shifted = x * scale
    return int(shifted + (0.5 if shifted >= 0 else -0.5)) / scale
'''

FLOOR_SIGNED = '''
import math


def round_half_up(x: float, digits: int = 0) -> float:
    """Floor x * 10**digits + 0.5 on the side of its sign: halves away from zero."""
    scale = 10 ** digits
    shifted = x * scale
    return (math.floor(shifted + 0.5) if shifted >= 0 else -math.floor(-shifted + 0.5)) / scale
'''

#: the decimal branch's child: the reflection's fix (passes every test)
HALF_UP = '''
from decimal import ROUND_HALF_UP, Decimal


def round_half_up(x: float, digits: int = 0) -> float:
    """Decimal arithmetic on str(x) with ROUND_HALF_UP: halves away from zero, as taught in school.

    The float is read through its shortest text, str(x): 1.005 is stored as 1.00499999999999989...,
    but str(1.005) == "1.005", and decimal arithmetic on that text rounds it as people expect.
    """
    step = Decimal(1).scaleb(-digits)
    return float(Decimal(str(x)).quantize(step, rounding=ROUND_HALF_UP))
'''

#: a third child of the task, with a wider expansion: Python's round (fails every test: pruned)
BUILTIN = '''
def round_half_up(x: float, digits: int = 0) -> float:
    """Python's built-in round(x, digits)."""
    return round(x, digits)
'''

FLOAT_REVISIONS = (COPYSIGN, SIGNED_HALF, FLOOR_SIGNED)
ROOT_CHILDREN = (FLOOR, HALF_EVEN, BUILTIN)

# what the evaluator (with the unit tests off) says of each: (value, en, zh)
_VALUES = {
    FLOOR: (
        0.5,
        "Right for positive halves, but -2.5 rounds up to -2, and a float such as 1.005 is stored just "
        "below the half, so the floor loses it.",
        "正数的 .5 没问题，但 -2.5 会被进成 -2；1.005 这样的浮点数实际存储值略小于 .5，会被 floor 舍掉。",
    ),
    HALF_EVEN: (
        0.3,
        "Decimal arithmetic from str(x) is the right idea, but quantize rounds half to even by default: 2.5 becomes 2.",
        "基于 str(x) 的十进制运算思路是对的，但 quantize 默认四舍六入五成双：2.5 会变成 2。",
    ),
    COPYSIGN: (
        0.6,
        "Negative halves are right now; rounding the binary float still loses 1.005 and 0.285.",
        "负数的 .5 已经正确；但对二进制浮点数做舍入，仍然会算错 1.005 和 0.285。",
    ),
    SIGNED_HALF: (
        0.6,
        "The signed half gets -2.5 right; the float itself still holds 1.005 below the half.",
        "带符号的 0.5 让 -2.5 正确了；但浮点数本身仍把 1.005 存成略小于 .5 的值。",
    ),
    FLOOR_SIGNED: (
        0.6,
        "Both signs round away from zero; 1.005 and 0.285 are still lost in the binary float.",
        "正负数都远离零进位了；但 1.005 和 0.285 仍然在二进制浮点数里丢失了精度。",
    ),
    HALF_UP: (
        0.95,
        "Decimal arithmetic from str(x) with ROUND_HALF_UP: halves go away from zero and 1.005 stays "
        "1.005 until it is rounded. Correct.",
        "基于 str(x) 的十进制运算并使用 ROUND_HALF_UP：.5 远离零进位，1.005 在舍入前一直精确。正确。",
    ),
    BUILTIN: (
        0.0,
        "Built-in round is banker's rounding on binary floats: wrong on every half.",
        "内置 round 是对二进制浮点数的银行家舍入：所有 .5 都会出错。",
    ),
}

# why each failed, as the self-reflector says it (en, zh)
_REFLECTIONS = {
    FLOOR: (
        "floor(x · 10^d + 0.5) rounds every half towards +∞, so -2.5 gives -2, not -3. And 1.005 and 0.285 come "
        "out low: as binary floats they are 1.00499999999999989… and 0.28499999999999998…, so once scaled they "
        "sit just below the half and the floor drops them.",
        "floor(x · 10^d + 0.5) 把每个 .5 都朝正无穷方向进位，所以 -2.5 得到 -2 而不是 -3。1.005 和 0.285 也算小了："
        "它们的二进制浮点值是 1.00499999999999989… 和 0.28499999999999998…，放大之后略小于 .5，被 floor 舍掉了。",
    ),
    HALF_EVEN: (
        "Decimal(str(x)) reads the number exactly as it is written — that is why 2.675 comes out right — but "
        "quantize rounds half to even by default (banker's rounding): 2.5 gives 2, -2.5 gives -2 and 1.005 "
        "gives 1.00. Keep the decimal arithmetic and pass rounding=ROUND_HALF_UP, which rounds halves away "
        "from zero.",
        "Decimal(str(x)) 按字面精确读入数字——所以 2.675 算对了——但 quantize 默认四舍六入五成双（银行家舍入）："
        "2.5 得 2，-2.5 得 -2，1.005 得 1.00。保留十进制运算，并传入 rounding=ROUND_HALF_UP，让 .5 远离零进位。",
    ),
    COPYSIGN: (
        "Restoring the sign fixed -2.5, but 1.005 and 0.285 still fail: abs(x) · 10^d is computed on the binary "
        "float, which is already below the half before any rounding rule sees it.",
        "恢复符号修好了 -2.5，但 1.005 和 0.285 仍然失败：abs(x) · 10^d 是在二进制浮点数上计算的，"
        "还没轮到任何舍入规则，它就已经小于 .5 了。",
    ),
    SIGNED_HALF: (
        "The signed half fixes -2.5 again and again fails 1.005 and 0.285: it is the same float approach with "
        "another way to truncate. Every candidate that rounds the binary float fails these two; round in "
        "decimal arithmetic from the number's shortest text, str(x), with halves rounded up.",
        "带符号地加 0.5 又一次修好了 -2.5，也又一次算错了 1.005 和 0.285：这仍是同一种浮点思路，只是换了截断方式。"
        "凡是对二进制浮点数做舍入的候选都会在这两个数上失败；应基于数字的最短文本 str(x) 做十进制运算，并让 .5 进位。",
    ),
    FLOOR_SIGNED: (
        "One more rounding of the binary float: -2.5 is right, 1.005 and 0.285 are not, for the same reason — "
        "the float is below the half before it is rounded. Only decimal arithmetic on str(x) sees the half.",
        "又一次对二进制浮点数做舍入：-2.5 对了，1.005 和 0.285 仍然不对，原因相同——舍入之前浮点数就已小于 .5。"
        "只有基于 str(x) 的十进制运算才能看到这个 .5。",
    ),
    BUILTIN: (
        "round() rounds half to even and works on the binary float: 2.5 gives 2 and 1.005 gives 1.0. Nothing of it "
        "can be kept.",
        "round() 是四舍六入五成双，而且作用在二进制浮点数上：2.5 得 2，1.005 得 1.0。这个候选没有可保留之处。",
    ),
    HALF_UP: (
        "Every test passes; what is left to doubt is only the evaluator's threshold, not the rounding.",
        "测试全部通过；值得怀疑的只是评估阈值，而不是舍入本身。",
    ),
}


def _fenced(code: str) -> Reply:
    """Code the way chat models usually send it: in a fence, which the pattern strips."""
    return Reply(f"```python\n{code.strip()}\n```")


def _known(text: str) -> str:
    """The scripted candidate `text` is (the float draft when it is none of them)."""
    flat = text.strip()
    return next((c for c in _VALUES if c.strip() == flat), FLOOR)


def _expand(call: Call) -> Reply:
    parent = call.input("parent").strip()
    attempt = call.ctx.attempt or 1
    if not parent:
        return _fenced(ROOT_CHILDREN[min(attempt, len(ROOT_CHILDREN)) - 1])
    if "Decimal" in parent:  # the decimal branch: the reflection on it names the missing rounding mode
        return _fenced(HALF_UP)
    revisions = [c for c in FLOAT_REVISIONS if c.strip() != parent]
    return _fenced(revisions[(attempt - 1) % len(revisions)])


def _evaluate(call: Call) -> Reply:
    value, en, zh = _VALUES[_known(call.input("draft"))]
    return Reply(json.dumps({"value": value, "reason": call.t(en, zh)}, ensure_ascii=False))


def _reflect(call: Call) -> Reply:
    return Reply(call.t(*_REFLECTIONS[_known(call.input("draft"))]))


# --- the same task, as Reflection and self-consistency play it ------------------------------------

_SIGN_REVIEW = (
    "-2.5 rounds to -2: a half is rounded towards +∞. Round the magnitude and restore the sign "
    "(math.copysign), so halves go away from zero for both signs.",
    "-2.5 被舍入成了 -2：.5 被朝正无穷方向进位。请对绝对值舍入后再恢复符号（math.copysign），"
    "让正负数的 .5 都远离零进位。",
)
_PASS_REVIEW = (
    "No improvement needed: halves now go away from zero for both signs.",
    "无需改进：正负数的 .5 现在都远离零进位了。",
)


def _critique(call: Call) -> Reply:
    """Reflection's critic: the failing tests' diagnosis when it sees them, else its own reading, which
    catches the sign and never the binary float (it passes the first draft that gets -2.5 right)."""
    draft, report = _known(call.input("draft")), call.input("tests")
    if report and not report.startswith("all "):
        why = _REFLECTIONS[draft]
        return Reply(
            json.dumps(
                {
                    "verdict": "REVISE",
                    "analysis": call.t(
                        f"The unit tests fail: {report.splitlines()[0]}", f"单元测试未通过：{report.splitlines()[0]}"
                    ),
                    "feedback": call.t(*why),
                },
                ensure_ascii=False,
            )
        )
    if draft == FLOOR:
        return Reply(
            json.dumps(
                {
                    "verdict": "REVISE",
                    "analysis": call.t("Read the code against the task's examples.", "对照任务中的示例阅读了代码。"),
                    "feedback": call.t(*_SIGN_REVIEW),
                },
                ensure_ascii=False,
            )
        )
    return Reply(
        json.dumps(
            {
                "verdict": "PASS",
                "analysis": call.t("Both examples of the task hold.", "任务中的两个示例都成立。"),
                "feedback": call.t(*_PASS_REVIEW),
            },
            ensure_ascii=False,
        )
    )


#: the samples self-consistency draws, by sample number: the float draft is the common one
SAMPLES = (FLOOR, HALF_EVEN, FLOOR, COPYSIGN, FLOOR, HALF_EVEN, COPYSIGN, FLOOR)


@script("round-half-up")
def round_half_up(call: Call) -> Reply | None:
    if call.role == "expander":
        return _expand(call)
    if call.role == "evaluator":
        return _evaluate(call)
    if call.role == "self_reflector":
        return _reflect(call)
    # Reflection: one line of drafts, each a patch of the float draft (it never backtracks)
    if call.role == "actor":
        return _fenced(FLOOR if not call.ctx.version else FLOAT_REVISIONS[(call.ctx.version - 1) % 3])
    if call.role == "refiner":
        return _fenced(FLOAT_REVISIONS[((call.ctx.version or 1) - 1) % len(FLOAT_REVISIONS)])
    if call.role == "critic":
        return _critique(call)
    # self-consistency: independent samples, the float draft most often; the arbiter keeps the vote
    if call.role == "sampler":
        return _fenced(SAMPLES[((call.ctx.attempt or 1) - 1) % len(SAMPLES)])
    if call.role == "arbiter":
        return Reply(
            json.dumps(
                {
                    "verdict": "PASS",
                    "feedback": call.t(
                        "Both readings of the vote's pick hold for the task's examples; the vote stands.",
                        "投票选出的答案满足任务中的示例；维持投票结果。",
                    ),
                },
                ensure_ascii=False,
            )
        )
    return None


# --- the bundled eval tasks -----------------------------------------------------------------------

_FOLLOWS = ("The code follows its docstring.", "代码符合其文档字符串。")


def _eval(solution: Solution, call: Call) -> Reply:
    """LATS on a bundled task: the first child is the hasty draft; a sibling or a child written after a
    reflection takes the fix it names (the test diagnosis), or what the review asked for."""
    if call.role == "expander":
        seen = call.input("reflections")
        if not call.input("parent") and (call.ctx.attempt or 1) == 1 and not seen:
            return _fenced(solution.draft)
        if any(d and d in seen for d in solution.diagnosis):
            return _fenced(solution.fixed or solution.draft)
        if solution.review is not None and any(r in seen for r in solution.review):
            return _fenced(solution.reviewed or solution.fixed or solution.draft)
        return _fenced(solution.fixed or solution.draft)
    draft = solution.latest_in(call.input("draft"))
    if call.role == "evaluator":  # no tests: the evaluator reads as the critic does, and finds what it looks for
        if draft == solution.draft and solution.review is not None:
            return Reply(json.dumps({"value": 0.4, "reason": call.t(*solution.review)}, ensure_ascii=False))
        return Reply(json.dumps({"value": 0.95, "reason": call.t(*_FOLLOWS)}, ensure_ascii=False))
    # the self-reflector: the tests' diagnosis when they failed (the feedback is their report, not one of the
    # evaluator's readings above), else the review
    feedback = call.input("feedback")
    failed = (
        bool(feedback) and feedback not in (*(solution.review or ()), *_FOLLOWS) and not feedback.startswith("all ")
    )
    if failed and solution.diagnosis[0] and draft != solution.fixed:
        return Reply(call.t(*solution.diagnosis))
    if solution.review is not None and draft == solution.draft:
        return Reply(call.t(*solution.review))
    return Reply(
        call.t("Make the failing assertion pass; keep the signature.", "请让失败的断言通过，保持函数签名不变。")
    )


PLAYERS["lats"] = _eval


# --- free-text tasks ------------------------------------------------------------------------------

#: what the generic candidates say they are, so the generic evaluator can tell them apart
_FIRST, _SECOND, _REVISED = ("first angle", "第一种思路"), ("second angle", "第二种思路"), ("revised", "修订版")


@role("lats", "expander")
def generic_expander(call: Call) -> Reply:
    if call.input("parent") or call.input("reflections") and (call.ctx.attempt or 1) > 2:
        return Reply(
            call.t(
                f"{label(call)} A {_REVISED[0]} candidate for “{topic(call)}”, written from the "
                "reflections: the key points as a short list, one concrete example, a one-line summary. "
                "Connect a model in the sidebar to search for real.",
                f"{label(call)} “{topic(call)}”的{_REVISED[1]}候选，按反思写成：用简短列表列出要点，"
                "给出一个具体示例，结尾一句话总结。请在侧边栏连接真实模型进行真正的搜索。",
            )
        )
    which = _FIRST if (call.ctx.attempt or 1) == 1 else _SECOND
    return Reply(
        call.t(
            f"{label(call)} A candidate for “{topic(call)}” from a {which[0]}. A real model would write "
            "one here; this scripted one only states the goal, so the evaluator has something to value.",
            f"{label(call)} 从{which[1]}出发为“{topic(call)}”写的候选。这里本应由真实模型写出；"
            "这份脚本候选只说明了目标，好让评估者有内容可评。",
        )
    )


@role("lats", "evaluator")
def generic_evaluator(call: Call) -> Reply:
    draft = call.input("draft")
    if any(w in draft for w in _REVISED):
        value, reason = 0.95, call.t("It addresses every reflection.", "它落实了每一条反思。")
    elif any(w in draft for w in _SECOND):
        value, reason = 0.4, call.t("Another angle, no more concrete.", "换了角度，但同样不够具体。")
    else:
        value, reason = (
            0.6,
            call.t("It states the goal, with no structure and no example.", "只说明了目标，没有结构，也没有示例。"),
        )
    return Reply(json.dumps({"value": value, "reason": reason}, ensure_ascii=False))


@role("lats", "self_reflector")
def generic_self_reflector(call: Call) -> Reply:
    return Reply(
        call.t(
            "It states the goal but gives no structure and no example. A better candidate lists the key "
            "points, adds one concrete example and ends with a one-line summary.",
            "它只说明了目标，没有结构，也没有示例。更好的候选应列出要点、补充一个具体示例，并以一句话总结结尾。",
        )
    )
