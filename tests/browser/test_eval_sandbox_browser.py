"""A workshop room, in small: one participant types a key into the sidebar, another uploads a task
file built to steal it and to stop the server. The upload runs in the kernel sandbox: the key never
reaches the uploader's page, and the server — and the first participant's run — carry on."""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path

from playwright.sync_api import expect

from tests.browser.harness import open_playground, pick, server_pid, settle, shot
from tests.browser.test_isolation_browser import FINAL, RUN, fill
from tests.fake_openai_server import FakeOpenAIServer
from tests.test_faults import sensible

KEY = "sk-test-ROOMKEY-THEFT-0123456789"

# The canonical solution is the attack: judged against its test, whatever it finds is printed,
# and the failing test shows the output on the uploader's page.
ATTACK = r"""
import os, signal

def steal():
    found = []
    for pid in [p for p in os.listdir("/proc") if p.isdigit()]:
        for name in ("environ", "cmdline"):
            try:
                found.append(open(f"/proc/{pid}/{name}", "rb").read().decode("latin-1"))
            except OSError as exc:
                found.append(f"{pid}/{name}: {exc.strerror}")
        try:  # another participant's key, typed into the sidebar, lives in the server's memory
            maps = open(f"/proc/{pid}/maps").read().splitlines()
            with open(f"/proc/{pid}/mem", "rb") as mem:
                for line in maps[:200]:
                    start, end = (int(x, 16) for x in line.split()[0].split("-"))
                    try:
                        mem.seek(start)
                        chunk = mem.read(min(end - start, 1 << 20))
                    except OSError:
                        continue
                    at = chunk.find(b"sk-test-")
                    if at >= 0:
                        found.append(chunk[at:at + 40].decode("latin-1"))
        except OSError as exc:
            found.append(f"{pid}/mem: {exc.strerror}")
    for name in ("/proc/1/cwd/.streamlit/secrets.toml", os.path.expanduser("~/.streamlit/secrets.toml")):
        try:
            found.append(open(name).read())
        except OSError as exc:
            found.append(f"{name}: {exc.strerror}")
    for pid in (os.getppid(), 1):  # and stop the server, if it can be reached
        for sig in (signal.SIGSTOP, signal.SIGTERM):
            try:
                os.kill(pid, sig)
            except OSError as exc:
                found.append(f"kill {pid}: {exc.strerror}")
    print("\n".join(found))
    return "stolen"
"""
TASK = {
    "task_id": "Room/steal",
    "prompt": 'def steal():\n    """Return nothing."""\n',
    "canonical_solution": ATTACK,
    "entry_point": "steal",
    "test": "def check(candidate):\n    assert candidate() == 'nothing'\n",
}


def test_an_upload_cannot_read_another_participants_key_or_stop_the_server(browser, app_url):
    alice_context, bob_context = (
        browser.new_context(viewport={"width": 1440, "height": 1000}),
        browser.new_context(viewport={"width": 1440, "height": 1000}),
    )
    alice, bob = alice_context.new_page(), bob_context.new_page()
    pid = server_pid(app_url)
    with FakeOpenAIServer(default=sensible) as server, tempfile.TemporaryDirectory() as tmp:
        open_playground(alice, app_url)
        pick(alice, "sb_provider", "Custom OpenAI-compatible endpoint")
        fill(alice, "sb_base_url", server.url)
        fill(alice, "sb_model", "fake-model")
        fill(alice, "sb_api_key", KEY)

        upload = Path(tmp) / "room.jsonl"
        upload.write_text(json.dumps(TASK) + "\n", encoding="utf-8")
        bob.goto(f"{app_url}/eval")
        settle(bob)
        bob.locator(".st-key-ev_source").get_by_text("Upload JSONL").click()
        settle(bob)
        bob.locator(".st-key-ev_upload input[type=file]").set_input_files(str(upload))
        settle(bob)
        expect(bob.locator(".st-key-ev_patterns")).to_contain_text("reference")  # judges the attack as it is
        bob.locator(".st-key-ev_run button").click()
        expect(bob.locator(".st-key-ev_run button")).to_be_enabled(timeout=120_000)  # the evaluation is over
        settle(bob)
        expect(bob.get_by_text("Room/steal").first).to_be_visible()
        shot(bob, "eval-room-uploader")

        assert KEY not in bob.content(), "the uploaded code read the other participant's key"
        os.kill(pid, 0)  # the server is still there …
        assert open(f"/proc/{pid}/stat").read().split()[2] != "T", "… and not stopped"
        alice.locator(RUN).click()  # … and the first participant's run goes on as if nothing happened
        expect(alice.locator(FINAL)).to_be_visible(timeout=60_000)
        assert server.requests, "Alice's run reached her endpoint"
    alice_context.close()
    bob_context.close()
