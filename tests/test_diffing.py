"""Draft diffs: seed 04's trial-division draft refined into a sieve, Chinese reports, and big drafts."""

import itertools

from hypothesis import given
from hypothesis import strategies as st

import agent_core as ac
from agent_core import diffing
from agent_core import events as ev
from agent_core.diffing import (
    MAX_DIFF_WORK,
    Budget,
    DiffStats,
    diff_stats,
    line_diff,
    opcodes,
    sentences,
    side_by_side,
    tokens,
    word_diff,
)


def primes_drafts():
    config, task = ac.for_scenario("primes")
    return [e.text for e in ac.run(task, config, ac.OfflineModel()).events if isinstance(e, ev.Draft)]


def spelled(segments, side):
    """The text one side of a word diff spells: equal segments plus that side's changes."""
    return "".join(text for tag, text in segments if tag in ("equal", side))


def test_the_sieve_draft_diffs_against_the_trial_division_draft():
    first, second = primes_drafts()
    diff = line_diff(first, second, version=0)
    lines = diff.splitlines()
    assert lines[:2] == ["--- draft 0", "+++ draft 1"] and lines[2].startswith("@@")
    assert any(line.startswith("-") and "divisor" in line for line in lines)
    assert any(line.startswith("+") and "is_prime = [True] * (n + 1)" in line for line in lines)
    assert not any(line.endswith("\n") for line in lines)  # lineterm=""
    stats = diff_stats(first, second)
    assert stats.added_lines == sum(1 for line in lines[2:] if line.startswith("+"))
    assert stats.removed_lines == sum(1 for line in lines[2:] if line.startswith("-"))
    assert 0 < stats.changed_ratio < 1


def test_equal_drafts_have_no_diff():
    assert line_diff("same\ntext", "same\ntext") == ""
    assert word_diff("same text", "same text") == [("equal", "same text")]
    assert diff_stats("same", "same") == DiffStats(0, 0, 0.0)
    assert diff_stats("", "") == DiffStats(0, 0, 0.0)
    assert word_diff("", "") == [] and side_by_side("", "") == []


def test_headers_follow_the_version_given():
    assert line_diff("a", "b", version=3).splitlines()[:2] == ["--- draft 3", "+++ draft 4"]


def test_latin_text_diffs_per_word():
    segments = word_diff("The quick brown fox jumps over the dog.", "The quick red fox jumps over the lazy dog.")
    assert segments == [
        ("equal", "The quick "),
        ("delete", "brown "),
        ("insert", "red "),
        ("equal", "fox jumps over the "),
        ("insert", "lazy "),
        ("equal", "dog."),
    ]


def test_chinese_text_diffs_per_character():
    segments = word_diff("北京今天晴，风力较大。", "北京今天多云，风力五到六级。")
    assert segments == [
        ("equal", "北京今天"),
        ("delete", "晴"),
        ("insert", "多云"),
        ("equal", "，风力"),
        ("delete", "较大"),
        ("insert", "五到六级"),
        ("equal", "。"),
    ]
    assert tokens("AQI 68，良") == ["AQI ", "68", "，", "良"]


def test_an_edit_in_one_long_paragraph_stays_local():
    # Chinese reports often come as one paragraph with no line breaks: sentences are aligned first
    days = [f"第{i}天北京晴，西北风{i % 6}级，空气质量良。" for i in range(3000)]
    before = "".join(days)
    after = before.replace(days[1500], days[1500].replace("良", "优"))
    changed = [(tag, text) for tag, text in word_diff(before, after) if tag != "equal"]
    assert changed == [("delete", "良"), ("insert", "优")]
    assert sentences(before) == days


def test_a_huge_rewrite_is_one_deletion_and_one_insertion():
    before = " ".join(f"w{i % 97}" for i in range(20000))
    after = " ".join(f"v{i % 89}" for i in range(20000))
    assert word_diff(before, after) == [("delete", before), ("insert", after)]
    assert diff_stats(before, after).changed_ratio == 1.0


def test_a_five_thousand_line_draft_with_scattered_edits():
    before = [f"Line {i}: the report says {i * 7 % 13} things." for i in range(5000)]
    after = list(before)
    for i in range(0, 5000, 500):
        after[i] = after[i].replace("says", "claims")
    del after[4321]
    a, b = "\n".join(before), "\n".join(after)
    assert diff_stats(a, b) == DiffStats(added_lines=10, removed_lines=11, changed_ratio=diff_stats(a, b).changed_ratio)
    changed = [text for tag, text in word_diff(a, b) if tag == "insert"]
    assert changed == ["claims "] * 10
    rows = side_by_side(a, b)
    assert sum(1 for row in rows if row[2] == "replace") == 10
    assert [row for row in rows if row[2] == "delete"] == [(before[4321], "", "delete")]


def test_side_by_side_pairs_changed_lines_and_pads_the_shorter_side():
    rows = side_by_side("title\nold one\nold two\nend", "title\nnew one\nend\nextra")
    assert rows == [
        ("title", "title", "equal"),
        ("old one", "new one", "replace"),
        ("old two", "", "delete"),
        ("end", "end", "equal"),
        ("", "extra", "insert"),
    ]


def test_changes_come_as_delete_then_insert():
    segments = word_diff("a\nb\nc\n", "a\nB!\nc\nd\n")
    for (tag, _), (next_tag, _) in itertools.pairwise(segments):
        assert tag != next_tag
        assert (tag, next_tag) != ("insert", "delete")


pieces = st.sampled_from(list("ab 。\n\r,.天气好x") + ["  ", "\r\n", "晴朗", "Beijing ", "A. "])
texts = st.lists(pieces, max_size=40).map("".join)


@given(texts, texts)
def test_word_diff_spells_both_drafts(a, b):
    segments = word_diff(a, b)
    assert spelled(segments, "delete") == a and spelled(segments, "insert") == b
    assert all(text for _, text in segments)
    assert all(t1 != t2 for (t1, _), (t2, _) in itertools.pairwise(segments))


@given(texts, texts)
def test_side_by_side_holds_every_line_of_both_drafts(a, b):
    rows = side_by_side(a, b)
    assert [left for left, _, tag in rows if tag != "insert"] == a.splitlines()
    assert [right for _, right, tag in rows if tag != "delete"] == b.splitlines()
    stats = diff_stats(a, b)
    assert stats.removed_lines == sum(1 for _, _, tag in rows if tag in ("replace", "delete"))
    assert stats.added_lines == sum(1 for _, _, tag in rows if tag in ("replace", "insert"))
    assert 0.0 <= stats.changed_ratio <= 1.0 and (stats.changed_ratio == 0.0) == (a == b)


# --- the cost bound -----------------------------------------------------------------------------------


def test_a_diff_of_repeated_lines_stops_at_its_budget_and_still_spells_both_drafts():
    a, b = "x\n" * 1100, "x\ny\n" * 550  # difflib alone: tens of CPU seconds (cubic)
    budget = Budget()
    segments = word_diff(a, b, budget)
    assert budget.exhausted and budget.left < 0
    assert "".join(t for tag, t in segments if tag != "insert") == a
    assert "".join(t for tag, t in segments if tag != "delete") == b
    stats = diff_stats(a, b)
    assert not stats.exact and stats.added_lines - stats.removed_lines == 0
    lines = line_diff(a, b, budget=Budget())
    assert lines.startswith("--- draft 1\n+++ draft 2\n@@ ")
    assert sum(1 for line in lines.splitlines() if line.startswith("+") and not line.startswith("+++")) <= 1100


def test_an_exhausted_budget_aligns_the_cheap_way_at_once():
    budget = Budget(0)
    assert opcodes(list("abcXdef"), list("abcYYdef"), budget) == [
        ("equal", 0, 3, 0, 3),
        ("replace", 3, 4, 3, 5),
        ("equal", 4, 7, 5, 8),
    ]
    assert budget.exhausted
    assert diff_stats("same\ntext", "same\ntext", Budget(0)) == DiffStats(0, 0, 0.0, exact=True)


def test_ordinary_drafts_stay_exact_within_the_budget():
    before = [f"Line {i}: the report says {i * 7 % 13} things." for i in range(5000)]
    after = [line.replace("says", "claims") if i % 500 == 0 else line for i, line in enumerate(before)]
    budget = Budget()
    diff_stats("\n".join(before), "\n".join(after), budget)
    assert not budget.exhausted and MAX_DIFF_WORK - budget.left < MAX_DIFF_WORK / 2


def test_line_diff_headers_can_name_the_sides():
    assert line_diff("a", "b", names=("Lane A", "Lane B")).splitlines()[:2] == ["--- Lane A", "+++ Lane B"]


def test_forty_seats_diffing_the_same_drafts_align_them_once_with_the_same_budget_spent():
    """The alignments are kept (a room's seats draw the same drafts' diffs): a second diff of the same
    drafts on the same budget gives the same segments and leaves the budget exactly where the first did,
    and one that runs out of budget runs out the same way again."""
    old = "\n".join(f"line {i}: the report says {i % 7} things." for i in range(300))
    new = old.replace("line 150:", "line 150 (edited):").replace("says 3", "says three")
    first_budget, second_budget = diffing.Budget(), diffing.Budget()
    first = diffing.word_diff(old, new, first_budget)
    calls_before = diffing._bounded.cache_info().hits
    second = diffing.word_diff(old, new, second_budget)
    assert second == first and second_budget == first_budget
    assert diffing._bounded.cache_info().hits > calls_before
    tight = [diffing.Budget(left=50), diffing.Budget(left=50)]
    runs = [diffing.word_diff(old, new, b) for b in tight]
    assert runs[0] == runs[1] and tight[0] == tight[1] and tight[0].exhausted
    assert "".join(t for tag, t in runs[0] if tag != "insert") == old  # still a whole diff, the cheap way
