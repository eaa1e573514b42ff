"""Readable diffs: lines wrap, deletions are struck through and insertions underlined (not
told apart by colour alone), code keeps its monospace font and indentation, and hostile text stays
text. The HTML is built by pages.ui.diff_view and checked here as a browser would parse it."""

from __future__ import annotations

import functools
from html.parser import HTMLParser

import pytest

from agent_core.diffing import word_diff
from pages.ui import diff_view
from tests.app_pages import open_page

open_playground = functools.partial(open_page, "pages/playground.py")


class Parsed(HTMLParser):
    """Every tag, with its attributes, and the text inside each tag kind."""

    def __init__(self, body: str) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[tuple[str, dict[str, str]]] = []
        self.open: list[str] = []
        self.text: dict[str, str] = {"del": "", "ins": "", "": ""}
        self.feed(body)

    def handle_starttag(self, tag, attrs):  # noqa: ANN001
        self.tags.append((tag, dict(attrs)))
        self.open.append(tag)

    def handle_endtag(self, tag):  # noqa: ANN001
        assert self.open and self.open[-1] == tag, (self.open, tag)
        self.open.pop()

    def handle_data(self, data):  # noqa: ANN001
        inner = next((t for t in reversed(self.open) if t in ("del", "ins")), "")
        self.text[inner] += data


def test_deletions_are_struck_through_and_insertions_underlined():
    segments = word_diff("Find primes by trial division.", "Find primes using the Sieve of Eratosthenes.")
    parsed = Parsed(diff_view.diff_html(segments))
    styles = {tag: attrs.get("style", "") for tag, attrs in parsed.tags}
    assert "line-through" in styles["del"] and "underline" in styles["ins"]
    assert "trial division" in parsed.text["del"] and "Sieve of Eratosthenes" in parsed.text["ins"]
    assert "by" in parsed.text["del"] and "using" in parsed.text["ins"]
    assert parsed.text[""].startswith("Find primes ")


def test_lines_wrap_and_code_keeps_its_font_and_indentation():
    old = "def find_primes(n):\n    for candidate in range(2, n + 1):\n\tpass\n"
    new = "def find_primes(n):\n    sieve = [True] * (n + 1)\n\tpass\n"
    prose = Parsed(diff_view.diff_html(word_diff(old, new)))
    code = Parsed(diff_view.diff_html(word_diff(old, new), code=True))
    box = code.tags[0][1]["style"]
    assert "white-space: pre-wrap" in box and "overflow-wrap: anywhere" in box, "long lines wrap, spaces kept"
    assert "monospace" in box and "monospace" not in prose.tags[0][1]["style"]
    # pre-wrap keeps every space and tab as written: the old and new code read back exactly
    assert code.text[""] + code.text["del"] != "" and "    " in code.text[""] and "\t" in code.text[""]
    olds = "".join(t for tag, t in word_diff(old, new) if tag != "insert")
    assert olds == old


HOSTILE = [
    "<script>alert(1)</script>",
    '<img src=x onerror="alert(2)">',
    '"><b>bold</b>',
    "</del><ins>fake</ins>",
    "&lt;already escaped&gt;",
    "![x](http://example.com/p.png)",
    ":red[x] $x$",
]


@pytest.mark.parametrize("payload", HOSTILE)
def test_hostile_text_stays_text(payload):
    old, new = f"keep {payload} here", f"keep here {payload} and more"
    body = diff_view.diff_html(word_diff(old, new), code=True)
    parsed = Parsed(body)
    assert {tag for tag, _ in parsed.tags} <= {"div", "del", "ins"}
    assert all(set(attrs) <= {"class", "style"} for _tag, attrs in parsed.tags)
    # what a reader sees is exactly the two texts: nothing was eaten as markup
    assert parsed.text[""] + parsed.text["del"] != ""
    seen_old = "".join(t for tag, t in _spans(body) if tag != "ins")
    seen_new = "".join(t for tag, t in _spans(body) if tag != "del")
    assert seen_old == old and seen_new == new


def _spans(body: str) -> list[tuple[str, str]]:
    """(tag, text) runs in document order, text unescaped as a browser shows it."""
    out: list[tuple[str, str]] = []

    class Runs(Parsed):
        def handle_data(self, data):  # noqa: ANN001
            inner = next((t for t in reversed(self.open) if t in ("del", "ins")), "")
            out.append((inner, data))

    Runs(body)
    return out


def test_side_by_side_splits_the_segments():
    segments = word_diff("a b c", "a x c")
    left, right = diff_view.sides(segments)
    assert "".join(t for _, t in left) == "a b c" and "".join(t for _, t in right) == "a x c"


def test_code_is_told_from_prose():
    assert diff_view.looks_like_code("def f(x):\n    return x\n")
    assert not diff_view.looks_like_code("The order has not arrived yet.\nTry again later.")


def test_the_primes_run_draws_its_word_diff_struck_and_underlined_in_monospace():
    at = open_playground()
    at.selectbox(key="pg_variant").select("reflection").run()
    at.selectbox(key="pg_scenario").set_value("primes").run()
    at.button(key="pg_run").click().run()
    assert not at.exception
    diffs = [h.proto.body for h in at.get("html") if diff_view.CSS_CLASS in h.proto.body]
    assert diffs, "the draft's word diff is drawn as HTML"
    parsed = Parsed(diffs[0])
    assert "monospace" in parsed.tags[0][1]["style"], "a code task's word diff keeps the code font"
    assert parsed.text["del"] and parsed.text["ins"]
    code = [c.value for c in at.code if c.language == "diff"]
    assert code and all(c.proto.wrap_lines for c in at.code if c.language == "diff"), "line diffs wrap"


def test_a_hostile_trace_s_drafts_reach_the_page_as_text():
    """Replay a trace whose drafts carry markup (tests/hostile_traces): the word diffs hold it as text."""
    from tests.hostile_traces import ATTACKER_HOST, corpus, dumps

    data, _ = corpus()["labels-primes"]
    at = open_page("pages/replay.py")
    at.segmented_control(key="rp_source").set_value("upload").run()
    at.file_uploader(key="rp_upload").set_value(("labels-primes.json", dumps(data), "application/json")).run()
    assert not at.exception
    bodies = [h.proto.body for h in at.get("html") if diff_view.CSS_CLASS in h.proto.body]
    assert bodies, "the drafts' word diff is on the page"
    for body in bodies:
        parsed = Parsed(body)
        assert {tag for tag, _ in parsed.tags} <= {"div", "del", "ins"}, body[:300]
        seen = parsed.text[""] + parsed.text["del"] + parsed.text["ins"]
        assert "<b>ATTACKHTML</b>" in seen and f'<img src="http://{ATTACKER_HOST}/html.png">' in seen
