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

    python tests/bench/bench_ui.py [--quick]
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from tests.bench._util import machine, met, table  # noqa: E402
from tests.browser.harness import CHROMIUM, chromium, open_playground, pick, settle, streamlit_app  # noqa: E402
from tests.fake_openai_server import FakeCall, FakeOpenAIServer, Reply  # noqa: E402

FIRST_EVENT_TARGET_S = 1.0
REDRAW_TARGET_S = 1.0
STOP_TARGET_S = 1.0
LAG_TARGET_MS = 250.0
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
    lags = [(seen[f"w{k:03d}"] / 1000 - (start + (k + 1) * delay)) * 1000
            for k in range(LAG_WORDS) if seen.get(f"w{k:03d}", -1) > 0]
    return lags


def fmt(seconds: float) -> str:
    return f"{seconds * 1000:,.0f} ms"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer repeats")
    args = parser.parse_args()
    if not CHROMIUM.exists():
        print(f"Skipped: {CHROMIUM} is missing (apt-get install -y chromium).")
        return 0
    repeats = 3 if args.quick else 7

    with FakeOpenAIServer() as fake, chromium() as browser:
        with streamlit_app(log_name="bench-offline.log") as offline_url:
            watchable = first_event(browser, offline_url, instant=False, repeats=repeats)
            instant = first_event(browser, offline_url, instant=True, repeats=repeats)
            stops = stop_time(browser, offline_url, repeats)
        with streamlit_app({"OPENAI_BASE_URL": fake.url, "OPENAI_MODEL": "fake-model"},
                           log_name="bench-online.log") as online_url:
            stored, redraws = redraw(browser, online_url, fake, repeats)
            lags = token_lag(browser, online_url, fake)

    lag_median = statistics.median(lags)
    lag_p95 = sorted(lags)[int(0.95 * (len(lags) - 1))]
    rows = [
        ("Run → first event on screen, offline at 60 tok/s (0.15 s to first token)",
         f"≤ {FIRST_EVENT_TARGET_S:g} s", f"{fmt(statistics.median(watchable))} (max {fmt(max(watchable))})",
         met(statistics.median(watchable) <= FIRST_EVENT_TARGET_S)),
        ("Run → first event on screen, offline instant", f"≤ {FIRST_EVENT_TARGET_S:g} s",
         f"{fmt(statistics.median(instant))} (max {fmt(max(instant))})",
         met(statistics.median(instant) <= FIRST_EVENT_TARGET_S)),
        ("Stop → run shown as stopped, offline run at 60 tok/s", f"≤ {STOP_TARGET_S:g} s",
         f"{fmt(statistics.median(stops))} (max {fmt(max(stops))})", met(statistics.median(stops) <= STOP_TARGET_S)),
        (f"Redraw of a finished run of {stored} stored events", f"≤ {REDRAW_TARGET_S:g} s",
         f"{fmt(statistics.median(redraws))} (max {fmt(max(redraws))})",
         met(statistics.median(redraws) <= REDRAW_TARGET_S)),
        (f"Token-to-screen lag, {LAG_RATE:g} chunks/s from the local fake server ({len(lags)} words)",
         f"median ≤ {LAG_TARGET_MS:g} ms", f"median {lag_median:,.0f} ms, p95 {lag_p95:,.0f} ms, "
         f"max {max(lags):,.0f} ms", met(lag_median <= LAG_TARGET_MS)),
    ]
    print(machine() + f" Chromium headless; medians of {repeats} (first event, Stop and redraw).")
    print()
    print(table(("figure", "target", "measured", "met"), rows))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
