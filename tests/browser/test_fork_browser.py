"""The fork story in a real browser: open order 99999 in Replay, fork it at the Reflector's
REPLAN (call 4) with a PASS written by hand, and run it on the offline model at its slowest speed.
Replay runs the fork in place of the trace: the recorded prefix (calls 1-3, marked "recorded") is
there at once, the live calls stream in after it, the answer now passes the "syncing" shell through,
and Compare shows the original beside the fork with the answers' diff.

How fast the prefix lands is a benchmark figure (tests/bench/bench_ui.py), not a timed test; here
the order of what the page shows is asserted. Screenshots go to test-artifacts/.
"""

from __future__ import annotations

import json
import re

from playwright.sync_api import expect

from agent_core import examples
from tests.browser.harness import ARTIFACTS, settle, shot, verdicts_in_order

PASS = '{"verdict": "PASS", "analysis": "ok", "suggestion": ""}'
RECORDED = 3  # planner, executor, executor: the calls before the Reflector's REPLAN
FLOW, FINAL = ".st-key-rp_view-flow", ".st-key-rp_view-final"
EDITOR = ".st-key-fork_editor"

#: A timeline of what Replay's run area shows, one entry per painted change: how many "recorded"
#: badges and step blocks are visible (counting only what the current script run has drawn: the
#: trace's own blocks stay on screen, faded, until the fork's are drawn in their place), and
#: whether the fork's final answer is there.
_WATCH = """
() => {
  window.__fork = [];
  const t0 = performance.now();
  const shown = e => e.checkVisibility();
  const snap = () => {
    const flow = document.querySelector('.st-key-rp_view-flow');
    const fresh = e => shown(e) && !e.closest('[data-stale=true]');
    const all = sel => flow ? [...flow.querySelectorAll(sel)].filter(fresh) : [];
    const final = document.querySelector('.st-key-rp_view-final');
    return {page: location.pathname,
            recorded: all('.stMarkdownBadge').filter(e => e.textContent.trim().endsWith('recorded')).length,
            blocks: all('[data-testid=stExpander]').length,
            final: !!final && fresh(final) && !!document.querySelector('.st-key-rp_fork_head')};
  };
  let last = '', queued = false;
  new MutationObserver(() => {
    if (queued) return;
    queued = true;
    requestAnimationFrame(() => {
      queued = false;
      const s = snap(), k = JSON.stringify(s);
      if (k !== last) { last = k; window.__fork.push({...s, t: (performance.now() - t0) / 1000}); }
    });
  }).observe(document.body, {childList: true, subtree: true, characterData: true});
}
"""


def parent_trace() -> dict:
    return json.loads(examples.path_of("order-99999", "en").read_text(encoding="utf-8"))


def answer_in(final) -> str:  # noqa: ANN001 - playwright Locator
    """The text of a run's final answer box, without its heading."""
    return final.inner_text().strip().removeprefix("Final answer").strip()


def popover(page, call: int, which: int):  # noqa: ANN001, ANN201 - playwright Page, Locator
    """Open call `call`'s Prompt (which=0) or Reply (which=1) popover of the finished fork; its body."""
    row = page.locator(f"{FLOW} [data-testid=stHorizontalBlock]:has(> .st-key-rp_view-fork-{call})")
    row.locator("[data-testid=stPopover]").nth(which).locator("button:visible").first.click()
    body = page.locator("[data-testid=stPopoverBody]")
    expect(body).to_be_visible()
    return body


def test_order_99999_forked_at_the_replan_with_a_pass_lets_the_syncing_shell_through(page, app_url):
    parent = parent_trace()
    page.goto(f"{app_url}/replay")
    page.locator(".st-key-rp_play button").first.wait_for(timeout=30_000)
    settle(page)
    expect(page.locator(".st-key-rp_card")).to_contain_text("Order 99999")  # the first visit opens it
    original = answer_in(page.locator(".st-key-rp_view-final"))
    assert "99999" in original and "syncing" not in original
    # the slowest offline speed, so the live calls after the fork visibly stream (as Compare's Stop test does)
    page.locator(".st-key-sb_offline_speed input[type=range]").press("End")
    settle(page)
    expect(page.locator(".st-key-sb_offline_speed")).to_contain_text("Slow")

    page.locator(".st-key-rp_view-fork-4 button:visible").click()
    editor = page.locator(EDITOR)
    expect(editor).to_contain_text("Fork at call 4 · reflector")
    reply = editor.locator("[class*=st-key-fork_reply_] textarea")
    expect(reply).to_have_value(re.compile(r'"verdict": "REPLAN"'))  # pre-filled with the recorded reply
    reply.fill(PASS)
    reply.press("Control+Enter")
    expect(editor).to_contain_text("The pattern reads this as PASS.")
    settle(page)
    shot(page, "fork-0-editor")

    page.evaluate(_WATCH)
    editor.locator("[class*=st-key-fork_run_] button:visible").click()
    expect(page.locator(".st-key-rp_fork_back")).to_be_visible(timeout=60_000)  # the fork has ended
    settle(page)
    timeline = page.evaluate("() => window.__fork")
    seen = "\n".join(str(s) for s in timeline)

    # the fork ran on Replay, in place of the trace, and the prefix came before the live calls had finished
    assert page.url.endswith("/replay") and page.locator(".st-key-rp_play").count() == 0
    prefix = next((s for s in timeline if s["recorded"] == RECORDED), None)
    assert prefix is not None, f"the {RECORDED} recorded calls were never on screen together:\n{seen}"
    assert prefix["page"] == "/replay" and not prefix["final"], seen
    assert max(s["recorded"] for s in timeline) == RECORDED, f"only calls 1-{RECORDED} are recorded:\n{seen}"
    # the rest streamed: blocks were added after the prefix, each while the answer was still to come
    later = [s for s in timeline if s["t"] > prefix["t"]]
    grew = sorted({s["blocks"] for s in later if not s["final"] and s["blocks"] > prefix["blocks"]})
    assert grew, f"no step block arrived between the recorded prefix and the answer:\n{seen}"
    answered = next(s for s in later if s["final"])
    # the live calls are paced at 20 tok/s, so they cannot end within a second of the prefix: a lower bound
    assert answered["t"] - prefix["t"] >= 1.0, seen

    answer = answer_in(page.locator(FINAL))
    assert answer != original and "syncing" in answer
    verdicts = verdicts_in_order(page, "rp_view")
    assert verdicts[0] == "PASS" and "REPLAN" not in verdicts
    expect(page.locator(".st-key-rp_fork_head")).to_contain_text(f"Forked from run {parent['run_id']} at call 4")
    expect(page.locator(".st-key-rp_view-end-pass")).to_be_visible()
    shot(page, "fork-1-finished")

    # call 4's record: the Prompt the Reflector was sent, and the reply the person wrote
    body = popover(page, 4, 0)
    # Plan-and-Execute sends its roles one user message each (no system message): role and template shown
    expect(body).to_contain_text("user · template reflector")
    expect(body).to_contain_text("highlighted: the values filled into {goal}, {observations}, {result}, {step}")
    expect(body).to_contain_text("## User's original request\nHas my order 99999 arrived yet?")
    expect(body).to_contain_text("Reply with exactly one JSON object")
    page.screenshot(path=str(ARTIFACTS / "fork-2-prompt.png"))
    page.keyboard.press("Escape")
    expect(body).to_be_hidden()
    body = popover(page, 4, 1)
    expect(body).to_contain_text("written by a person")
    expect(body).to_contain_text('"verdict": "PASS"')
    page.keyboard.press("Escape")

    page.locator(".st-key-rp_fork_compare button:visible").click()
    expect(page.get_by_text("Original vs fork")).to_be_visible()
    settle(page)
    assert page.url.endswith("/compare")
    main = page.locator("[data-testid=stMain]")
    expect(main).to_contain_text("The answers, original → fork")
    diff = main.locator("[data-testid=stCode]", has_text=f"+{answer}")
    expect(diff).to_contain_text(f"-{original}")
    expect(page.locator("[class*='st-key-cmp_pair_0-verdict-'][class*='-REPLAN']")).to_be_visible()
    expect(page.locator("[class*='st-key-cmp_pair_1-verdict-'][class*='-PASS']").first).to_be_visible()
    assert page.locator("[class*='st-key-cmp_pair_1-verdict-'][class*='-REPLAN']").count() == 0
    shot(page, "fork-3-compare")

    # back on Replay the fork is still there, until "Back to the trace" brings the player back
    page.locator("[data-testid=stSidebarNav] a", has_text="Replay").click()
    expect(page.locator(".st-key-rp_fork_head")).to_contain_text(f"Forked from run {parent['run_id']} at call 4")
    page.locator(".st-key-rp_fork_back button:visible").click()
    expect(page.locator(".st-key-rp_play button").first).to_be_visible()
    settle(page)  # the fork's drawing stays on screen, stale, until the trace's replaces it
    expect(page.locator(FINAL)).to_contain_text(original)  # the trace itself, as it was
    assert answer_in(page.locator(FINAL)) == original


def test_stop_ends_a_replay_fork_midway_and_keeps_what_it_made(page, app_url):
    page.goto(f"{app_url}/replay")
    page.locator(".st-key-rp_play button").first.wait_for(timeout=30_000)
    settle(page)
    page.locator(".st-key-sb_offline_speed input[type=range]").press("End")  # slow: there is time to stop
    settle(page)
    page.locator(".st-key-rp_view-fork-4 button:visible").click()
    editor = page.locator(EDITOR)
    editor.get_by_text("Let the model answer").click()
    settle(page)
    editor.locator("[class*=st-key-fork_run_] button:visible").click()
    stop = page.locator(".st-key-rp_fork_stop button")
    expect(stop).to_be_visible()
    expect(page.locator(FLOW).get_by_text("recorded").first).to_be_visible()
    stop.click()
    expect(page.locator(".st-key-rp_view-end-stop")).to_contain_text("stopped")
    expect(page.locator(".st-key-rp_fork_back")).to_be_visible()  # ended: the finished fork's buttons
    settle(page)
    assert page.locator(FINAL).count() == 0, "stopped before its answer"
    assert page.locator(f"{FLOW} .stMarkdownBadge:visible", has_text="recorded").count() == RECORDED, (
        "the prefix is kept"
    )
