"""One catalogue per language, and no page speaks outside it.

A workshop taught in Chinese switched to 中文 and still read mostly English: Home, the sidebar, every
Playground label. These tests keep that from coming back: both catalogues hold the same keys with the
same placeholders, every key a page asks for exists, and no page passes a literal label to Streamlit.
"""

from __future__ import annotations

import ast
import re
import string
from pathlib import Path

import pytest

from pages.ui import i18n

ROOT = Path(__file__).resolve().parents[1]
SOURCES = sorted([ROOT / "app.py", *(ROOT / "pages").glob("*.py"), *(ROOT / "pages" / "ui").glob("*.py")])

#: Streamlit calls whose text arguments a person reads (widgets, text, containers, column headers).
DISPLAY = {
    "button",
    "download_button",
    "link_button",
    "page_link",
    "form_submit_button",
    "checkbox",
    "toggle",
    "radio",
    "selectbox",
    "multiselect",
    "select_slider",
    "slider",
    "text_input",
    "text_area",
    "number_input",
    "date_input",
    "time_input",
    "file_uploader",
    "color_picker",
    "segmented_control",
    "pills",
    "chat_input",
    "title",
    "header",
    "subheader",
    "caption",
    "markdown",
    "write",
    "text",
    "success",
    "info",
    "warning",
    "error",
    "toast",
    "badge",
    "expander",
    "popover",
    "tabs",
    "metric",
    "status",
    "spinner",
    "dialog",
    "Page",
    "progress",
    "update",
    "Column",
    "TextColumn",
    "NumberColumn",
    "CheckboxColumn",
    "SelectboxColumn",
    "LinkColumn",
    "ListColumn",
    "ProgressColumn",
    "LineChartColumn",
    "BarChartColumn",
    "DateColumn",
    "DatetimeColumn",
}
#: keyword arguments that carry text a person reads
TEXT_KEYWORDS = {"label", "help", "placeholder", "caption", "title", "body", "text", "format_func"}
#: Latin words that are names or protocol tokens, the same in every language: verdicts the models
#: emit, file formats, product and model names.
NAMES = {
    "PASS",
    "RETRY",
    "REPLAN",
    "REVISE",
    "FAIL",
    "JSON",
    "CSV",
    "API",
    "URL",
    "LLM",
    "ReAct",
    "OpenAI",
    "OpenTelemetry",
    "OTLP",
    "Ollama",
    "llama",
    "cpp",
    "HumanEval",
    "Phoenix",
    "Jaeger",
    "Langfuse",
    "DeepSeek",
    "Qwen",
    "DashScope",
    "vLLM",
    "GGUF",
    "Python",
    "Streamlit",
    "ok",
    "est",
    # the orchestrator's review verdicts, LATS and its selection rule: names in every language
    "DONE",
    "REDISPATCH",
    "LATS",
    "UCT",
}
# markdown/Streamlit syntax that holds Latin letters but is not read as words
_SYNTAX = re.compile(r":material/[a-z_]+:|:[a-z]+(?:-background|-badge)?\[|:[a-z_]+:|\{[^{}]*\}|https?://\S+")
_WORD = re.compile(r"[A-Za-z]{2,}")


def _latin_words(text: str) -> list[str]:
    return [w for w in _WORD.findall(_SYNTAX.sub(" ", text)) if w not in NAMES]


def _strings(node: ast.AST):
    """The string literals inside an argument, not looking into calls (a call makes its own text)."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        yield node
    elif isinstance(node, ast.JoinedStr):
        for part in node.values:
            if isinstance(part, ast.Constant):
                yield part
    elif isinstance(node, (ast.List, ast.Tuple, ast.Set)):
        for item in node.elts:
            yield from _strings(item)
    elif isinstance(node, ast.BinOp):
        yield from _strings(node.left)
        yield from _strings(node.right)
    elif isinstance(node, ast.IfExp):
        yield from _strings(node.body)
        yield from _strings(node.orelse)
    elif isinstance(node, ast.Lambda):
        yield from _strings(node.body)
    elif isinstance(node, ast.Dict):
        for value in node.values:
            yield from _strings(value)


def _callee(call: ast.Call) -> str:
    func = call.func
    return func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""


def page_literals() -> list[str]:
    """Every literal label a page passes to Streamlit, as `file:line: "text"`."""
    found = []
    for path in SOURCES:
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for call in (n for n in ast.walk(tree) if isinstance(n, ast.Call)):
            if _callee(call) not in DISPLAY:
                continue
            args = [*call.args, *(k.value for k in call.keywords if k.arg in TEXT_KEYWORDS)]
            for arg in args:
                for literal in _strings(arg):
                    if _latin_words(literal.value):
                        found.append(f"{path.relative_to(ROOT)}:{literal.lineno}: {literal.value!r}")
    return found


def asked_keys() -> set[tuple[str, str]]:
    """Every literal key passed to `t(...)` or `words(...)` in the pages, with where it is asked."""
    asked = set()
    for path in SOURCES:
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for call in (n for n in ast.walk(tree) if isinstance(n, ast.Call)):
            if _callee(call) in ("t", "words") and call.args:
                first = call.args[0]
                if isinstance(first, ast.Constant) and isinstance(first.value, str):
                    asked.add((_callee(call), first.value, f"{path.relative_to(ROOT)}:{call.lineno}"))
    return asked


def _placeholders(text: str) -> set[str]:
    return {name for _, name, _, _ in string.Formatter().parse(text) if name}


def test_both_catalogues_hold_the_same_keys():
    en, zh = set(i18n.catalogue("en")), set(i18n.catalogue("zh"))
    assert not en - zh, f"missing in zh.toml: {sorted(en - zh)}"
    assert not zh - en, f"missing in en.toml: {sorted(zh - en)}"


def test_placeholders_agree_between_languages():
    en, zh = i18n.catalogue("en"), i18n.catalogue("zh")
    differ = {
        k: (_placeholders(en[k]), _placeholders(zh[k]))
        for k in en.keys() & zh.keys()
        if _placeholders(en[k]) != _placeholders(zh[k])
    }
    assert not differ, differ


def test_the_chinese_catalogue_is_chinese():
    """A zh entry copied from English is a gap, not a translation."""
    en, zh = i18n.catalogue("en"), i18n.catalogue("zh")
    copied = [k for k, text in zh.items() if _latin_words(text) and text == en.get(k)]
    assert not copied, f"zh.toml entries left in English: {copied}"


def test_every_key_a_page_asks_for_exists():
    en = i18n.catalogue("en")
    missing = []
    for kind, key, where in sorted(asked_keys()):
        if kind == "t" and key not in en:
            missing.append(f"{where}: {key}")
        if kind == "words" and not any(k.startswith(key + ".") for k in en):
            missing.append(f"{where}: {key}.*")
    assert not missing, "\n".join(missing)


def test_no_page_passes_a_literal_label_to_streamlit():
    found = page_literals()
    assert not found, f"{len(found)} literal label(s) outside the catalogue:\n" + "\n".join(found)


def test_the_literal_scan_can_fail():
    """The scanner finds the kinds of literal it is meant to find (so the test above can fail)."""
    source = (
        'st.button("Run")\nst.caption(f"{n} calls")\nst.tabs(["Prompt", t("x")])\n'
        'st.selectbox(t("a"), xs, format_func=lambda s: "Fast")\nst.badge(":material/key: PASS")\n'
    )
    tree = ast.parse(source)
    hits = []
    for call in (n for n in ast.walk(tree) if isinstance(n, ast.Call)):
        if _callee(call) in DISPLAY:
            for arg in [*call.args, *(k.value for k in call.keywords if k.arg in TEXT_KEYWORDS)]:
                hits += [s.value for s in _strings(arg) if _latin_words(s.value)]
    assert sorted(hits) == sorted(["Run", " calls", "Prompt", "Fast"])


@pytest.mark.parametrize("lang", i18n.LANGS)
def test_t_fills_placeholders_and_falls_back(lang):
    assert "3" in i18n.t("honesty.edited", lang, n=3)
    assert i18n.t("no.such.key", lang) == "no.such.key"
