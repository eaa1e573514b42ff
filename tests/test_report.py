"""Markdown run reports: the seeds' runs written up as handouts, safe against hostile model output and
never holding a key."""

import json
import re

import pytest

import agent_core as ac
from agent_core import events as ev
from agent_core.errors import EndpointConnectionError
from agent_core.report import TOOL_OUTPUT_CHARS, TOOL_OUTPUT_LINES, fence, final_statuses, markdown_report, quote
from agent_core.testing import ScriptedModel, say, tool

KEY = "sk-test-REPORTLEAK0123456789"
SCRIPT = "<script>alert('pwned')</script>"


def play(scenario, lang="en", model=None, **overrides):
    config, task = ac.for_scenario(scenario, lang, **overrides)
    return config, ac.run(task, config, model or ac.OfflineModel()).events


def report(config, events, **kwargs):
    return markdown_report(config.to_dict(), events, {"default": "offline-scripted"}, **kwargs)


def sections(md):
    return [line[3:] for line in md.splitlines() if line.startswith("## ")]


def outside_code(md):
    """The report's text outside fenced blocks and code spans: where a renderer would honour HTML."""
    kept, opened = [], ""
    for line in md.splitlines():
        body = re.sub(r"^(> ?)+", "", line)
        marker = re.match(r" {0,3}(`{3,}|~{3,})", body)
        if opened:
            if (
                marker
                and body.strip() == marker.group(1)
                and marker.group(1)[0] == opened[0]
                and len(marker.group(1)) >= len(opened)
            ):
                opened = ""
            continue
        if marker:
            opened = marker.group(1)
            continue
        kept.append(re.sub(r"(`+)(?!`).+?(?<!`)\1(?!`)", "", body))
    assert not opened, "a fenced block was left open"
    return "\n".join(kept)


def json_reply(**fields):
    return json.dumps(fields, ensure_ascii=False)


def order_99999_model():
    """Seed 03's documented run: the 'syncing' shell is REPLANned, the new synthesis step RETRIED, then PASS."""
    return ScriptedModel(
        [
            say(
                json_reply(
                    steps=[
                        {"description": "Query order 99999 for its status and delivery", "tool": "query_order"},
                        {"description": "Decide from the status whether it has been delivered", "tool": None},
                        {"description": "Tell the user whether the order has arrived", "tool": None},
                    ]
                ),
                role="planner",
            ),
            say("", tool("query_order", order_id="99999"), role="executor"),
            say("Order 99999: status 查询中 (syncing); the data is still being synchronised.", role="executor"),
            say(
                json_reply(
                    verdict="REPLAN",
                    analysis="No status or delivery data: the record is still syncing.",
                    suggestion="Tell the user the lookup failed.",
                ),
                role="reflector",
            ),
            say(
                json_reply(
                    steps=[
                        {
                            "description": "Tell the user order 99999 could not be looked up; suggest retrying "
                            "later or contacting support",
                            "tool": None,
                        }
                    ]
                ),
                role="planner",
            ),
            say("Thank you for shopping with us! Let us know if you need anything else.", role="synthesizer"),
            say(
                json_reply(
                    verdict="RETRY",
                    analysis="The reply ignores the failed lookup.",
                    suggestion="Say that order 99999 could not be found; suggest retrying later.",
                ),
                role="reflector",
            ),
            say(
                "Sorry, we could not look up order 99999 yet: its data is still syncing. Please try again later or "
                "contact customer support.",
                role="synthesizer",
            ),
            say(
                json_reply(verdict="PASS", analysis="The reply states the failure and gives next steps."),
                role="reflector",
            ),
        ]
    )


# --- the seeds' runs ------------------------------------------------------------------------------


def test_weather_report_tells_the_react_run_round_by_round():
    config, events = play("weather-report")
    md = report(config, events)
    assert md.startswith("# ReAct — Weather report (ReAct + reflection advisor)\n")
    assert sections(md) == [
        "Configuration",
        "Task",
        "Step by step",
        "Limits reached",
        "Final answer",
        "Why it ended",
        "Metrics by role",
    ]
    assert "| `max_reflection_rounds` | 2 |" in md and "| tools | weather, search |" in md
    assert "| default | `offline-scripted` |" in md
    assert [line for line in md.splitlines() if line.startswith("### Round")] == [
        "### Round 1",
        "### Round 2",
        "### Round 3",
        "### Round 4",
    ]
    assert md.count("**Tool call** `weather`") == 2 and md.count("**Tool call** `search`") == 2
    assert md.count("**Verdict (judge):** `REVISE`") == 2 and "lacks Beijing's warning information" in md
    assert "- `max_reflection_rounds` = 2: 2 judgement(s) without a pass" in md
    answer = next(e.text for e in events if isinstance(e, ev.FinalAnswer))
    assert quote(answer) in md
    assert "A round limit was reached; the best answer so far was returned. (`cap`)" in md
    assert re.search(r"\| actor \| `offline-scripted` \| 4 \| [\d,]+\* \|", md)
    assert re.search(r"\| judge \| `offline-scripted` \| 2 \|", md) and "**6**" in md


def test_weather_report_in_chinese_has_chinese_headings():
    config, events = play("weather-report", "zh")
    md = report(config, events)
    assert md.startswith("# ReAct — 天气分析报告（ReAct + 反思顾问）\n")
    assert sections(md) == ["配置", "任务", "逐步过程", "触发的上限", "最终答案", "结束原因", "按角色统计"]
    assert "### 第 1 轮" in md and "**评审结论（评判员）：** `REVISE`" in md
    assert "达到轮次上限，返回当前最佳答案。（`cap`）" in md


def test_primes_report_shows_each_draft_as_a_diff_of_the_last():
    config, events = play("primes")
    md = report(config, events)
    assert md.startswith("# Reflection — Primes up to n")
    assert "### First draft" in md and "### Iteration 1" in md and "### Iteration 2" in md
    first = next(e.text for e in events if isinstance(e, ev.Draft))
    assert "**Draft 0**\n\n" + fence(first, "python") in md
    assert re.search(
        r"\*\*Draft 1\*\* — \d+ line\(s\) added, \d+ removed, \d+% of the text changed\n\n```diff\n"
        r"--- draft 0\n\+\+\+ draft 1\n@@",
        md,
    )
    assert "+    is_prime = [True] * (n + 1)" in md
    assert "**Verdict (critic):** `REVISE`" in md and "**Verdict (critic):** `PASS`" in md
    assert "## Final answer\n\n```python\ndef find_primes(n):" in md
    assert "The reviewer passed the answer. (`pass`)" in md and "No limit was reached." in md


def test_order_99999_report_shows_the_plans_with_final_statuses():
    model = order_99999_model()
    config, events = play("order-99999", model=model)
    assert [e.verdict for e in events if isinstance(e, ev.VerdictEvent)] == ["REPLAN", "RETRY", "PASS"]
    md = report(config, events)
    assert "### Plan\n\n| # | Step | Tool | Critical | Status |" in md
    assert "| 1 | Query order 99999 for its status and delivery | `query_order` |  | failed |" in md
    assert "| 2 | Decide from the status whether it has been delivered | — |  | re-planned |" in md
    assert "### Revised plan (revision 1)" in md
    assert re.search(r"\| 4 \| Tell the user order 99999 could not be looked up; .* \| — \|  \| done \|", md)
    assert "### Step 1" in md and "### Step 4" in md and "**Started (attempt 2):**" in md
    # what the Reflector judged comes before its verdict
    retried = md.index("Thank you for shopping with us!")
    assert retried < md.index("**Verdict (reflector):** `RETRY`") < md.index("**Step 4: retried**")
    assert md.index("Sorry, we could not look up") < md.index("**Verdict (reflector):** `PASS`")
    assert re.search(r"\| reflector \| `scripted` \| 3 \|", md)
    assert final_statuses(events) == {1: "failed", 2: "replanned", 3: "replanned", 4: "done"}


def test_order_99999_on_the_offline_model_in_chinese():
    config, events = play("order-99999", "zh")
    md = report(config, events)
    assert md.startswith("# Plan-and-Execute — 订单 99999（计划执行 + 反思器）\n")
    assert "### 计划" in md and "### 重新规划（第 1 版）" in md
    assert re.search(r"\| 1 \| 查询订单 99999[^|]* \| `query_order` \|  \| 失败 \|", md)
    assert "**评审结论（反思器）：** `REPLAN`" in md and "**步骤 1：失败**" in md
    assert "**步骤 4：重试**" in md and "**开始（第 2 次尝试）：**" in md and "**步骤 4：完成**" in md
    assert "评审判定通过。（`pass`）" in md


# --- runs that did not end well -------------------------------------------------------------------


class Down:
    name = "down"

    def stream(self, request):
        raise EndpointConnectionError("cannot reach http://127.0.0.1:9/v1: connection refused")
        yield  # a generator, like every ChatModel


def test_a_failed_run_says_why():
    config, events = play("weather-report", model=Down())
    md = report(config, events)
    assert "**Run failed:** `connection_error`" in md
    assert "## Why it ended\n\nThe run failed. (`error`)\n\n`connection_error`\n\n> cannot reach" in md
    assert "_No final answer._" in md and "No LLM call was made." in md


def test_a_partial_run_is_reported_as_far_as_it_got():
    config, events = play("weather-report")
    cut = next(i for i, e in enumerate(events) if isinstance(e, ev.VerdictEvent))
    md = report(config, events[: cut + 1])
    assert "### Round 2" in md and "### Round 3" not in md
    assert "The trace has no closing event: the run was interrupted or is still running." in md
    assert "_No final answer._" in md and "No limit was reached." in md
    assert markdown_report({}, []).startswith("# Run — run report")


def test_a_fallback_verdict_is_flagged_and_repeated_text_shown_once():
    events = [
        ev.RunStarted(pattern="plan-execute", task="Check order 10001"),
        ev.VerdictEvent(
            t=0.5,
            step=1,
            role="reflector",
            verdict="PASS",
            analysis="could not parse the reply",
            feedback="could not parse the reply",
            parsed=False,
        ),
        ev.Draft(t=0.6, step=1, version=0, text="same"),
        ev.Draft(t=0.7, step=2, version=1, text="same"),
    ]
    md = markdown_report({"pattern": "plan-execute"}, events)
    assert "**Verdict (reflector):** `PASS`\n\n_⚠ The reply could not be parsed; this is the fallback verdict._" in md
    assert md.count("could not parse the reply") == 1
    assert "**Draft 1** — Same text as draft 0." in md


def test_long_tool_output_is_cut_with_a_note():
    events = [
        ev.ToolCallEvent(t=0.1, step=1, name="search", arguments={"query": "x"}, call_id="c"),
        ev.ToolResult(t=0.2, step=1, name="search", output="\n".join(f"row {i}" for i in range(500)), call_id="c"),
    ]
    md = markdown_report({"pattern": "react"}, events)
    assert f"row {TOOL_OUTPUT_LINES - 1}\n… ({500 - TOOL_OUTPUT_LINES} more lines)\n```" in md
    assert f"row {TOOL_OUTPUT_LINES}\n" not in md


# --- safety ---------------------------------------------------------------------------------------


def hostile_events():
    """A run in which every piece of model and tool text tries to inject markup."""
    return [
        ev.RunStarted(pattern="react", task=f"Summarise {SCRIPT}", max_llm_calls=5),
        ev.Thought(t=0.1, step=1, text=f"I will look <img src=x onerror=alert(1)> it up. `{SCRIPT}`"),
        ev.ToolCallEvent(t=0.2, step=1, name=f"evil`{SCRIPT}", arguments={"q": SCRIPT}, call_id="c1"),
        ev.ToolResult(
            t=0.3,
            step=1,
            name=f"evil`{SCRIPT}",
            output=f"```\n{SCRIPT}\n```\n<iframe src=//x>",
            is_error=True,
            call_id="c1",
        ),
        ev.VerdictEvent(t=0.4, step=2, role="judge", verdict="REVISE", feedback=f"Drop the {SCRIPT}"),
        ev.PlanEvent(t=0.45, steps=({"id": 1, "description": f"step | {SCRIPT}", "tool": SCRIPT, "status": "done"},)),
        ev.Draft(t=0.5, step=2, version=0, text=SCRIPT),
        ev.Draft(t=0.6, step=2, version=1, text=f"{SCRIPT}\nmore"),
        ev.LimitReached(t=0.7, step=2, limit="max_rounds", value=1, message=SCRIPT),
        ev.FinalAnswer(
            t=0.8,
            text=f"Here it is:\n```html\n{SCRIPT}\n```\n</div>{SCRIPT}\n"
            f"![tracker](http://example.invalid/p.png) &lt;b&gt; <b>bold</b>\n~~~\n{SCRIPT}",
        ),
        ev.RunFailed(t=0.9, error_type="model_error", message=f"server said {SCRIPT}"),
        ev.RunFinished(t=0.9, reason="error"),
    ]


def test_no_model_text_can_become_html():
    md = markdown_report({"pattern": "react", "criteria": SCRIPT}, hostile_events(), {"actor": SCRIPT})
    prose = outside_code(md)
    assert "<" not in prose and ">" not in prose
    assert "&lt;script&gt;alert('pwned')&lt;/script&gt;" in prose  # still readable once rendered
    assert "&amp;lt;b&amp;gt;" in prose and "!\\[tracker]" in prose
    # inside fences the text stays as the model wrote it
    assert f"````text\n```\n{SCRIPT}\n```\n<iframe src=//x>\n````" in md
    assert f"> ```html\n> {SCRIPT}\n> ```" in md
    # the answer's last fence was never closed: the report closes it so it cannot swallow what follows
    assert f"> ~~~\n> {SCRIPT}\n> ~~~\n\n## Why it ended" in md


def test_tables_keep_their_columns_whatever_the_cells_hold():
    md = markdown_report({"pattern": "react", "odd|key": 1}, hostile_events(), {"a|ctor": "model|x`|`"})
    for block in re.findall(r"(?:^\|.*\|$\n?)+", md, re.MULTILINE):
        widths = {len(re.findall(r"(?<!\\)\|", row)) for row in block.strip().splitlines()}
        assert len(widths) == 1, block


def test_outside_code_would_catch_raw_html():
    assert "<b>" in outside_code("> text <b>bold</b>\n\n```\n<i>fenced</i>\n```\n`<u>` span")
    assert "<i>" not in outside_code("```\n<i>fenced</i>\n```") and "<u>" not in outside_code("`<u>`")


def test_a_key_in_a_tool_output_is_redacted_even_where_the_output_is_cut():
    # the key straddles the point where the tool output is cut short
    output = "x" * (TOOL_OUTPUT_CHARS - 10) + KEY + " and more"
    events = [
        ev.RunStarted(pattern="react", task=f"use {KEY}"),
        ev.ToolCallEvent(t=0.1, step=1, name="search", arguments={"api_key": KEY}, call_id="c"),
        ev.ToolResult(t=0.2, step=1, name="search", output=output, call_id="c"),
        ev.FinalAnswer(t=0.3, text=f"the key is {KEY}"),
        ev.RunFinished(t=0.3),
    ]
    config = {"pattern": "react", "prompts": {"actor": f"key={KEY}"}, "api_key": KEY}
    md = markdown_report(config, events, {"actor": f"gpt-x {KEY}"}, secrets=[KEY, ""])
    assert KEY not in md and KEY[:12] not in md and KEY[-12:] not in md
    assert md.count("[redacted]") >= 5
    assert "api_key" not in md.split("## Task")[0]  # a config entry named like a key is never listed


def test_without_the_secret_the_key_would_have_shown():
    events = [ev.ToolResult(t=0.2, step=1, name="search", output=f"token {KEY}")]
    assert KEY in markdown_report({"pattern": "react"}, events)
    assert KEY not in markdown_report({"pattern": "react"}, events, secrets=(KEY,))


def test_short_strings_are_not_treated_as_secrets():
    events = [ev.FinalAnswer(text="the sky is blue")]
    assert "the sky is blue" in markdown_report({"pattern": "react"}, events, secrets=("sky", "blue"))


def test_a_run_config_object_is_accepted():
    config, events = play("weather-report")
    assert markdown_report(config, events, {"default": "offline-scripted"}) == report(config, events)


@pytest.mark.parametrize("text", ["plain", "`tick` and ``double``", "```\ninner fence\n```", "````"])
def test_fences_are_longer_than_any_backtick_run_inside(text):
    block = fence(text)
    opening = block.split("\n", 1)[0].removesuffix("text")
    assert block.endswith("\n" + opening) and all(len(run) < len(opening) for run in re.findall(r"`+", text))


# --- links and images from model text ---------------------------------------------------------------

HOSTILE_LINKS = (
    "[click](javascript:alert(1)) [a [nested] label](JaVaScRiPt:alert(2)) [d](data:text/html,x) "
    "[spaced] (javascript:alert(3)) [angle](<javascript:alert(4)>) ![img](https://attacker.invalid/i.png) "
    '<a href="javascript:alert(5)">raw</a> [ok](https://example.com/ok) [mail](mailto:a@example.com)\n\n'
    "[ref]: javascript:alert(6)\n[ref2]:\n  javascript:alert(7)\n\n[use][ref] [use2][ref2]"
)


def _hostile_report() -> str:
    events = [
        ev.RunStarted(pattern="react", task=HOSTILE_LINKS),
        ev.Thought(t=0.1, step=1, text=HOSTILE_LINKS),
        ev.VerdictEvent(t=0.2, step=1, role="judge", verdict="REVISE", feedback=HOSTILE_LINKS),
        ev.FinalAnswer(t=0.3, text=HOSTILE_LINKS),
        ev.RunFinished(t=0.3),
    ]
    return markdown_report({"pattern": "react"}, events)


def test_a_report_keeps_only_http_https_and_mailto_links():
    md = _hostile_report()
    assert not re.search(r"(?<!\\)\][ \t]*\((?!https?://|mailto:)", md), "a link to anywhere else is text"
    assert "![img]" not in md
    assert "[ok](https://example.com/ok)" in md and "[mail](mailto:a@example.com)" in md
    assert "\n> [ref]: javascript" not in md and "<a href" not in md


def test_the_report_rendered_by_python_markdown_links_nowhere_else():
    markdown = pytest.importorskip("markdown", reason="Python-Markdown (requirements-dev.txt) renders the report")
    html = markdown.markdown(_hostile_report(), extensions=["tables", "fenced_code"])
    hrefs = re.findall(r"""<a [^>]*href=["']([^"']*)""", html)
    assert hrefs and all(h.startswith(("https://", "http://", "mailto:")) for h in hrefs), hrefs
    assert "<img" not in html and "javascript:alert" not in "".join(hrefs)
    assert "https://example.com/ok" in hrefs
