"""How self-consistency reads and counts its samples: each sample's final answer, normalised, and the
vote over them.

The final answer of a sample is found by the first of these rules that applies (Wang et al. 2023 parse
the answer after "The answer is"; GSM8K's worked answers end in "#### N"):

1. the last `#### X` (GSM8K's marker);
2. the last answer line: `Answer: X`, `Final answer: X`, `The answer is X`, `答案：X`, `最终答案是 X`;
3. the first fenced code block (a code task: the code is the answer);
4. the last number in the reply;
5. the whole reply.

What is compared is then normalised: an answer holding a number is its last number, written plainly
(`$1,250.00` and `1250` are one answer, `23 元` and `23` too); any other answer is its text with
whitespace folded, case ignored and a closing full stop dropped. A reply that is empty (or only a
reasoning block) abstains.

The vote: the answer most samples gave wins; a tie goes to the tied answer that came first (the
lowest-numbered sample). It is a majority when more than half of the samples gave it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation

from ...text import Text
from ...untrusted import code_blocks
from ...verdicts import strip_think

_GSM8K = re.compile(r"####[ \t]*([^\n]*)")
_ANSWER_LINE = re.compile(
    r"(?:\bfinal\s+answer|\banswer)(?:\s+is\b|\s*[:：])[ \t]*([^\n]*)|(?:最终答案|答案)\s*(?:是|为|[:：])[ \t]*([^\n]*)",
    re.IGNORECASE,
)
_NUMBER = re.compile(r"[-−]?\d+(?:[,，]\d{3})*(?:\.\d+)?")
#: what a closing full stop (or markup around an answer) looks like
_TRAILING = " \t.。!！*_`\"'“”"
#: how many characters of an answer a tally shows
SHOWN_CHARS = 60

#: the rule that found a sample's answer, as a tally says it
RULES = {
    "gsm8k": Text("#### line", "#### 行"),
    "answer": Text("answer line", "答案行"),
    "code": Text("code block", "代码块"),
    "number": Text("last number", "最后一个数"),
    "text": Text("whole reply", "整段回复"),
}


@dataclass(frozen=True)
class Ballot:
    """One sample's answer: the sample (from 1), what is compared, what a person reads, and the rule."""

    sample: int
    key: str
    shown: str
    rule: str
    #: the sample's whole reply (the run's answer, when its answer wins)
    text: str


@dataclass(frozen=True)
class Group:
    """One distinct answer and the samples that gave it, in order."""

    key: str
    shown: str
    samples: tuple[int, ...]


@dataclass(frozen=True)
class Tally:
    """The vote over `total` samples: the distinct answers in the order they first came, and the ballots."""

    total: int
    groups: tuple[Group, ...]
    ballots: tuple[Ballot, ...]

    @property
    def winner(self) -> Group | None:
        """The answer most samples gave; of tied answers, the one that came first."""
        if not self.groups:
            return None
        top = max(len(g.samples) for g in self.groups)
        return next(g for g in self.groups if len(g.samples) == top)

    @property
    def tied(self) -> tuple[Group, ...]:
        """The answers that share the most votes (one, unless there is a tie)."""
        if not self.groups:
            return ()
        top = max(len(g.samples) for g in self.groups)
        return tuple(g for g in self.groups if len(g.samples) == top)

    @property
    def majority(self) -> bool:
        """More than half of the samples gave the winning answer."""
        won = self.winner
        return won is not None and 2 * len(won.samples) > self.total

    def text_of(self, group: Group) -> str:
        """The whole reply of the first sample that gave `group`'s answer."""
        return next(b.text for b in self.ballots if b.key == group.key)

    def line(self, lang: str) -> str:
        """The tally as a person reads it: "23: 2 of 3 samples (2, 3); 22: 1 of 3 (1)"."""
        parts = []
        for i, g in enumerate(sorted(self.groups, key=lambda g: -len(g.samples))):
            which = ", ".join(map(str, g.samples))
            if lang == "zh":
                parts.append(f"{g.shown}：{self.total} 次采样中 {len(g.samples)} 次（第 {which} 次）")
            else:
                noun = " samples" if i == 0 else ""
                parts.append(f"{g.shown}: {len(g.samples)} of {self.total}{noun} ({which})")
        abstained = self.total - len(self.ballots)
        if abstained:
            parts.append(f"{abstained} 次采样没有给出答案" if lang == "zh" else f"{abstained} gave no answer")
        return ("；" if lang == "zh" else "; ").join(parts)

    def rule(self, lang: str) -> str:
        """How the vote was decided, as a person reads it: a majority, a plurality, or the tie rule."""
        won = self.winner
        if won is None:
            return Text("No sample gave an answer.", "没有任何采样给出答案。")(lang)
        n, total = len(won.samples), self.total
        if self.majority:
            return Text(f"Majority: {won.shown} ({n} of {total}).", f"多数：{won.shown}（{total} 次中 {n} 次）。")(lang)
        if len(self.tied) > 1:
            names = ("、" if lang == "zh" else ", ").join(g.shown for g in self.tied)
            return Text(
                f"No majority: a tie between {names} at {n} each; the tie rule picks the one that came first, "
                f"{won.shown} (sample {won.samples[0]}).",
                f"没有多数：{names} 各得 {n} 票，打平；按平局规则取最先出现的 {won.shown}（第 {won.samples[0]} 次采样）。",
            )(lang)
        return Text(
            f"No majority: {won.shown} has the most votes ({n} of {total}).",
            f"没有多数：{won.shown} 得票最多（{total} 次中 {n} 次）。",
        )(lang)


def canonical_number(raw: str) -> str | None:
    """A number as the vote compares it: no separators, no trailing zeros ("1,250.00" -> "1250")."""
    try:
        value = Decimal(raw.replace(",", "").replace("，", "").replace("−", "-"))
    except InvalidOperation:
        return None
    if value == 0:
        return "0"
    plain = format(value.normalize(), "f")
    return plain


def normalised(answer: str) -> tuple[str, str]:
    """(what the vote compares, what a person reads) of an extracted answer."""
    numbers = _NUMBER.findall(answer)
    if numbers:
        number = canonical_number(numbers[-1])
        if number is not None:
            return number, number
    flat = " ".join(answer.split()).strip(_TRAILING)
    shown = flat if len(flat) <= SHOWN_CHARS else flat[: SHOWN_CHARS - 1] + "…"
    return flat.casefold(), shown or "—"


def extract(text: str) -> tuple[str, str] | None:
    """(the answer of a reply, the rule that found it) — None when the reply says nothing."""
    body = strip_think(text)
    if not body:
        return None
    marked = _GSM8K.findall(body)
    if marked and marked[-1].strip(_TRAILING):
        return marked[-1], "gsm8k"
    lines = [m.group(1) if m.group(1) is not None else m.group(2) for m in _ANSWER_LINE.finditer(body)]
    lines = [line for line in lines if line.strip(_TRAILING)]
    if lines:
        return lines[-1], "answer"
    if "```" in body:
        blocks = [b for _tag, b in code_blocks(body) if b.strip()]
        if blocks:
            return blocks[0], "code"
    numbers = _NUMBER.findall(body)
    if numbers:
        return numbers[-1], "number"
    return body, "text"


def ballot(sample: int, text: str) -> Ballot | None:
    """One sample's ballot, or None when its reply gave no answer (it abstains)."""
    found = extract(text)
    if found is None:
        return None
    answer, rule = found
    if rule == "code":  # code is compared as written, whitespace folded: its numbers are not its answer
        flat = " ".join(answer.split())
        key, shown = flat, (flat if len(flat) <= SHOWN_CHARS else flat[: SHOWN_CHARS - 1] + "…")
    else:
        key, shown = normalised(answer)
    return Ballot(sample, key, shown, rule, strip_think(text))


def tally(total: int, ballots: list[Ballot]) -> Tally:
    """The vote over `total` samples' ballots (abstentions are samples without one)."""
    order: dict[str, list[int]] = {}
    shown: dict[str, str] = {}
    for b in ballots:
        order.setdefault(b.key, []).append(b.sample)
        shown.setdefault(b.key, b.shown)
    groups = tuple(Group(key, shown[key], tuple(samples)) for key, samples in order.items())
    return Tally(total, groups, tuple(ballots))
