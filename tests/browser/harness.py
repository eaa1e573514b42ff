"""A real browser on the real app: `streamlit run app.py` on 127.0.0.1 (a free port, headless,
offline), Debian's chromium driven by Playwright, and the few page moves the tests and the UI
benchmark share. Never `playwright install`: it downloads a browser, and the system one is used.
"""

from __future__ import annotations

import contextlib
import os
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
ARTIFACTS = ROOT / "test-artifacts"
CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
#: Endpoint settings the app would pick up: cleared, so the server starts on the offline model.
_ENDPOINT_ENV = ("OPENAI_BASE_URL", "OPENAI_API_KEY", "OPENAI_MODEL", "DASHSCOPE_API_KEY", "DEEPSEEK_API_KEY")


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


#: base URL -> the server process behind it, while `streamlit_app` serves it
_SERVERS: dict[str, subprocess.Popen] = {}


def server_pid(url: str) -> int:
    """The pid of the streamlit process `streamlit_app` started for `url`."""
    return _SERVERS[url].pid


def stop(proc: subprocess.Popen) -> None:
    """Terminate a server, killing it if it has not gone within 10 s."""
    proc.terminate()
    try:
        proc.wait(timeout=10)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


def offline_env(extra: Mapping[str, str] | None = None) -> dict[str, str]:
    """This process's environment without the endpoint settings (so a server started with it runs on
    the offline model), then `extra`."""
    env = {k: v for k, v in os.environ.items() if k not in _ENDPOINT_ENV}
    env.update(extra or {})
    return env


def streamlit_command(port: int, script: str = "app.py", runner: Sequence[str] = ("-m", "streamlit")) -> list[str]:
    """`streamlit run script` on 127.0.0.1:`port`, headless and sending no usage statistics; `runner`
    is what follows the interpreter (a profiling wrapper may stand in for `-m streamlit`)."""
    return [
        sys.executable,
        *runner,
        "run",
        script,
        "--server.port",
        str(port),
        "--server.address",
        "127.0.0.1",
        "--server.headless",
        "true",
        "--browser.gatherUsageStats",
        "false",
    ]


@contextlib.contextmanager
def streamlit_app(env: Mapping[str, str] | None = None, log_name: str = "streamlit.log") -> Iterator[str]:
    """Serve app.py and yield its base URL; the server is stopped (by its own pid) afterwards."""
    port = free_port()
    ARTIFACTS.mkdir(exist_ok=True)
    with open(ARTIFACTS / log_name, "w") as log:
        proc = subprocess.Popen(
            streamlit_command(port), cwd=ROOT, env=offline_env(env), stdout=log, stderr=subprocess.STDOUT
        )
        url = f"http://127.0.0.1:{port}"
        _SERVERS[url] = proc
        try:
            wait_healthy(url, proc, log=ARTIFACTS / log_name)
            yield url
        finally:
            del _SERVERS[url]
            stop(proc)


def wait_healthy(url: str, proc: subprocess.Popen, timeout: float = 30.0, log: Path | None = None) -> None:
    """Return once the server at `url` answers its health check; raise when its process `proc` has
    exited (its output is in `log`) or `timeout` seconds have passed."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"streamlit exited with {proc.returncode}; see {log or 'its log'}")
        try:
            with urllib.request.urlopen(f"{url}/_stcore/health", timeout=1) as response:
                if response.read() == b"ok":
                    return
        except OSError:
            time.sleep(0.1)
    raise RuntimeError(f"streamlit did not answer on {url} within {timeout:.0f} s")


@contextlib.contextmanager
def chromium() -> Iterator[object]:
    """Debian's chromium under Playwright."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS, headless=True)
        try:
            yield browser
        finally:
            browser.close()


# --- page moves -----------------------------------------------------------------------------------


def open_playground(page, url: str) -> None:  # noqa: ANN001 - playwright Page
    page.goto(f"{url}/playground")
    page.locator(".st-key-pg_run button").wait_for(timeout=30_000)
    settle(page)


_SETTLE = """
([startWithin, timeout]) => new Promise((resolve, reject) => {
  const app = document.querySelector('[data-testid=stApp]');
  const running = () => app.dataset.testScriptState === 'running';
  let seen = running();
  const finish = () => { observer.disconnect(); clearTimeout(give); clearTimeout(late); resolve(); };
  const observer = new MutationObserver(() => {
    if (running()) seen = true;
    else if (seen) finish();
  });
  observer.observe(app, {attributes: true, attributeFilter: ['data-test-script-state']});
  // an interaction's rerun may not have started yet: give it `startWithin` ms to show up
  const late = setTimeout(() => { if (!seen) finish(); }, startWithin);
  const give = setTimeout(() => { observer.disconnect(); reject(new Error('the script run did not end')); }, timeout);
})
"""


def settle(page, timeout: float = 30_000, start_within: float = 400) -> None:  # noqa: ANN001
    """Wait until the script run an interaction caused (if any, within `start_within` ms) is over."""
    page.evaluate(_SETTLE, [start_within, timeout])


def download(page, key: str) -> str:  # noqa: ANN001
    """The text of the file the download button with widget key `key` gives.

    A button built from a callable hands the browser a file id that a rerun replaces (Streamlit's
    deferred files): a click that lands while one is drawing gets nothing, as a person's would, and a
    person clicks again. So does this, once, after the rerun.
    """
    from playwright.sync_api import Error as PlaywrightError

    def fetch(timeout: float) -> str:
        with page.expect_download(timeout=timeout) as info:
            page.locator(f".st-key-{key} button").click()
        return Path(info.value.path()).read_text(encoding="utf-8")

    settle(page)
    try:
        return fetch(15_000)
    except PlaywrightError:  # no download within the time, or one that began and was canceled: the
        # file id had been replaced (the browser starts the download, and its request finds no file)
        settle(page)
        return fetch(30_000)


def pick(page, key: str, option: str) -> None:  # noqa: ANN001
    """Choose `option` in the selectbox with widget key `key`."""
    page.locator(f".st-key-{key}").click()
    # typed first: a long list draws only the options in its window (Compare's variants are a dozen)
    page.keyboard.type(option)
    page.get_by_role("option", name=option, exact=True).click()
    settle(page)


def verdict(page, name: str):  # noqa: ANN001, ANN201
    """The verdict containers showing `name` (PASS, REVISE, RETRY or REPLAN)."""
    return page.locator(f"[class*='st-key-pg_view-verdict-'][class*='-{name}']")


def verdicts_in_order(page, view: str = "pg_view") -> list[str]:  # noqa: ANN001
    """The verdicts of the run view keyed `view` (the Playground's by default), in order."""
    classes = page.locator(f"[class*='st-key-{view}-verdict-']").evaluate_all("els => els.map(e => e.className)")
    return [
        next(c.rsplit("-", 1)[1] for c in cls.split() if c.startswith(f"st-key-{view}-verdict-")) for cls in classes
    ]


def shot(page, name: str) -> Path:  # noqa: ANN001
    """A screenshot of the whole page (the app scrolls inside its main area, so grow the window)."""
    ARTIFACTS.mkdir(exist_ok=True)
    size = page.viewport_size
    height = page.evaluate(
        "() => Math.max(...[...document.querySelectorAll('[data-testid=stMain], "
        "[data-testid=stMainBlockContainer]')].map(e => e.scrollHeight), innerHeight)"
    )
    page.set_viewport_size({"width": size["width"], "height": min(int(height) + 40, 8000)})
    path = ARTIFACTS / f"{name}.png"
    page.screenshot(path=str(path), full_page=True)
    page.set_viewport_size(size)
    return path
