"""Two people on one server never see each other's runs, settings or key — and the key typed into
the password field never reaches the page source, the trace or the report."""

from __future__ import annotations

import json

from playwright.sync_api import expect

from tests.browser.harness import download, open_playground, pick, settle, shot
from tests.fake_openai_server import FakeOpenAIServer
from tests.test_faults import sensible

KEY = "sk-test-ISOLATION-0123456789abcdef"
FINAL, RUN = ".st-key-pg_view-final", ".st-key-pg_run button"


def fill(page, key: str, value: str) -> None:  # noqa: ANN001
    box = page.locator(f".st-key-{key} input")
    box.fill(value)
    box.press("Enter")
    settle(page)


def test_two_sessions_are_isolated_and_the_typed_key_never_leaks(browser, app_url):
    alice_context = browser.new_context(viewport={"width": 1440, "height": 1000}, accept_downloads=True)
    bob_context = browser.new_context(viewport={"width": 1440, "height": 1000})
    alice, bob = alice_context.new_page(), bob_context.new_page()
    with FakeOpenAIServer(default=sensible) as server:
        # Alice connects a real (local) endpoint with a key typed into the sidebar, in Chinese.
        open_playground(alice, app_url)
        pick(alice, "sb_provider", "Custom OpenAI-compatible endpoint")
        fill(alice, "sb_base_url", server.url)
        fill(alice, "sb_model", "fake-model")
        fill(alice, "sb_api_key", KEY)
        alice.locator(".st-key-sb_lang").get_by_text("中文").click()
        settle(alice)

        # Bob, meanwhile, still has the defaults: offline, English, no endpoint.
        open_playground(bob, app_url)
        expect(bob.locator(".st-key-sb_provider input")).to_have_value("Offline · scripted demo")
        expect(bob.locator(".st-key-pg_task_box")).to_contain_text("Beijing")
        assert server.url not in bob.content() and KEY not in bob.content()

        # Both run at the same time: Alice against her endpoint, Bob offline.
        alice.locator(RUN).click()
        bob.locator(RUN).click()
        expect(alice.locator(FINAL)).to_be_visible(timeout=60_000)
        expect(bob.locator(FINAL)).to_be_visible(timeout=60_000)
        settle(alice)
        settle(bob)
        sent = [{k.lower(): v for k, v in r.headers.items()}.get("authorization") for r in server.requests]

    assert sent and all(header == f"Bearer {KEY}" for header in sent), "Alice's key was really used"
    alice_page, bob_page = alice.content(), bob.content()
    assert "fake-model" in alice_page and "fake-model" not in bob_page
    # (the sidebar's price table lists every known model, the offline one too: look at the runs)
    alice_main, bob_main = (p.locator("[data-testid=stMain]").inner_text() for p in (alice, bob))
    assert "offline-scripted" in bob_main and "offline-scripted" not in alice_main
    assert "北京" in alice_page and "北京" not in bob_page
    assert KEY not in alice_page and KEY not in bob_page
    for name in ("pg_dl-trace", "pg_dl-report"):
        exported = download(alice, name)
        assert KEY not in exported
    trace = json.loads(download(alice, "pg_dl-trace"))
    assert trace["config"]["models"] == {"default": "fake-model"} and "api_key" not in json.dumps(trace["config"])
    shot(alice, "isolation-alice")
    shot(bob, "isolation-bob")
    alice_context.close()
    bob_context.close()
