"""How the Playground's run area behaves from a live run to its finished redraw, frame by frame.

    python3 tests/bench/bench_handover.py [--runs 4] [--root PATH]

Serves the app at `--root` (default: this checkout; give an older checkout, e.g. from `git archive`,
to measure side by side), opens it in Debian's chromium at 1280×720, and runs ReAct and Reflection
`--runs` times each at the default (watchable) offline speed. A requestAnimationFrame loop in the
page records the run area's height, the page's scroll height and its scroll position. Per run:

- dip: how far the run area fell below both the live and the redrawn run at the end of the run
  (0 = no blink; the old blink emptied the area);
- jump: how far the page's scroll position fell at the end of the run, the page scrolled to the
  bottom while the run streamed;
- jitter: the largest single-frame fall of the page's height while the run streamed.

Prints every run and the median and range of each figure.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from tests.browser import harness  # noqa: E402

SAMPLER = r"""() => {
  window.__frames = []; window.__stopFrames = false;
  const main = document.querySelector('[data-testid=stMain]');
  const liveMark = () => [...document.querySelectorAll('.apg-follow[data-live="1"]')]
    .some(m => !m.closest('[data-stale=true]'));
  const tick = () => {
    const area = document.querySelector('.st-key-pg_run_area');
    const stop = document.querySelector('.st-key-pg_stop button');
    window.__frames.push([area ? area.getBoundingClientRect().height : -1, main.scrollHeight, main.scrollTop,
                          liveMark() || (stop !== null && !stop.disabled)]);
    if (!window.__stopFrames) requestAnimationFrame(tick);
  };
  requestAnimationFrame(tick);
}"""
BOTTOM = "() => { const m = document.querySelector('[data-testid=stMain]'); m.scrollTop = m.scrollHeight; }"


def one_run(page) -> tuple[float, float, float]:  # noqa: ANN001
    """Run once, following the page to its bottom; (dip, jump, jitter) in px."""
    page.locator(".st-key-pg_run button").click()
    page.locator(".st-key-pg_stop button:not([disabled])").wait_for()
    page.evaluate(SAMPLER)
    while True:  # a reader at the bottom of the page, as the run streams
        page.evaluate(BOTTOM)
        if page.locator(".st-key-pg_run button").is_enabled():
            break
        time.sleep(0.15)
    harness.settle(page)
    time.sleep(1.0)
    page.evaluate("() => { window.__stopFrames = true; }")
    frames = page.evaluate("() => window.__frames")
    last = max(i for i, f in enumerate(frames) if f[3])
    live, after = frames[: last + 1], frames[last:]
    floor = min(after[0][0], after[-1][0])
    dip = max(0.0, floor - min(f[0] for f in after))
    jump = max(0.0, after[0][2] - min(f[2] for f in after))
    jitter = max([0.0] + [a[1] - b[1] for a, b in zip(live, live[1:], strict=False)])
    return dip, jump, jitter


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=4)
    parser.add_argument("--root", type=Path, default=harness.ROOT)
    args = parser.parse_args()
    harness.ROOT = args.root.resolve()  # the checkout to serve
    results: dict[str, list[tuple[float, float, float]]] = {}
    with harness.streamlit_app(log_name="bench-handover.log") as url, harness.chromium() as browser:
        for variant in ("ReAct", "Reflection"):
            context = browser.new_context(viewport={"width": 1280, "height": 720})
            page = context.new_page()
            page.set_default_timeout(60_000)
            harness.open_playground(page, url)
            harness.pick(page, "pg_variant", variant)
            for n in range(args.runs):
                figures = one_run(page)
                results.setdefault(variant, []).append(figures)
                print(
                    f"{variant} run {n + 1}: dip {figures[0]:.0f} px · jump {figures[1]:.0f} px · "
                    f"jitter {figures[2]:.0f} px",
                    flush=True,
                )
            context.close()
    for variant, rows in results.items():
        for i, name in enumerate(("dip", "jump", "jitter")):
            values = [r[i] for r in rows]
            print(
                f"{variant} {name}: median {statistics.median(values):.0f} px "
                f"(range {min(values):.0f}-{max(values):.0f}, {len(values)} runs)"
            )


if __name__ == "__main__":
    main()
