"""Server memory per session holding a finished ~300-event run.

One `streamlit run app.py` pointed at the local fake OpenAI-compatible server; N browser contexts
(each its own Streamlit session) run the ~300-event ReAct survey of bench_ui.py one after another and
stay open holding their finished run. The server's RSS is read after each; the growth per session is
the slope.

    python tests/bench/bench_memory.py [--sessions 6]
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from tests.bench.bench_load import rss_mb  # noqa: E402
from tests.bench.bench_ui import _stored_events, long_run, long_run_reply  # noqa: E402
from tests.browser.harness import CHROMIUM, chromium, server_pid, streamlit_app  # noqa: E402
from tests.fake_openai_server import FakeOpenAIServer  # noqa: E402


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sessions", type=int, default=6)
    sessions = parser.parse_args().sessions
    if not CHROMIUM.exists():
        print(f"Skipped: {CHROMIUM} is missing (apt-get install -y chromium).")
        return 0
    with (
        FakeOpenAIServer(default=long_run_reply) as fake,
        chromium() as browser,
        streamlit_app({"OPENAI_BASE_URL": fake.url, "OPENAI_MODEL": "fake-model"}, log_name="bench-memory.log") as url,
    ):
        pid = server_pid(url)
        warm = browser.new_context()
        warm.new_page().goto(url)
        warm.close()
        readings, contexts, stored = [rss_mb(pid)], [], 0
        for _ in range(sessions):
            context = browser.new_context(viewport={"width": 1440, "height": 1000}, accept_downloads=True)
            page = context.new_page()
            long_run(page, url)
            stored = _stored_events(page)
            contexts.append(context)
            readings.append(rss_mb(pid))
        for context in contexts:
            context.close()
    growth = (readings[-1] - readings[1]) / max(1, sessions - 1)
    print(f"Each session holds a finished run of {stored} stored events (ReAct, 27 rounds of 4 tool calls).\n")
    print("| sessions holding a run | server RSS |\n|---|---|")
    for n, mb in enumerate(readings):
        print(f"| {n} | {mb:.0f} MB |")
    print(
        f"\nGrowth per additional session (sessions 1 → {sessions}): **{growth:.1f} MB**; the first session "
        f"also pays one-time costs ({readings[1] - readings[0]:.1f} MB)."
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
