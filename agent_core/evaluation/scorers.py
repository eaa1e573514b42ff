"""Scorers for question tasks: is a model's final answer right? One typed `Score` per answer.

- `exact`: the answer equals the expected text once both are normalised (case, whitespace, the
  surrounding punctuation and quotes, a leading "answer:"/"答案：").
- `contains`: the normalised expected text occurs in the normalised answer.
- `regex`: the expected text is a regular expression searched in the answer. Python's `re`
  backtracks, and a scorer runs in the server, so a pattern is checked before it is used (see
  `check_regex`): no backreferences, conditionals or lookarounds, no quantifier inside a quantified
  group, and a worst-case step estimate (subject length × the product of every repeat's bound, an
  unbounded one counting as the subject's length) within REGEX_STEP_BUDGET over at most
  REGEX_SUBJECT_CHARS of the answer (its end, where answers end). That allows `\\d+` or
  `answer:\\s{0,3}(yes|no)`, and refuses `(a+)+` or `.*x.*y` — write bounded repeats instead.
- `numeric`: the last number of the answer (commas as thousands separators, a sign, decimals,
  units and currency around it, GSM8K's `#### 1,234`) equals the expected number within a tolerance.
- `choice`: the answer names one of the task's choices, by letter ("B", "(B)", "answer: B") or by its
  text; right when it is the expected one (given as a letter or as the choice's text).
- `judge`: an LLM judge (role `judge`, through the run's model router and its rate gate) reads the
  question, the expected answer and the answer, and says CORRECT or INCORRECT; anything else is
  scored "unparsable" (not passed), never an exception. Its prompt is editable (`JUDGE_PROMPTS`).

Every scan here is linear in the answer: numbers and letters are found with patterns that cannot
backtrack more than a constant per character, on a bounded answer.
"""

from __future__ import annotations

import math
import re

# the parser and its opcodes, how a pattern is checked before use: typeshed describes only their old
# names (sre_parse, sre_constants), which warn as deprecated since 3.11
import re._constants as sre_constants  # type: ignore[import-not-found]
import re._parser as sre_parse  # type: ignore[import-not-found]
import time
from collections import deque
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from ..errors import ModelError, TaskSetError
from ..messages import CallContext, ChatRequest, Completion, system, user
from ..verdicts import strip_think

SCORERS = ("exact", "contains", "regex", "numeric", "choice", "judge")
#: the longest answer a scorer reads, in characters (the end of a longer one)
MAX_ANSWER_CHARS = 64 * 1024
REGEX_SUBJECT_CHARS = 4096
REGEX_MAX_PATTERN = 256
REGEX_STEP_BUDGET = 20_000_000
DEFAULT_TOLERANCE = 1e-6
JUDGE_ROLE = "judge"

#: pass, fail, or the answer could not be read as the scorer needs (no number, no choice, a judge's garbage)
STATUSES = ("passed", "failed", "unparsable")


@dataclass(frozen=True)
class Score:
    """One answer scored: passed, a score from 0 to 1, and what the scorer read."""

    passed: bool
    status: str
    #: what was compared, e.g. "42 vs 42", or why it could not be read
    detail: str
    score: float = 0.0
    #: the judge's calls and tokens (0 for the other scorers), counted with the run's
    calls: int = 0
    tokens: int = 0
    cost_usd: float = 0.0
    #: the judge's reply, kept for the rows
    judge_reply: str = ""


def _verdict(ok: bool, detail: str) -> Score:
    return Score(ok, "passed" if ok else "failed", detail, 1.0 if ok else 0.0)


def _unparsable(detail: str) -> Score:
    return Score(False, "unparsable", detail)


# --- normalising ------------------------------------------------------------------------------------

_SPACE = re.compile(r"\s+")
_PREFIX = re.compile(
    r"^(?:the\s+)?(?:final\s+)?answer\s*(?:is)?\s*[:：]?\s*|^答案\s*(?:是|为)?\s*[:：]?\s*", re.IGNORECASE
)
_EDGE = " \t\n\r.。,，;；:：!！?？'\"`“”‘’()（）[]"


def _last(matches: Iterator[re.Match[str]]) -> re.Match[str] | None:
    """The last of `matches`, keeping none of the others in memory (an answer can hold thousands)."""
    kept = deque(matches, maxlen=1)
    return kept[0] if kept else None


def _tail(answer: str, limit: int = MAX_ANSWER_CHARS) -> str:
    text = strip_think(answer or "")
    return text[-limit:] if len(text) > limit else text


def normalise(text: str) -> str:
    """Case-folded, whitespace collapsed, a leading "answer:" and the surrounding punctuation dropped."""
    text = _SPACE.sub(" ", text.casefold()).strip()
    text = _PREFIX.sub("", text, count=1)
    return text.strip(_EDGE)


def exact(answer: str, expected: str) -> Score:
    got, want = normalise(_tail(answer)), normalise(expected)
    return _verdict(got == want, f"{_short(got)!r} vs {_short(want)!r}")


def contains(answer: str, expected: str) -> Score:
    got, want = normalise(_tail(answer)), normalise(expected)
    if not want:
        return _unparsable("the expected answer is empty")
    return _verdict(want in got, f"{_short(want)!r} {'in' if want in got else 'not in'} the answer")


# --- regex ------------------------------------------------------------------------------------------

_UNBOUNDED = sre_constants.MAXREPEAT
_REPEATS = (sre_constants.MAX_REPEAT, sre_constants.MIN_REPEAT, getattr(sre_constants, "POSSESSIVE_REPEAT", None))
_REFUSED = {
    sre_constants.GROUPREF: "a backreference",
    sre_constants.GROUPREF_EXISTS: "a conditional group",
    sre_constants.ASSERT: "a lookaround",
    sre_constants.ASSERT_NOT: "a lookaround",
}


def check_regex(pattern: str) -> re.Pattern[str]:
    """The compiled pattern, or TaskSetError saying why it could stall the server (see the module doc)."""
    if len(pattern) > REGEX_MAX_PATTERN:
        raise TaskSetError(
            f"the regex is {len(pattern)} characters; a scorer's regex is limited to {REGEX_MAX_PATTERN}",
            reason="not_task",
        )
    try:
        parsed = sre_parse.parse(pattern)
        compiled = re.compile(pattern, re.IGNORECASE)
    except (re.error, RecursionError, OverflowError) as exc:
        raise TaskSetError(f"the regex {pattern!r} does not compile ({exc})", reason="not_task") from None
    steps = _steps(parsed, REGEX_SUBJECT_CHARS, inside_repeat=False, pattern=pattern)
    if steps * REGEX_SUBJECT_CHARS > REGEX_STEP_BUDGET:
        raise TaskSetError(
            f"the regex {pattern!r} can backtrack too much: more than one unbounded repeat "
            "(* + {n,}) may scan the answer from every position; bound the repeats "
            "(e.g. \\s{0,5})",
            reason="not_task",
        )
    return compiled


def _steps(items: Any, n: int, *, inside_repeat: bool, pattern: str) -> int:
    """An upper bound on the ways a match can try one start position: the product of the repeats'
    bounds (an unbounded repeat counts n), branches added."""
    total = 1
    for op, arg in items:
        if op in _REFUSED:
            raise TaskSetError(
                f"the regex {pattern!r} uses {_REFUSED[op]}, which a scorer refuses (it can take exponential time)",
                reason="not_task",
            )
        if op in _REPEATS and op is not None:
            _low, high, body = arg
            if inside_repeat:
                raise TaskSetError(
                    f"the regex {pattern!r} nests a repeat inside a repeat, which can take "
                    "exponential time; a scorer refuses it",
                    reason="not_task",
                )
            bound = n if high == _UNBOUNDED else min(high, n) + 1
            total *= bound * _steps(body, n, inside_repeat=True, pattern=pattern)
        elif op is sre_constants.SUBPATTERN:
            total *= _steps(arg[-1], n, inside_repeat=inside_repeat, pattern=pattern)
        elif op is sre_constants.BRANCH:
            total *= sum(_steps(b, n, inside_repeat=inside_repeat, pattern=pattern) for b in arg[1])
        elif op is getattr(sre_constants, "ATOMIC_GROUP", None):
            total *= _steps(arg, n, inside_repeat=inside_repeat, pattern=pattern)
        total = min(total, REGEX_STEP_BUDGET + 1)
    return total


def regex(answer: str, expected: str) -> Score:
    compiled = check_regex(expected)
    subject = _tail(answer, REGEX_SUBJECT_CHARS)
    found = compiled.search(subject)
    return _verdict(
        found is not None, f"/{_short(expected)}/ {'matched ' + repr(_short(found.group(0))) if found else 'no match'}"
    )


# --- numbers ----------------------------------------------------------------------------------------

# a sign, digits with optional thousands commas, decimals; each part consumed once (no overlap)
_NUMBER = re.compile(r"(?<![\w.])[-−]?(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?(?:/\d+)?|(?<![\w.])[-−]?\.\d+")
_HASHES = "####"


def number_of(text: str) -> float | None:
    """The number an answer gives: after GSM8K's `####` if there is one, else the last number."""
    text = _tail(text)
    at = text.rfind(_HASHES)
    if at >= 0 and _NUMBER.search(text, at):
        text = text[at + len(_HASHES) :]
    last = _last(_NUMBER.finditer(text))
    if last is None:
        return None
    raw = last.group(0).replace(",", "").replace("−", "-")
    try:
        if "/" in raw:
            top, bottom = raw.split("/")
            return float(top) / float(bottom) if float(bottom) else None
        return float(raw)
    except (ValueError, OverflowError):
        return None


def numeric(answer: str, expected: str, tolerance: float = DEFAULT_TOLERANCE) -> Score:
    want = number_of(expected)
    if want is None:
        return _unparsable(f"the expected answer {_short(expected)!r} holds no number")
    got = number_of(answer)
    if got is None:
        return _unparsable("the answer holds no number")
    ok = math.isclose(got, want, rel_tol=0.0, abs_tol=max(tolerance, 0.0))
    return _verdict(ok, f"{_num(got)} vs {_num(want)}")


def _num(x: float) -> str:
    return str(int(x)) if x.is_integer() and abs(x) < 1e15 else f"{x:g}"


# --- choices ----------------------------------------------------------------------------------------

_LETTERS = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
_SAID_LETTER = re.compile(
    r"(?:answer|option|choice|答案|选项)\s*(?:is|:|：|是|为)?\s*[\(（]?([A-Za-z])[\)）]?(?![A-Za-z])", re.IGNORECASE
)
_LEAD_LETTER = re.compile(r"^[\(（]?([A-Za-z])(?:[\)）.:：]|$)")


def choice_index(answer: str, choices: tuple[str, ...]) -> int | None:
    """Which choice an answer names (by letter, or by its whole text), or None."""
    # whitespace runs collapsed first: the patterns below then see at most one blank between tokens
    text = _SPACE.sub(" ", _tail(answer)).strip()
    n = len(choices)
    letters = _LETTERS[:n]

    def letter(s: str) -> int | None:
        s = s.upper()
        return letters.index(s) if s in letters else None

    said = _last(_SAID_LETTER.finditer(text))
    if said is not None and letter(said.group(1)) is not None:
        return letter(said.group(1))
    norm = normalise(text)
    by_text = [i for i, c in enumerate(choices) if normalise(c) == norm]
    if by_text:
        return by_text[0]
    lead = _LEAD_LETTER.match(text)
    if lead is not None and letter(lead.group(1)) is not None:
        return letter(lead.group(1))
    named = [i for i, c in enumerate(choices) if normalise(c) and normalise(c) in norm]
    return named[0] if len(named) == 1 else None


def choice(answer: str, expected: str, choices: tuple[str, ...]) -> Score:
    if not choices:
        return _unparsable("the task has no choices")
    want = choice_index(expected, choices)
    if want is None:
        return _unparsable(f"the expected answer {_short(expected)!r} names none of the choices")
    got = choice_index(answer, choices)
    if got is None:
        return _unparsable("the answer names none of the choices")
    return _verdict(got == want, f"{_LETTERS[got]} vs {_LETTERS[want]}")


# --- the LLM judge ----------------------------------------------------------------------------------

JUDGE_PROMPTS: Mapping[str, Mapping[str, str]] = {
    "en": {
        "system": "You grade answers. Compare the candidate's final answer with the reference answer. Ignore "
        "wording, formatting and working; judge only whether the final answer means the same. Reply with "
        "one line: VERDICT: CORRECT or VERDICT: INCORRECT.",
        "user": "Question:\n{question}\n\nReference answer:\n{expected}\n\nCandidate answer:\n{answer}",
    },
    "zh": {
        "system": "你负责评分。把候选答案的最终结论与参考答案比较，不看措辞、格式和推理过程，只判断最终答案的意思是否相同。"
        "只回复一行：VERDICT: CORRECT 或 VERDICT: INCORRECT（也可写“判定：正确”或“判定：错误”）。",
        "user": "问题：\n{question}\n\n参考答案：\n{expected}\n\n候选答案：\n{answer}",
    },
}
_JUDGE_VERDICT = re.compile(r"(?:verdict|判定)\s*[:：]\s*(correct|incorrect|正确|错误)", re.IGNORECASE)
_PLACEHOLDER = re.compile(r"\{(\w{1,32})\}")
#: what the judge reads of a candidate answer (its end)
JUDGE_ANSWER_CHARS = 8000


def parse_judge(reply: str) -> bool | None:
    """CORRECT -> True, INCORRECT -> False, anything else -> None (the last verdict line wins)."""
    last = _last(_JUDGE_VERDICT.finditer(_tail(reply, 16_000)))
    if last is None:
        return None
    return last.group(1).casefold() in ("correct", "正确")


def judge_with(
    model: Any,
    question: str,
    answer: str,
    expected: str,
    *,
    lang: str = "en",
    prompts: Mapping[str, Mapping[str, str]] | None = None,
    scenario: str = "",
) -> Score:
    """Ask an LLM judge (a ChatModel, role `judge`); a reply it cannot read is "unparsable", a failed call too."""
    words = (prompts or JUDGE_PROMPTS).get(lang) or JUDGE_PROMPTS["en"]
    values = {"question": question, "expected": expected, "answer": _tail(answer, JUDGE_ANSWER_CHARS)}
    messages = (system(words["system"]), user(_fill(words["user"], values)))
    request = ChatRequest(
        messages,
        role=JUDGE_ROLE,
        temperature=0.0,
        context=CallContext(pattern="", scenario=scenario, lang=lang, node=JUDGE_ROLE, inputs=tuple(values.items())),
    )
    started = time.perf_counter()
    completion: Completion | None = None
    try:
        for piece in model.stream(request):
            if isinstance(piece, Completion):
                completion = piece
    except ModelError as exc:
        return Score(False, "unparsable", f"the judge's call failed: {exc}", calls=1)
    text = completion.text if completion is not None else ""
    tokens = (completion.usage.prompt_tokens + completion.usage.completion_tokens) if completion else 0
    verdict = parse_judge(text)
    ms = (time.perf_counter() - started) * 1000
    if verdict is None:
        return Score(
            False,
            "unparsable",
            f"the judge's reply has no VERDICT line ({ms:.0f} ms)",
            calls=1,
            tokens=tokens,
            judge_reply=_short(text, 400),
        )
    return Score(
        verdict,
        "passed" if verdict else "failed",
        f"judge: {'CORRECT' if verdict else 'INCORRECT'}",
        1.0 if verdict else 0.0,
        calls=1,
        tokens=tokens,
        judge_reply=_short(text, 400),
    )


def _fill(template: str, values: Mapping[str, str]) -> str:
    # bare {name} placeholders only, in one pass: a question holding "{answer}" stays as written, and no
    # format spec can inflate a prompt
    return _PLACEHOLDER.sub(lambda m: values.get(m.group(1), m.group(0)), template)


def _short(text: str, n: int = 60) -> str:
    return text if len(text) <= n else text[: n - 1] + "…"
