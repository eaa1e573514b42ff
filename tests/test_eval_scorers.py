"""Question scorers over their edge cases, the regex guard's refusals, a judge that answers garbage,
and a time bound on every scorer's parse of adversarial answers."""

from __future__ import annotations

import time

import pytest

from agent_core.errors import TaskSetError
from agent_core.evaluation import scorers
from agent_core.messages import Completion, Usage


@pytest.mark.parametrize(
    ("answer", "expected", "ok"),
    [
        ("So the total is 1,234 apples.", "1234", True),
        ("#### 1,234", "1,234", True),
        ("The working: 3 + 4 = 7\n#### 1,234", "1234", True),  # the number after #### wins over the last
        ("It costs $1,234.50 in all.", "1234.5", True),
        ("12 kg", "12.0", True),
        ("The answer is -3.", "-3", True),
        ("The answer is −3.", "-3", True),  # a typographic minus
        ("half of it: 1/2", "0.5", True),
        ("first 5, then 7, finally 9", "9", True),  # the last number
        ("first 5, then 7, finally 9", "5", False),
        ("1, 2, 3", "3", True),  # a list is not one number with commas
        ("about 3.0000001", "3", True),  # within the default tolerance
        ("about 3.01", "3", False),
    ],
)
def test_numeric(answer: str, expected: str, ok: bool) -> None:
    score = scorers.numeric(answer, expected)
    assert score.passed is ok and score.status == ("passed" if ok else "failed")


def test_numeric_tolerance_and_unparsable() -> None:
    assert scorers.numeric("3.01", "3", tolerance=0.05).passed
    nothing = scorers.numeric("I do not know", "3")
    assert nothing.status == "unparsable" and not nothing.passed
    assert scorers.numeric("42", "no number here").status == "unparsable"


@pytest.mark.parametrize(
    ("answer", "expected", "ok"),
    [
        ("B", "B", True),
        ("(B)", "B", True),
        ("The answer is (b).", "B", True),
        ("答案：B", "B", True),
        ("dog", "B", True),
        ("Dog.", "dog", True),
        ("B) dog", "dog", True),
        ("A dog, clearly", "dog", True),  # "A" here is an article, not the letter
        ("C", "B", False),
        ("cat", "B", False),
        ("Answer: A. Wait, no: answer: B", "B", True),  # the last stated letter wins
    ],
)
def test_choice(answer: str, expected: str, ok: bool) -> None:
    assert scorers.choice(answer, expected, ("cat", "dog", "fish")).passed is ok


def test_choice_unparsable() -> None:
    assert scorers.choice("none of them", "B", ("cat", "dog", "fish")).status == "unparsable"
    assert scorers.choice("Z", "B", ("cat", "dog", "fish")).status == "unparsable"
    assert scorers.choice("B", "B", ()).status == "unparsable"


def test_exact_and_contains_normalise() -> None:
    assert scorers.exact("Answer: Paris.", "paris").passed
    assert scorers.exact('  The   answer is   "Paris"  ', "Paris").passed
    assert scorers.exact("<think>hmm, Lyon?</think>Paris", "Paris").passed  # the reasoning is not the answer
    assert not scorers.exact("Paris, France", "Paris").passed
    assert scorers.contains("I think it is Paris, France", "paris").passed
    assert not scorers.contains("Lyon", "paris").passed


def test_regex_matches_and_refuses_what_could_stall_the_server() -> None:
    assert scorers.regex("the value is 42", r"\b4\d\b").passed
    assert not scorers.regex("the value is 52", r"\b4\d\b").passed
    assert scorers.regex("Answer:  yes", r"answer:\s{0,3}(yes|no)").passed
    for bad in (
        r"(a+)+$",
        r"(a*)*b",
        r"(\w)\1",
        r"(?P<x>a)(?P=x)",
        r"(?=a)b",
        r"(?<!a)b",
        r".*x.*y",
        r"\w+\s+\w+z",
        r"(a|aa)+",
        "x" * 300,
        r"(unclosed",
    ):
        with pytest.raises(TaskSetError):
            scorers.check_regex(bad)


def test_regex_guard_holds_its_bound_on_adversarial_answers() -> None:
    # every pattern the guard accepts runs over the longest subject in well under a second
    subject = "a" * 200_000
    for pattern in (r"a+b", r"\w+!", r"(?:a|b)+c", r"[a-z]{0,50}[0-9]{0,50}x", r"a{0,100}a{0,100}b"):
        try:
            scorers.check_regex(pattern)
        except TaskSetError:
            continue
        started = time.perf_counter()
        scorers.regex(subject, pattern)
        assert time.perf_counter() - started < 2.0, pattern


@pytest.mark.parametrize(
    "answer",
    [
        "1," * 100_000,
        "9" * 200_000,
        " " * 200_000 + "answer",
        "answer " * 30_000,
        "(" * 100_000 + "B",
        "####" * 50_000,
        "-." * 100_000,
        "答案" + " " * 100_000 + "：",
        "1/" * 100_000,
    ],
)
def test_every_scorer_parses_adversarial_answers_in_linear_time(answer: str) -> None:
    started = time.perf_counter()
    scorers.numeric(answer, "3")
    scorers.choice(answer, "B", ("cat", "dog", "fish"))
    scorers.exact(answer, "x")
    scorers.contains(answer, "x")
    scorers.parse_judge(answer)
    assert time.perf_counter() - started < 2.0


class _Judge:
    """A ChatModel that answers the judge's call with a fixed text."""

    name = "fake-judge"

    def __init__(self, text: str) -> None:
        self.text, self.requests = text, []

    def stream(self, request):
        self.requests.append(request)
        yield self.text
        yield Completion(self.text, (), Usage(50, 5), self.name, 1.0, "stop")


@pytest.mark.parametrize(
    ("reply", "status"),
    [
        ("The answers agree.\nVERDICT: CORRECT", "passed"),
        ("verdict: incorrect", "failed"),
        ("判定：正确", "passed"),
        ("VERDICT: CORRECT\n...on reflection, VERDICT: INCORRECT", "failed"),  # the last verdict line wins
        ("I think so? maybe. 🤷", "unparsable"),
        ("", "unparsable"),
        ('{"verdict": 17}' * 1000, "unparsable"),
    ],
)
def test_judge_reads_its_verdict_and_calls_garbage_unparsable(reply: str, status: str) -> None:
    model = _Judge(reply)
    score = scorers.judge_with(model, "What is 2+2?", "It is 4.", "4")
    assert score.status == status and score.passed is (status == "passed")
    assert score.calls == 1 and score.tokens == 55  # counted with the run's calls and tokens
    request = model.requests[0]
    assert request.role == scorers.JUDGE_ROLE and "It is 4." in request.messages[-1].content


def test_the_judge_prompt_is_editable_and_in_both_languages() -> None:
    model = _Judge("VERDICT: CORRECT")
    prompts = {"en": {"system": "Be strict.", "user": "Q {question} / ref {expected} / got {answer}"}}
    scorers.judge_with(model, "q{answer}", "got", "ref", prompts=prompts)
    system, user = model.requests[0].messages
    assert system.content == "Be strict." and user.content == "Q q{answer} / ref ref / got got"  # one pass
    assert set(scorers.JUDGE_PROMPTS) == {"en", "zh"}
    scorers.judge_with(model, "2+2?", "4", "4", lang="zh")
    assert "参考答案" in model.requests[-1].messages[-1].content


def test_a_failing_judge_call_is_a_score_not_a_crash() -> None:
    from agent_core.errors import ModelError

    class Down:
        name = "down"

        def stream(self, request):
            raise ModelError("connection refused")
            yield  # pragma: no cover

    score = scorers.judge_with(Down(), "q", "a", "e")
    assert score.status == "unparsable" and "connection refused" in score.detail
