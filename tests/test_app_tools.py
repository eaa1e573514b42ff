"""The Playground's Tools section under AppTest, in English and Chinese: connect the bundled MCP
server, see its tools and health, turn tools on and off, run with them; who may type what."""

from __future__ import annotations

import pytest

pytest.importorskip("mcp")

from agent_core import events as ev
from pages.ui import i18n, tools_view
from tests.app_pages import open_page

P = "pg"


@pytest.fixture(autouse=True)
def _close_servers():
    yield
    for sid in list(tools_view._SESSIONS):
        tools_view.close_session(sid)


def _open(lang: str, monkeypatch, **env: str):
    for name in ("AGENT_PLAYGROUND_LOCAL", "AGENT_PLAYGROUND_LOCK_ENDPOINTS"):
        monkeypatch.delenv(name, raising=False)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    at = open_page("pages/playground.py", sb_lang=lang) if lang == "zh" else open_page("pages/playground.py")
    return at


def _button(at, label: str):
    return next(b for b in at.button if b.label == label)


def _texts(at) -> str:
    return "\n".join([m.value for m in at.markdown] + [c.value for c in at.caption] + [e.value for e in at.error])


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_connect_the_bundled_server_see_its_tools_and_run_with_them(lang, monkeypatch):
    at = _open(lang, monkeypatch)
    words = i18n.words("tools_mcp", lang)
    assert any(e.label == words["head"] for e in at.expander)
    _button(at, words["connect"]).click().run()
    assert not at.exception, [e.message for e in at.exception]
    health = "connected, 8 tools" if lang == "en" else "已连接，8 个工具"
    assert health in _texts(at) and words["ping"].split("{ms}")[0] in _texts(at)
    boxes = [c for c in at.checkbox if c.key and c.key.startswith(f"{P}_mcp_tool_")]
    assert len(boxes) == 8 and all(c.value for c in boxes)
    assert any('"city"' in c.value for c in at.code)  # the schema is drawn
    # turn every tool but the scenario's off, then run: the scenario's tool calls go through MCP
    at.button(key=f"{P}_run").click().run()
    assert not at.exception, [e.message for e in at.exception]
    record = at.session_state[f"{P}_runs"][-1]
    calls = [e for e in record.typed_events() if isinstance(e, ev.ToolCallEvent)]
    assert calls and {c.server for c in calls} == {"mock-tools"}
    assert [t["server"] for t in record.config["mcp_tools"]] == ["mock-tools"] * 8


def test_a_tool_turned_off_is_not_offered_and_the_scenario_uses_its_own(monkeypatch):
    at = _open("en", monkeypatch)
    _button(at, "Connect").click().run()
    for c in [c for c in at.checkbox if c.key and c.key.startswith(f"{P}_mcp_tool_")]:
        c.uncheck()
    at.run()
    at.button(key=f"{P}_run").click().run()
    record = at.session_state[f"{P}_runs"][-1]
    assert "mcp_tools" not in record.config
    assert all(e.server == "" for e in record.typed_events() if isinstance(e, ev.ToolCallEvent))


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_participant_cannot_add_a_command(lang, monkeypatch):
    at = _open(lang, monkeypatch)
    words = i18n.words("tools_mcp", lang)
    box = next(t for t in at.text_input if t.key == f"{P}_mcp_typed")
    assert box.label == words["typed"] and words["room_note"] in _texts(at)
    box.input("python -m mcp_server_time").run()
    _button(at, words["add"]).click().run()
    assert not at.exception
    refused = "may not be connected here" if lang == "en" else "不允许连接"
    assert any(refused in e.value for e in at.error)
    assert not tools_view._SESSIONS or not any(tools_view._SESSIONS.values())


def test_locked_endpoints_leave_only_the_offered_servers(monkeypatch):
    at = _open("en", monkeypatch, AGENT_PLAYGROUND_LOCK_ENDPOINTS="1")
    assert not [t for t in at.text_input if t.key == f"{P}_mcp_typed"]
    assert i18n.words("tools_mcp", "en")["locked_note"] in _texts(at)


def test_local_mode_lets_a_person_add_a_command(monkeypatch):
    import sys

    at = _open("en", monkeypatch, AGENT_PLAYGROUND_LOCAL="1")
    box = next(t for t in at.text_input if t.key == f"{P}_mcp_typed")
    assert box.label == i18n.words("tools_mcp", "en")["typed_local"]
    box.input(f"{sys.executable} tests/mcp_fault_server.py").run()
    _button(at, "Add server").click().run()
    assert not at.exception, [e.message for e in at.exception]
    texts = _texts(at)
    assert "connected, 7 tools" in texts and "Left out bad\\_schema" in texts or "Left out bad_schema" in texts


def test_a_run_made_with_mcp_tools_forks_with_stand_ins_once_the_server_is_gone(monkeypatch):
    at = _open("en", monkeypatch)
    _button(at, "Connect").click().run()
    at.button(key=f"{P}_run").click().run()
    record = at.session_state[f"{P}_runs"][-1]
    for sid in list(tools_view._SESSIONS):
        tools_view.close_session(sid)
    reg = tools_view.registry_for(record.config, record.typed_events())
    used = {e.name for e in record.typed_events() if isinstance(e, ev.ToolCallEvent)}
    assert used and all(reg.tools[n].server == "mock-tools" for n in used)
    assert all("not connected" in reg.run(n, {}).output for n in used)
    spec = next(s for s in record.config["mcp_tools"] if s["name"] in used)
    assert reg.tools[spec["name"]].description == spec["description"]  # the model is offered what it saw


def test_operator_headers_are_redacted_from_downloads(monkeypatch):
    from pages.ui import sidebar

    monkeypatch.setattr("agent_core.mcp.servers.header_values", lambda *a, **k: ["Bearer op-secret"])
    assert "Bearer op-secret" in sidebar.secrets_to_redact()


def test_replay_opens_a_run_made_over_mcp_with_no_server_anywhere(monkeypatch):
    """A trace whose tools came from an MCP server (here the bundled one, closed before Replay opens)."""
    import agent_core as ac
    from agent_core import trace
    from agent_core.mcp import client as mc
    from agent_core.mcp import recorded, servers
    from tests.test_app_replay import has_final_answer, upload

    config, task = ac.for_scenario("order-99999", "en")
    with mc.Connection(servers.bundled("en", config.tools)) as conn:
        reg, _ = mc.registry([conn], ac.runner.default_tools(config))
        result = ac.run(task, config, ac.OfflineModel(), reg)
    assert not mc._OPEN
    data = trace.Trace.of(recorded.with_tools(config.to_dict(), reg), result.events, {}).dumps().encode()
    at = open_page("pages/replay.py")
    upload(at, "mcp.json", data)
    assert has_final_answer(at)
    assert any("syncing" in (getattr(e, "value", "") or "") for e in [*at.markdown, *at.code, *at.caption])


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_fork_whose_server_is_not_connected_says_so(lang, monkeypatch):
    at = _open(lang, monkeypatch)
    _button(at, i18n.words("tools_mcp", lang)["connect"]).click().run()
    at.button(key=f"{P}_run").click().run()
    record = at.session_state[f"{P}_runs"][-1]
    note = i18n.words("tools_mcp", lang)["fork_missing"].split("{servers}")[0]
    assert note not in _texts(at)
    record.fork = {"run_id": "parent", "at": 2, "edited": False, "parent_config": dict(record.config)}
    record.parent = list(record.events)
    at.run()
    assert note not in _texts(at)  # connected: nothing to say
    _button(at, i18n.words("tools_mcp", lang)["disconnect"]).click().run()
    assert not at.exception, [e.message for e in at.exception]
    assert any(note in c.value and "mock" in c.value for c in at.caption)


def test_drawing_the_section_does_not_import_the_sdk():
    import subprocess
    import sys

    code = (
        "import sys; from streamlit.testing.v1 import AppTest; "
        "at = AppTest.from_file('app.py', default_timeout=60); at.run(); at.switch_page('pages/playground.py').run(); "
        "assert not at.exception; print('mcp' in sys.modules)"
    )
    out = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
        cwd=str(__import__("pathlib").Path(__file__).resolve().parents[1]),
    )
    assert out.stdout.strip().splitlines()[-1] == "False", out.stderr[-500:]
