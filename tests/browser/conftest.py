"""Fixtures for the real-browser tests: one offline app server and one chromium per session, a fresh
browser context (own Streamlit session) per test. Skipped, saying why, without /usr/bin/chromium."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.browser.harness import CHROMIUM, chromium, streamlit_app

HERE = Path(__file__).resolve().parent


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "browser: drives the app in a real browser (Debian chromium)")


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    reason = (
        f"{CHROMIUM} is missing: install Debian's chromium (apt-get install -y chromium) to run the "
        "browser tests; `playwright install` is not used"
    )
    for item in items:
        if HERE in Path(str(item.fspath)).resolve().parents:
            item.add_marker(pytest.mark.browser)
            # one worker runs every browser test (under pytest-xdist's --dist loadgroup): they share
            # the session's app server and chromium, and the other worker runs everything else
            item.add_marker(pytest.mark.xdist_group("browser"))
            if not CHROMIUM.exists():
                item.add_marker(pytest.mark.skip(reason=reason))


@pytest.fixture(scope="session")
def app_url() -> Iterator[str]:
    with streamlit_app() as url:
        yield url


@pytest.fixture(scope="session")
def browser() -> Iterator[object]:
    with chromium() as b:
        yield b


@pytest.fixture
def page(browser):  # noqa: ANN001, ANN201
    from playwright.sync_api import expect

    # generous waits: a busy 2-core CI machine can take seconds for what a laptop does at once
    expect.set_options(timeout=30_000)
    context = browser.new_context(viewport={"width": 1440, "height": 1000}, accept_downloads=True)
    page = context.new_page()
    page.set_default_timeout(30_000)
    yield page
    context.close()
