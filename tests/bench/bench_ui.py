"""Live UI speed, measured in a real browser (Debian chromium under Playwright) on `streamlit run app.py`:

1. Run → first event on screen: from the click on Run to the first step block (the first streamed
   token) in the page, with the offline model at its default speed (60 tok/s, 0.15 s to the first
   token) and instant.
2. Stop → run shown as stopped: from the click on Stop, during an offline run at the default speed,
   to the page showing the run ended (the partial run redrawn, inputs unlocked).
3. Redraw of a finished 300-event run: a ReAct run of ~300 stored events (27 rounds of four tool
   calls, played by the local OpenAI-compatible fake server), redrawn by the rerun any widget change
   causes (a click on a token-budget stepper); from the click to the script run being over and the
   page painted.
4. Token-to-screen lag: the fake server streams a reply at a fixed rate, one numbered word per SSE
   chunk; each word's send time (request arrival + its chunk's scheduled delay) is compared with the
   moment it is painted in the page (same machine, same wall clock).
5. A fork's recorded prefix on screen: the run of figure 3, saved as a trace (played headless
   against the same fake server), opened in Replay by upload and forked at its last call with
   "Let the model answer" (offline model at its default speed); from the click on "Run the fork"
   to the last recorded block painted by the fork, which Replay runs in place of the trace (every
   recorded call's badge and the prefix's last tool result on screen in elements the fork's script
   run drew: the trace's own, left on screen faded until then, do not count). The ~300 events
   before the fork call are served from the record, so this is the renderer's time alone.
6. Resume from a pause: primes (Reflection) in step mode, "before every model call", offline
   instant; at each of its six pauses a click on Step or Continue (see RESUME_MOVES), timed to the
   resume line ("Stepped on" / "Continued", the first event after the click) on screen, to the
   model call's new step block on screen (pauses before a call), and to the next pause's banner.

    python tests/bench/bench_ui.py [--quick] [--only first stop redraw lag fork resume]
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

import agent_core as ac  # noqa: E402
from agent_core import events as ev  # noqa: E402
from agent_core.llm import OpenAICompatibleModel  # noqa: E402
from agent_core.patterns.registry import configure  # noqa: E402
from agent_core.trace import Trace  # noqa: E402
from tests.bench._util import machine, met, table  # noqa: E402
from tests.browser.harness import CHROMIUM, chromium, open_playground, pick, settle, streamlit_app  # noqa: E402
from tests.fake_openai_server import FakeCall, FakeOpenAIServer, Reply  # noqa: E402

FIRST_EVENT_TARGET_S = 1.0
REDRAW_TARGET_S = 1.0
STOP_TARGET_S = 1.0
LAG_TARGET_MS = 250.0
FORK_TARGET_S = 1.0
RESUME_TARGET_S = 0.3
ROUNDS, CALLS_PER_ROUND = 27, 4
LAG_WORDS, LAG_RATE = 150, 30.0  # words (chunks) per reply, chunks per second
FLOW_BLOCK = ".st-key-pg_view-flow [data-testid=stExpander]"

#: ms from clicking `button` (a selector) until `target` is in the page and painted
_CLICK_UNTIL = """
([button, target]) => new Promise(resolve => {
  const observer = new MutationObserver(() => {
    if (document.querySelector(target)) {
      observer.disconnect(); requestAnimationFrame(() => resolve(performance.now() - t0));
    }
  });
  observer.observe(document.body, {childList: true, subtree: true});
  const t0 = performance.now();
  document.querySelector(button).click();
})
"""

_WATCH_RERUN = """
() => {
  window.__redraw = null;
  const app = document.querySelector('[data-testid=stApp]');
  let t0 = null, started = false;
  window.addEventListener('click', () => { t0 = performance.now(); }, {capture: true, once: true});
  const poll = () => {
    const state = app.dataset.testScriptState;
    if (t0 !== null && state === 'running') started = true;
    if (started && state !== 'running') {
      requestAnimationFrame(() => requestAnimationFrame(() => { window.__redraw = performance.now() - t0; }));
      return;
    }
    setTimeout(poll, 2);
  };
  poll();
}
"""

_WATCH_WORDS = """
() => {
  window.__seen = {};
  const flow = () => document.querySelector('.st-key-pg_view-flow');
  const observer = new MutationObserver(() => {
    const root = flow();
    if (!root) return;
    const found = root.textContent.match(/w\\d{3}/g) || [];
    const fresh = found.filter(w => !(w in window.__seen));
    if (!fresh.length) return;
    fresh.forEach(w => { window.__seen[w] = -1; });
    requestAnimationFrame(() => {
      const now = performance.timeOrigin + performance.now();
      fresh.forEach(w => { window.__seen[w] = now; });
    });
  });
  observer.observe(document.body, {childList: true, subtree: true, characterData: true});
}
"""


def set_speed(page, first: bool) -> None:  # noqa: ANN001
    """The offline speed slider: Home = instant, else the default (watchable) is kept."""
    if first:
        page.locator(".st-key-sb_offline_speed input[type=range]").press("Home")
        settle(page)


def first_event(browser, url: str, instant: bool, repeats: int) -> list[float]:  # noqa: ANN001
    times = []
    for _ in range(repeats):
        context = browser.new_context(viewport={"width": 1440, "height": 1000})
        page = context.new_page()
        open_playground(page, url)
        set_speed(page, instant)
        times.append(page.evaluate(_CLICK_UNTIL, [".st-key-pg_run button", FLOW_BLOCK]) / 1000)
        settle(page, timeout=120_000)
        context.close()
    return times


def stop_time(browser, url: str, repeats: int) -> list[float]:  # noqa: ANN001
    times = []
    for _ in range(repeats):
        context = browser.new_context(viewport={"width": 1440, "height": 1000})
        page = context.new_page()
        open_playground(page, url)
        page.locator(".st-key-pg_run button").click()
        page.locator(FLOW_BLOCK).nth(1).wait_for()  # the second round is under way
        times.append(page.evaluate(_CLICK_UNTIL, [".st-key-pg_stop button", ".st-key-pg_view-end-stop"]) / 1000)
        context.close()
    return times


def long_run_reply(request) -> Reply:  # noqa: ANN001
    """Four distinct tool calls per round with an unrepeated thought, then (tools off) the answer."""
    body = request.body
    if not body.get("tools"):
        return Reply("All lookups are done; the report is complete.", chunks=4)
    rounds = sum(1 for m in body["messages"] if m["role"] == "assistant")
    words = " ".join(f"{w}{rounds}" for w in ("city", "batch", "probe", "sweep"))
    calls = tuple(FakeCall("weather", json.dumps({"city": f"Town-{rounds}-{i}"})) for i in range(CALLS_PER_ROUND))
    return Reply(f"Round {rounds}: {words} next.", tool_calls=calls, chunks=3)


def long_run(page, url: str) -> None:  # noqa: ANN001
    """Run the ~300-event ReAct survey (the fake server must answer with `long_run_reply`) to its end."""
    open_playground(page, url)
    pick(page, "pg_variant", "ReAct")
    pick(page, "pg_scenario", "Free task — type your own")
    page.locator(".st-key-pg_free_task textarea").fill("Survey the weather of many towns.")
    page.locator(".st-key-pg_free_task textarea").press("Control+Enter")
    settle(page)
    page.locator(".st-key-pg_tools").click()
    page.get_by_role("option", name="weather", exact=True).click()
    page.keyboard.press("Escape")
    settle(page)
    rounds = page.locator(".st-key-pg_limit_max_rounds input")
    rounds.fill(str(ROUNDS))
    rounds.press("Enter")
    settle(page)
    page.locator(".st-key-pg_run button").click()
    page.locator(".st-key-pg_view-final").wait_for(timeout=300_000)
    settle(page, timeout=120_000)


def redraw(browser, url: str, fake: FakeOpenAIServer, repeats: int) -> tuple[int, list[float]]:  # noqa: ANN001
    fake.default = long_run_reply
    context = browser.new_context(viewport={"width": 1440, "height": 1000})
    page = context.new_page()
    long_run(page, url)
    events = page.evaluate("() => document.querySelectorAll('.st-key-pg_view-flow [data-testid=stExpander]').length")
    times = []
    budget = ".st-key-pg_limit_max_total_tokens [data-testid=stNumberInputStep{}]"
    for i in range(repeats):
        page.evaluate(_WATCH_RERUN)
        # any widget change reruns the page, which redraws the finished run from storage
        page.locator(budget.format("Down" if i % 2 else "Up")).click()
        page.wait_for_function("() => window.__redraw !== null", timeout=60_000)
        times.append(page.evaluate("() => window.__redraw") / 1000)
        settle(page)
    stored = _stored_events(page)
    context.close()
    return stored or events, times


def _stored_events(page) -> int:  # noqa: ANN001
    """The run's stored event count, from its downloaded trace (tokens are not in traces: add one per call)."""
    with page.expect_download() as info:
        page.locator(".st-key-pg_dl-trace button").click()
    trace = json.loads(Path(info.value.path()).read_text())
    calls = sum(1 for e in trace["events"] if e["kind"] == "llm_call")
    return len(trace["events"]) + calls


def token_lag(browser, url: str, fake: FakeOpenAIServer) -> list[float]:  # noqa: ANN001
    delay = 1 / LAG_RATE
    text = "".join(f"w{k:03d} " for k in range(LAG_WORDS))
    arrivals: list[float] = []

    def stream(request) -> Reply:  # noqa: ANN001
        arrivals.append(time.time())
        return Reply(text, chunks=LAG_WORDS, chunk_delay=delay)

    fake.default = stream
    context = browser.new_context(viewport={"width": 1440, "height": 1000})
    page = context.new_page()
    open_playground(page, url)
    pick(page, "pg_variant", "ReAct")
    pick(page, "pg_scenario", "Free task — type your own")
    page.locator(".st-key-pg_free_task textarea").fill("Count to one hundred and fifty.")
    page.locator(".st-key-pg_free_task textarea").press("Control+Enter")
    settle(page)
    page.evaluate(_WATCH_WORDS)
    page.locator(".st-key-pg_run button").click()
    page.locator(".st-key-pg_view-final").wait_for(timeout=120_000)
    seen = page.evaluate("() => window.__seen")
    context.close()
    start = arrivals[-1]
    # content chunk k is SSE event k + 1; the server sleeps `delay` before every event after the first
    lags = [
        (seen[f"w{k:03d}"] / 1000 - (start + (k + 1) * delay)) * 1000
        for k in range(LAG_WORDS)
        if seen.get(f"w{k:03d}", -1) > 0
    ]
    return lags


#: [ms to the first recorded call, ms to the whole recorded prefix] from clicking "Run the fork": every
#: recorded call's "recorded" badge visible and the prefix's last tool result (`marker`) in the run
#: area, in elements the fork's script run drew (not data-stale: the trace's own blocks stay on screen,
#: faded, until the fork's are drawn in their place), checked once per animation frame after a change,
#: so the check itself stays off the clock.
_FORK_PREFIX = """
([marker, calls]) => new Promise(resolve => {
  const editor = document.querySelector('.st-key-fork_editor');
  const button = [...editor.querySelectorAll('[class*=st-key-fork_run_] button')].find(b => b.checkVisibility());
  const fresh = e => !e.closest('[data-stale=true]');
  let first = null, queued = false;
  const done = () => {
    const flow = document.querySelector('.st-key-rp_view-flow');
    if (!flow) return false;
    const badges = [...flow.querySelectorAll('.stMarkdownBadge')]
      .filter(b => b.textContent.trim().endsWith('recorded') && b.checkVisibility() && fresh(b));
    if (first === null && badges.length) first = performance.now() - t0;
    return badges.length >= calls && [...flow.querySelectorAll('[data-testid=stElementContainer]')]
      .some(e => fresh(e) && e.textContent.includes(marker));
  };
  const observer = new MutationObserver(() => {
    if (queued) return;
    queued = true;
    requestAnimationFrame(() => {
      queued = false;
      if (done()) { observer.disconnect(); resolve([first, performance.now() - t0]); }
    });
  });
  observer.observe(document.body, {childList: true, subtree: true, characterData: true, attributes: true});
  const t0 = performance.now();
  button.click();
})
"""


def long_trace(fake: FakeOpenAIServer, folder: Path) -> tuple[Path, int, int, str]:
    """The redraw benchmark's ReAct run, played headless against the fake server and saved as a
    trace: its path, its number of calls, the events of its recorded prefix when forked at the last
    call (counted as a stored run holds them: one merged token event per call), and the prefix's
    last tool result."""
    fake.default = long_run_reply
    model = OpenAICompatibleModel(fake.url, "fake-model", api_key="unused")
    config = configure(pattern="react", tools=("weather",), max_rounds=ROUNDS)
    events = list(ac.stream("Survey the weather of many towns.", config, model))
    path = folder / "long-react.json"
    path.write_text(Trace.of(config.to_dict(), events, {"default": model.name}).dumps(), encoding="utf-8")
    calls = [e for e in events if isinstance(e, ev.LlmCall)]
    prefix = [e for e in events[: events.index(calls[-1])] if not isinstance(e, ev.Token)]
    last_result = [e for e in prefix if isinstance(e, ev.ToolResult)][-1].output
    return path, len(calls), len(prefix) + len(calls) - 1, last_result


def fork_prefix(
    browser,
    url: str,
    trace: Path,
    at: int,
    marker: str,  # noqa: ANN001
    repeats: int,
) -> list[tuple[float, float]]:
    """(s to the first block, s to the whole recorded prefix) per repeat, each in a fresh session."""
    times = []
    for _ in range(repeats):
        context = browser.new_context(viewport={"width": 1440, "height": 1000})
        page = context.new_page()
        page.set_default_timeout(120_000)
        page.goto(f"{url}/replay")
        page.locator(".st-key-rp_play button").first.wait_for()
        settle(page)
        page.locator(".st-key-rp_source button", has_text="A trace file").click()
        settle(page)
        page.locator(".st-key-rp_upload input[type=file]").set_input_files(str(trace))
        page.locator(f".st-key-rp_view-fork-{at} button:visible").click()
        editor = page.locator(".st-key-fork_editor")
        editor.get_by_text("Let the model answer").click()
        editor.locator("[class*=st-key-fork_reply_]").wait_for(state="detached")
        settle(page)
        first, whole = page.evaluate(_FORK_PREFIX, [marker, at - 1])
        page.locator(".st-key-rp_fork_back").wait_for()  # the fork has ended
        settle(page, timeout=120_000)
        context.close()
        times.append((first / 1000, whole / 1000))
    return times


#: [ms to the resume line, ms to a new step block or null, ms to the next pause's banner or the final
#: answer] from clicking `button` at a step-mode pause; checked once per animation frame after a change.
_RESUME = """
([button, headline]) => new Promise(resolve => {
  const flow = () => document.querySelector('.st-key-pg_view-flow');
  const resumes = () => [...(flow()?.querySelectorAll('[data-testid=stCaptionContainer]') || [])]
    .filter(c => /(Stepped on|Continued)\\s*$/.test(c.textContent)).length;
  const blocks = () => flow()?.querySelectorAll('[data-testid=stExpander]').length || 0;
  const paused = () => {
    const h = document.querySelector('.st-key-pg_pause h3');
    return (h && h.textContent !== headline) || document.querySelector('.st-key-pg_view-final');
  };
  const before = [resumes(), blocks()];
  let line = null, block = null, queued = false;
  const look = () => {
    const now = performance.now() - t0;
    if (line === null && resumes() > before[0]) line = now;
    if (block === null && blocks() > before[1]) block = now;
    if (line !== null && paused()) { observer.disconnect(); resolve([line, block, now]); }
  };
  const observer = new MutationObserver(() => {
    if (queued) return;
    queued = true;
    requestAnimationFrame(() => { queued = false; look(); });
  });
  observer.observe(document.body, {childList: true, subtree: true, characterData: true});
  const t0 = performance.now();
  document.querySelector(button).click();
})
"""

#: at each of the six pauses of primes with "before every model call", Step or Continue: both
#: buttons on a model call (pauses 1, 2, 4, 5) and Step at the two verdicts (3, 6); same pauses
#: follow either way, since Continue from the critic skips only the verdict pause Step would make
RESUME_MOVES = ("continue", "step", "step", "continue", "step", "step")


def resume_times(browser, url: str, repeats: int) -> dict[str, list[float]]:  # noqa: ANN001
    """Seconds from a click on Step or Continue to: the resume line ("line"), the model call's new
    step block ("block", pauses before a call only) and the next pause ready ("next")."""
    times: dict[str, list[float]] = {"line": [], "block": [], "next": []}
    for _ in range(repeats):
        context = browser.new_context(viewport={"width": 1440, "height": 1000})
        page = context.new_page()
        page.set_default_timeout(60_000)
        open_playground(page, url)
        set_speed(page, True)
        pick(page, "pg_variant", "Reflection")
        page.locator(".st-key-pg_step label").click()
        settle(page)
        page.locator(".st-key-pg_step_breaks").get_by_text("before every model call").wait_for()
        page.locator(".st-key-pg_run button").click()
        for move in RESUME_MOVES:
            page.locator(".st-key-pg_pause h3").wait_for()
            settle(page)
            headline = page.locator(".st-key-pg_pause h3").text_content()
            before_call = "about to" in headline
            if move == "continue" and not before_call:
                raise RuntimeError(f"expected a pause before a call, got {headline!r}")
            line, block, ready = page.evaluate(_RESUME, [f".st-key-pg_step_{move} button", headline])
            times["line"].append(line / 1000)
            times["next"].append(ready / 1000)
            if before_call:
                if block is None:
                    raise RuntimeError(f"no new step block after {move} at {headline!r}")
                times["block"].append(block / 1000)
        page.locator(".st-key-pg_view-end-pass").wait_for()
        settle(page)
        context.close()
    return times


def fmt(seconds: float) -> str:
    return f"{seconds * 1000:,.0f} ms"


FIGURES = ("first", "stop", "redraw", "lag", "fork", "resume")


def spread(values: list[float]) -> str:
    return f"{fmt(statistics.median(values))} (range {fmt(min(values))}–{fmt(max(values))})"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer repeats")
    parser.add_argument(
        "--only",
        nargs="+",
        choices=FIGURES,
        default=FIGURES,
        metavar="FIGURE",
        help=f"measure only these figures, of: {' '.join(FIGURES)}",
    )
    args = parser.parse_args()
    if not CHROMIUM.exists():
        print(f"Skipped: {CHROMIUM} is missing (apt-get install -y chromium).")
        return 0
    repeats = 3 if args.quick else 7
    only = set(args.only)
    rows = []

    with FakeOpenAIServer() as fake, chromium() as browser, tempfile.TemporaryDirectory() as folder:
        if only & {"first", "stop", "fork", "resume"}:
            with streamlit_app(log_name="bench-offline.log") as offline_url:
                if "first" in only:
                    watchable = first_event(browser, offline_url, instant=False, repeats=repeats)
                    instant = first_event(browser, offline_url, instant=True, repeats=repeats)
                    rows += [
                        (
                            "Run → first event on screen, offline at 60 tok/s (0.15 s to first token)",
                            f"≤ {FIRST_EVENT_TARGET_S:g} s",
                            f"{fmt(statistics.median(watchable))} (max {fmt(max(watchable))})",
                            met(statistics.median(watchable) <= FIRST_EVENT_TARGET_S),
                        ),
                        (
                            "Run → first event on screen, offline instant",
                            f"≤ {FIRST_EVENT_TARGET_S:g} s",
                            f"{fmt(statistics.median(instant))} (max {fmt(max(instant))})",
                            met(statistics.median(instant) <= FIRST_EVENT_TARGET_S),
                        ),
                    ]
                if "stop" in only:
                    stops = stop_time(browser, offline_url, repeats)
                    rows.append(
                        (
                            "Stop → run shown as stopped, offline run at 60 tok/s",
                            f"≤ {STOP_TARGET_S:g} s",
                            f"{fmt(statistics.median(stops))} (max {fmt(max(stops))})",
                            met(statistics.median(stops) <= STOP_TARGET_S),
                        )
                    )
                if "fork" in only:
                    trace, at, prefix, marker = long_trace(fake, Path(folder))
                    forks = fork_prefix(browser, offline_url, trace, at, marker, repeats)
                    whole, first = [w for _, w in forks], [f for f, _ in forks]
                    rows.append(
                        (
                            f"A fork's recorded prefix on screen: {prefix} events ({at - 1} calls), forked at "
                            f"call {at} in Replay (Run the fork → last recorded block painted; first in "
                            f"{fmt(statistics.median(first))})",
                            f"≤ {FORK_TARGET_S:g} s",
                            spread(whole),
                            met(statistics.median(whole) <= FORK_TARGET_S),
                        )
                    )
                if "resume" in only:
                    resumed = resume_times(browser, offline_url, repeats)
                    rows += [
                        (
                            f"Step/Continue → the next event on screen (its resume line), step mode, offline instant "
                            f"({len(resumed['line'])} clicks)",
                            f"≤ {RESUME_TARGET_S * 1000:g} ms",
                            spread(resumed["line"]),
                            met(statistics.median(resumed["line"]) <= RESUME_TARGET_S),
                        ),
                        (
                            f"Step/Continue before a call → that call's step block on screen, offline instant "
                            f"({len(resumed['block'])} clicks)",
                            f"≤ {RESUME_TARGET_S * 1000:g} ms",
                            spread(resumed["block"]),
                            met(statistics.median(resumed["block"]) <= RESUME_TARGET_S),
                        ),
                        (
                            f"Step/Continue → the next pause's banner (or the final answer) on screen "
                            f"({len(resumed['next'])} clicks)",
                            "—",
                            spread(resumed["next"]),
                            "—",
                        ),
                    ]
        if only & {"redraw", "lag"}:
            with streamlit_app(
                {"OPENAI_BASE_URL": fake.url, "OPENAI_MODEL": "fake-model"}, log_name="bench-online.log"
            ) as online_url:
                if "redraw" in only:
                    stored, redraws = redraw(browser, online_url, fake, repeats)
                    rows.append(
                        (
                            f"Redraw of a finished run of {stored} stored events",
                            f"≤ {REDRAW_TARGET_S:g} s",
                            f"{fmt(statistics.median(redraws))} (max {fmt(max(redraws))})",
                            met(statistics.median(redraws) <= REDRAW_TARGET_S),
                        )
                    )
                if "lag" in only:
                    lags = token_lag(browser, online_url, fake)
                    lag_median = statistics.median(lags)
                    lag_p95 = sorted(lags)[int(0.95 * (len(lags) - 1))]
                    rows.append(
                        (
                            f"Token-to-screen lag, {LAG_RATE:g} chunks/s from the local fake server "
                            f"({len(lags)} words)",
                            f"median ≤ {LAG_TARGET_MS:g} ms",
                            f"median {lag_median:,.0f} ms, p95 {lag_p95:,.0f} ms, max {max(lags):,.0f} ms",
                            met(lag_median <= LAG_TARGET_MS),
                        )
                    )

    print(
        machine() + f" Chromium headless; medians of {repeats} (first event, Stop, redraw and fork; "
        f"resume: every click of {repeats} stepped runs)."
    )
    print()
    print(table(("figure", "target", "measured", "met"), rows))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
