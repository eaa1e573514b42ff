"""A workshop room without internet: every page, and a run, load from the app's own server alone.

Trainers often teach offline. Anything fetched from another host — a web font, a CDN script, a
telemetry ping — would hang or break there, so the browser records every request while a visitor
walks through all six pages and runs a scenario, and every one must go to the app's own address
and succeed.
"""

from __future__ import annotations

from urllib.parse import urlsplit

from playwright.sync_api import expect

from tests.browser.harness import settle

PAGES = {  # url path -> something each page shows once drawn
    "": "Agent Patterns Playground",
    "playground": "Run",
    "compare": "Run",
    "replay": "Replay",
    "eval": "Eval",
    "learn": "ReAct",
}


#: Streamlit's frontend looks for the server under the page's path first (/replay/_stcore/health),
#: then at the root; those probes answer 404 by design.
PROBES = ("/_stcore/health", "/_stcore/host-config")


def test_every_page_and_a_run_need_nothing_but_the_app_server(page, app_url):
    requests: list[str] = []
    failures: list[str] = []
    page.on("request", lambda r: requests.append(r.url))
    page.on("requestfailed", lambda r: failures.append(f"{r.url}: {r.failure}"))
    page.on(
        "response",
        lambda r: (
            failures.append(f"{r.url}: HTTP {r.status}")
            if r.status >= 400 and not (r.status == 404 and r.url.endswith(PROBES))
            else None
        ),
    )

    for path, shows in PAGES.items():
        page.goto(f"{app_url}/{path}")
        expect(page.locator("[data-testid=stMain]")).to_contain_text(shows)
        settle(page)
    page.goto(f"{app_url}/playground")
    page.locator(".st-key-pg_run button").click()
    expect(page.locator(".st-key-pg_view-final")).to_be_visible(timeout=60_000)
    settle(page)

    own = urlsplit(app_url).netloc
    elsewhere = sorted(
        {
            url
            for url in requests
            if urlsplit(url).scheme in ("http", "https", "ws", "wss") and urlsplit(url).netloc != own
        }
    )
    assert requests and not elsewhere, f"fetched from other hosts: {elsewhere}"
    assert not failures, failures
