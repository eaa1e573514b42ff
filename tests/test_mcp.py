"""Tools over MCP: the bundled server, real servers nobody here wrote, an HTTP server on 127.0.0.1,
every fault, the record (trace, replay, exact forks, OpenTelemetry) and who may connect what."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

import agent_core as ac
from agent_core import events as ev
from agent_core import mock_tools, trace
from agent_core.fork import fork
from agent_core.mcp import (
    McpError,
    recorded,
    servers,
)
from agent_core.mcp import client as mc
from agent_core.scenarios import SCENARIOS
from agent_core.testing import ScriptedModel, say, tool
from agent_core.tools import MAX_OUTPUT_CHARS

mcp = pytest.importorskip("mcp")  # the optional extra, which agent_core.mcp imports only on use

ROOT = Path(__file__).resolve().parents[1]
FAULT = [sys.executable, str(ROOT / "tests" / "mcp_fault_server.py")]
TOOL_SCENARIOS = [s.id for s in SCENARIOS.values() if s.tools]


def _gone(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    try:  # a zombie is gone for our purposes
        return Path(f"/proc/{pid}/stat").read_text().split(") ")[1].startswith("Z")
    except OSError:
        return True


#: children this process had before this module's first test (a browser test's app server and chromium,
#: session-wide, when the whole suite runs in one process): not the MCP client's to close
_BEFORE: set[int] = set()


@pytest.fixture(scope="module", autouse=True)
def _children_before() -> None:
    _BEFORE.update(mc._children())


def _no_children_left() -> None:
    """No child process of this test process is alive but the servers of connections still open."""

    def stray() -> set[int]:
        keep = {c.pid for c in list(mc._OPEN)} | _BEFORE
        return {p for p in mc._children() if p not in keep and not _gone(p)}

    deadline = time.monotonic() + 5
    while stray() and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not stray()


@pytest.fixture(scope="module")
def bundled():
    conns = {lang: mc.Connection(servers.bundled(lang), lang=lang).start() for lang in ("en", "zh")}
    yield conns
    for c in conns.values():
        c.close()


def _bare(events):
    return [
        {k: v for k, v in e.to_dict().items() if k not in ("t", "server", "latency_ms", "elapsed_ms")} for e in events
    ]


# -- the bundled server ------------------------------------------------------------------------------


def test_importing_agent_core_does_not_import_the_sdk():
    code = "import sys, agent_core, agent_core.mcp, agent_core.runner; print('mcp' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize("scenario", TOOL_SCENARIOS)
def test_the_bundled_server_plays_every_tool_scenario_with_the_same_events(bundled, scenario, lang):
    config, task = ac.for_scenario(scenario, lang)
    here = ac.run(task, config, ac.OfflineModel())
    conn = bundled[lang]
    reg, left = mc.registry([conn], enabled={conn.name: list(config.tools)})
    assert not left and reg.names() == list(config.tools)
    there = ac.run(task, config, ac.OfflineModel(), reg)
    assert _bare(there.events) == _bare(here.events)
    calls = [e for e in there.events if isinstance(e, (ev.ToolCallEvent, ev.ToolResult))]
    assert calls and all(e.server == "mock-tools" for e in calls)
    assert all(e.server == "" for e in here.events if isinstance(e, (ev.ToolCallEvent, ev.ToolResult)))


def test_the_bundled_server_lists_the_mock_tools_with_their_schemas(bundled):
    listed = {t.name: t for t in bundled["zh"].tools}
    assert set(listed) == set(mock_tools.TOOLS)
    assert listed["weather"].schema == dict(mock_tools.TOOLS["weather"].parameters)
    assert listed["weather"].description == mock_tools.TOOLS["weather"].description_zh


# -- real servers nobody here wrote -----------------------------------------------------------------


def _fork_at_last_with_no_server(config, result, registry):
    """Save the run, then fork it at its last call with no server: the recorded results come back."""
    saved = trace.loads(trace.Trace.of(recorded.with_tools(config.to_dict(), registry), result.events, {}).dumps())
    reg, missing = recorded.fork_tools(saved.events, ac.runner.default_tools(config), config=saved.config)
    assert missing
    calls = sum(isinstance(e, ev.LlmCall) for e in saved.events)
    stream, rec = fork(saved.events, calls, config, ScriptedModel([say("Forked.")]), tools=reg)
    forked = list(stream)
    want = [(e.name, e.output, e.server) for e in result.events if isinstance(e, ev.ToolResult)]
    assert [(e.name, e.output, e.server) for e in forked if isinstance(e, ev.ToolResult)] == want
    assert rec.first_difference is None and forked[-1].kind == "run_finished"


def _run_with(conn, script, task="what time is it?"):
    reg, _ = mc.registry([conn])
    config = ac.configure(pattern="react", max_reflection_rounds=0)
    model = ScriptedModel(script)
    result = ac.run(task, config, model, reg)
    model.assert_consumed()
    return config, result


def test_mcp_server_time_over_stdio_on_the_record_and_forked_with_no_server():
    pytest.importorskip("mcp_server_time")
    conn = mc.Connection(mc.parse_server(f"{sys.executable} -m mcp_server_time --local-timezone UTC")).start()
    try:
        assert {"get_current_time", "convert_time"} <= {t.name for t in conn.tools}
        live_reg, _ = mc.registry([conn])
        config, result = _run_with(
            conn,
            [
                say("", tool("get_current_time", timezone="Asia/Shanghai")),
                say("", tool("convert_time", source_timezone="UTC", time="12:00", target_timezone="Asia/Tokyo")),
                say("It is late in Shanghai."),
            ],
        )
    finally:
        conn.close()
    assert _gone(conn.pid)
    results = [e for e in result.events if isinstance(e, ev.ToolResult)]
    assert [r.name for r in results] == ["get_current_time", "convert_time"]
    assert '"timezone": "Asia/Shanghai"' in results[0].output and "21:00" in results[1].output
    assert all(r.server.startswith("python") and "mcp_server_time" in r.server for r in results)
    # on the record: the trace round-trips, and a fork at the last call serves both results from it
    saved = trace.loads(trace.Trace.of(recorded.with_tools(config.to_dict(), live_reg), result.events, {}).dumps())
    assert [e.server for e in saved.events if isinstance(e, ev.ToolResult)] == [r.server for r in results]
    reg, missing = recorded.fork_tools(saved.events, ac.runner.default_tools(config), config=saved.config)
    assert missing == [results[0].server]
    stream, rec = fork(saved.events, 3, config, ScriptedModel([say("Forked answer.")]), tools=reg)
    forked = list(stream)
    assert [(e.name, e.output, e.server) for e in forked if isinstance(e, ev.ToolResult)] == [
        (r.name, r.output, r.server) for r in results
    ]
    assert forked[-1].kind == "run_finished" and rec.first_difference is None


def test_a_fork_that_calls_a_disconnected_server_after_the_fork_point_says_so(bundled):
    conn = bundled["en"]
    config = ac.configure(pattern="react", max_reflection_rounds=0)
    reg, _ = mc.registry([conn], enabled={conn.name: ["weather"]})
    result = ac.run("weather?", config, ScriptedModel([say("", tool("weather", city="Beijing")), say("Sunny.")]), reg)
    base = ac.runner.default_tools(config)
    stand_in, missing = recorded.fork_tools(result.events, base)
    assert missing == ["mock-tools"]
    live = ScriptedModel([say("", tool("weather", city="Shanghai")), say("Done.")])
    forked = list(fork(result.events, 2, config, live, tools=stand_in)[0])
    outs = [e for e in forked if isinstance(e, ev.ToolResult)]
    assert outs[0].output == next(e for e in result.events if isinstance(e, ev.ToolResult)).output  # the record
    assert outs[1].is_error and "not connected" in outs[1].output and outs[1].server == "mock-tools"
    # with the server connected, the same fork goes live after the fork point
    live_reg, missing = recorded.fork_tools(result.events, base, [conn])
    assert missing == []
    live = ScriptedModel([say("", tool("weather", city="Shanghai")), say("Done.")])
    forked = list(fork(result.events, 2, config, live, tools=live_reg)[0])
    assert "Shanghai" in [e for e in forked if isinstance(e, ev.ToolResult)][1].output


def test_the_not_connected_note_is_in_chinese_too():
    assert "未连接" in recorded.not_connected("s", "t", "zh")


def test_mcp_server_git_over_stdio_on_a_temporary_repository(tmp_path):
    pytest.importorskip("mcp_server_git")
    repo = tmp_path / "repo"
    repo.mkdir()
    git = ["git", "-C", str(repo), "-c", "user.name=t", "-c", "user.email=t@example.com"]
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    (repo / "a.txt").write_text("hello\n")
    subprocess.run([*git, "add", "a.txt"], check=True)
    subprocess.run([*git, "commit", "-q", "-m", "first commit"], check=True)
    (repo / "b.txt").write_text("new\n")
    conn = mc.Connection(
        mc.ServerSpec(command=(sys.executable, "-m", "mcp_server_git", "--repository", str(repo)), label="git")
    ).start()
    try:
        names = {t.name for t in conn.tools}
        assert {"git_status", "git_log"} <= names
        _config, result = _run_with(
            conn,
            [
                say("", tool("git_log", repo_path=str(repo))),
                say("", tool("git_status", repo_path=str(repo))),
                say("One commit."),
            ],
        )
        reg_live = mc.registry([conn])[0]
    finally:
        conn.close()
    outs = {e.name: e for e in result.events if isinstance(e, ev.ToolResult)}
    assert "first commit" in outs["git_log"].output and "b.txt" in outs["git_status"].output
    assert all(e.server == "git" for e in outs.values())
    _no_children_left()
    _fork_at_last_with_no_server(_config, result, reg_live)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture
def http_server():
    """An MCP server built with the SDK, served over streamable HTTP on 127.0.0.1 in this process."""
    import uvicorn
    from mcp.server.mcpserver import MCPServer

    app = MCPServer("adder")

    @app.tool()
    def add(a: int, b: int) -> int:
        """Add two integers."""
        return a + b

    port = _free_port()
    server = uvicorn.Server(uvicorn.Config(app.streamable_http_app(), host="127.0.0.1", port=port, log_level="error"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 10
    while not server.started and time.monotonic() < deadline:
        time.sleep(0.05)
    yield f"http://127.0.0.1:{port}/mcp"
    server.should_exit = True
    thread.join(5)


def test_an_http_server_built_with_the_sdk(http_server):
    conn = mc.Connection(mc.parse_server(http_server)).start()
    try:
        add = next(t for t in conn.tools if t.name == "add")
        assert add.description == "Add two integers." and set(add.schema["properties"]) == {"a", "b"}
        _config, result = _run_with(conn, [say("", tool("add", a=2, b=40)), say("42")], task="2+40?")
        reg_live = mc.registry([conn])[0]
    finally:
        conn.close()
    out = next(e for e in result.events if isinstance(e, ev.ToolResult))
    assert out.output.strip() == "42" and not out.is_error and out.server == http_server
    _fork_at_last_with_no_server(_config, result, reg_live)


def test_an_http_url_where_nothing_listens_is_a_clean_error():
    t0 = time.monotonic()
    with pytest.raises(McpError) as err:
        mc.Connection(mc.parse_server(f"http://127.0.0.1:{_free_port()}/mcp"), connect_timeout=5).start()
    assert err.value.reason in ("start", "handshake") and time.monotonic() - t0 < 12


def _fault_http(*flags: str):
    port = _free_port()
    proc = subprocess.Popen([*FAULT, "--http", str(port), *flags])
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        try:
            socket.create_connection(("127.0.0.1", port), 0.2).close()
            break
        except OSError:
            time.sleep(0.1)
    return proc, port


@pytest.mark.parametrize("flags", [(), ("--json",)])
def test_an_http_servers_oversized_response_is_refused_not_held(flags, monkeypatch):
    monkeypatch.setattr(mc, "MAX_HTTP_RESPONSE_BYTES", 1_000_000)  # "big" answers 2 MB
    proc, port = _fault_http(*flags)
    try:
        conn = mc.Connection(mc.parse_server(f"http://127.0.0.1:{port}/mcp"), call_timeout=10).start()
        try:
            obs = conn.call("big", {})
            assert obs.is_error and "answered big with over 1,000,000 bytes" in obs.output
            assert not conn.alive and "is not running" in conn.call("echo", {"text": "x"}).output
        finally:
            conn.close()
    finally:
        proc.kill()
        proc.wait(5)


def test_an_http_server_that_goes_away_mid_run_gives_error_observations():
    proc, port = _fault_http()
    try:
        conn = mc.Connection(mc.parse_server(f"http://127.0.0.1:{port}/mcp"), call_timeout=3).start()
        assert conn.call("echo", {"text": "hi"}).output == "echo: hi"
    finally:
        proc.kill()
        proc.wait(5)
    obs = conn.call("echo", {"text": "again"})
    conn.close()
    assert (
        obs.is_error
        and "faulty" not in obs.output
        and ("stopped" in obs.output or "failed" in obs.output or "did not answer" in obs.output)
    )


# -- faults -----------------------------------------------------------------------------------------


@pytest.fixture
def faulty():
    conn = mc.Connection(mc.ServerSpec(command=tuple(FAULT), label="faulty"), call_timeout=1.0).start()
    yield conn
    conn.close()


def test_a_tool_with_an_invalid_schema_or_name_is_left_out_with_the_reason(faulty):
    assert "bad_schema" not in {t.name for t in faulty.tools}
    reasons = dict(faulty.skipped)
    assert "not a valid JSON Schema" in reasons["bad_schema"] and "name" in reasons["bad name!"]


def test_a_hanging_call_times_out_as_an_observation_and_the_server_still_answers(faulty):
    t0 = time.monotonic()
    obs = faulty.call("hang", {})
    assert obs.is_error and "did not answer hang within 1 s" in obs.output and time.monotonic() - t0 < 5
    assert faulty.call("echo", {"text": "still here"}).output == "echo: still here"


def test_an_error_result_and_a_raising_handler_are_error_observations(faulty):
    fail = faulty.call("fail", {})
    assert fail.is_error and fail.output == "the backend said no"
    broke = faulty.call("raise", {})
    assert broke.is_error and "raise failed on the MCP server faulty" in broke.output


def test_a_result_too_large_is_cut_with_a_note(faulty):
    reg, _ = mc.registry([faulty])
    obs = reg.run("big", {})
    assert len(obs.output) < MAX_OUTPUT_CHARS + 100 and obs.output.endswith(
        f"[truncated {2_000_000 - MAX_OUTPUT_CHARS} characters]"
    )


def test_a_server_that_dies_mid_run_ends_in_error_observations_and_the_run_goes_on(faulty):
    reg, _ = mc.registry([faulty])
    config = ac.configure(pattern="react", max_reflection_rounds=0)
    script = [say("", tool("die")), say("", tool("echo", text="again")), say("The server is gone.")]
    result = ac.run("go", config, ScriptedModel(script), reg)
    outs = [e for e in result.events if isinstance(e, ev.ToolResult)]
    assert outs[0].is_error and "stopped during die" in outs[0].output
    assert outs[1].is_error and "is not running" in outs[1].output and "echo was not called" in outs[1].output
    assert result.reason == "answer" and "not running" in faulty.health()
    assert "未运行" in faulty.health("zh")


def test_ping_is_the_health_check_and_a_dead_server_does_not_answer(faulty):
    ms = faulty.call("echo", {}) and faulty.ping()
    assert ms is not None and ms < 1000
    faulty.call("die", {})
    assert faulty.ping() is None


def test_a_hanging_call_in_chinese():
    conn = mc.Connection(mc.ServerSpec(command=tuple(FAULT), label="faulty"), lang="zh", call_timeout=0.5).start()
    try:
        assert "秒内没有返回 hang" in conn.call("hang", {}).output
    finally:
        conn.close()


def test_the_whole_process_group_goes_with_the_server():
    conn = mc.Connection(mc.ServerSpec(command=tuple(FAULT))).start()
    grandchild = int(conn.call("spawn", {}).output.split()[-1])
    assert not _gone(grandchild)
    conn.close()
    deadline = time.monotonic() + 5
    while not _gone(grandchild) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert _gone(grandchild) and _gone(conn.pid)
    _no_children_left()


@pytest.mark.parametrize(
    "argv, reason, says",
    [
        ([*FAULT, "--exit-at-start"], "start", "refusing to start"),
        (["/nonexistent/mcp-server"], "start", "No such file"),
        ([*FAULT, "--silent"], "handshake", "did not answer the MCP handshake"),
    ],
)
def test_a_server_that_does_not_start_is_a_clean_typed_error_and_leaves_no_process(argv, reason, says):
    t0 = time.monotonic()
    with pytest.raises(McpError) as err:
        mc.Connection(mc.ServerSpec(command=tuple(argv)), connect_timeout=2).start()
    assert err.value.reason == reason and says in str(err.value) and time.monotonic() - t0 < 10
    assert err.value.message("zh") != err.value.message("en") and "MCP" in err.value.message("zh")
    _no_children_left()


def test_a_server_dies_with_the_process_that_started_it_even_when_that_one_is_killed(tmp_path):
    import shutil
    import signal

    if not shutil.which("setpriv"):
        pytest.skip("no setpriv: the parent-death signal is not set")
    code = (
        "import sys, time; from agent_core.mcp import client as mc; "
        f"c = mc.Connection(mc.ServerSpec(command={tuple(FAULT)!r})).start(); print(c.pid, flush=True); time.sleep(60)"
    )
    parent = subprocess.Popen([sys.executable, "-c", code], cwd=ROOT, stdout=subprocess.PIPE, text=True)
    try:
        server = int(parent.stdout.readline())
        assert not _gone(server)
    finally:
        parent.send_signal(signal.SIGKILL)
        parent.wait(5)
    deadline = time.monotonic() + 5
    while not _gone(server) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert _gone(server)


def test_connect_all_closes_the_started_ones_when_one_fails():
    with pytest.raises(McpError):
        mc.connect_all([mc.ServerSpec(command=tuple(FAULT)), mc.ServerSpec(command=("/nonexistent/x",))])
    _no_children_left()


@pytest.mark.parametrize(
    "name, schema",
    [
        ("ok", {"type": "string"}),
        ("ok", ["not", "an", "object"]),
        ("ok", {"type": "object", "properties": {"x": {"type": 5}}}),
        ("ok", {"type": "object", "required": "x"}),
        ("", {"type": "object"}),
        ("x" * 65, {"type": "object"}),
        ("a.b", {"type": "object"}),
        ("tool\n", {"type": "object"}),
    ],
)
def test_unusable_tools_are_refused(name, schema):
    assert mc.check_tool(name, schema)


def test_a_deeply_nested_schema_is_refused_or_accepted_without_a_crash():
    deep: dict = {"type": "object"}
    node = deep
    for _ in range(5000):
        node["properties"] = {"x": {"type": "object"}}
        node = node["properties"]["x"]
    mc.check_tool("deep", deep)  # either answer; never a RecursionError out of it


def test_a_servers_tool_replaces_a_built_in_one_and_a_second_server_with_the_name_is_left_out(bundled):
    reg, left = mc.registry([bundled["en"], bundled["zh"]], base=mock_tools.registry(["weather"]))
    assert reg.tools["weather"].server == "mock-tools" and reg.tools["weather"].fn.__name__ == "weather"
    assert ("mock-tools", "weather", "replaces the built-in tool of that name") in left
    assert ("mock-tools", "weather", "left out: the name is already taken by mock-tools") in left
    assert "查询" not in reg.tools["weather"].description  # the first server's (English) tool stayed


# -- the record -------------------------------------------------------------------------------------


def test_otel_execute_tool_spans_carry_the_server_and_import_back(bundled):
    from agent_core.otel import importing, mapping

    conn = bundled["en"]
    reg, _ = mc.registry([conn], enabled={conn.name: ["weather"]})
    config = ac.configure(pattern="react", max_reflection_rounds=0)
    result = ac.run("w?", config, ScriptedModel([say("", tool("weather", city="Beijing")), say("Sunny.")]), reg)
    spans = mapping.spans_of(result.events, "run-1", config.to_dict())
    tool_spans = [s for s in spans if s.name == "execute_tool weather"]
    assert tool_spans and tool_spans[0].attributes[mapping.MCP_SERVER] == "mock-tools"
    plain = [s for s in spans if s.name.startswith("chat")]
    assert all(mapping.MCP_SERVER not in s.attributes for s in plain)
    ((_id, back),) = importing.from_request(mapping.request_of(spans))
    assert {e.server for e in back.events if isinstance(e, (ev.ToolCallEvent, ev.ToolResult))} == {"mock-tools"}


def test_old_traces_without_a_server_still_load():
    old = {"kind": "tool_result", "t": 0.1, "name": "weather", "output": "x", "is_error": False, "call_id": "c"}
    assert ev.event_from_dict(old).server == ""
    with pytest.raises(ev.EventFormatError):
        ev.event_from_dict({**old, "server": 5})


# -- who may connect what ---------------------------------------------------------------------------


def test_a_participant_cannot_type_a_command_but_local_mode_can():
    with pytest.raises(McpError) as err:
        servers.typed_server("python -m mcp_server_time", secrets={}, environ={})
    assert err.value.reason == "refused" and "只有" not in err.value.message("en")
    assert "不允许" in err.value.message("zh")
    spec = servers.typed_server("python -m mcp_server_time", secrets={}, environ={servers.LOCAL_ENV: "1"})
    assert spec.command == ("python", "-m", "mcp_server_time")


def test_a_typed_url_follows_the_endpoint_rules_and_never_gets_the_operators_headers():
    sec = {
        "mcp_servers": [
            {
                "label": "docs",
                "url": "https://mcp.example.com/mcp",
                "headers": {"Authorization": "Bearer operator-secret"},
            }
        ]
    }
    typed = servers.typed_server("https://mcp.example.com/mcp", secrets=sec, environ={})
    assert typed.headers == {} and typed.url == "https://mcp.example.com/mcp"
    for bad in ("https://mcp.example.com@evil.example/mcp", "https://evil\\@x/mcp", "http://a b/mcp", "ftp://x/mcp"):
        with pytest.raises(McpError):
            servers.typed_server(bad, secrets=sec, environ={})
    locked = {**sec, "operator": {"lock_endpoints": True}}
    with pytest.raises(McpError) as err:
        servers.typed_server("https://mcp.example.com/mcp", secrets=locked, environ={})
    assert err.value.reason == "refused"
    (docs,) = servers.operator_servers(sec, {})
    assert docs.headers == {"Authorization": "Bearer operator-secret"} and "operator-secret" not in repr(docs)
    assert servers.header_values(sec, {}) == ["Bearer operator-secret"]


def test_the_operators_tables():
    sec = {
        "mcp_servers": [
            {"label": "time", "command": ["python", "-m", "mcp_server_time"], "env": {"TZ": "UTC"}},
            {"label": "git", "command": "python -m mcp_server_git --repository /tmp/r"},
            {"label": "docs", "url": "https://mcp.example.com/mcp", "headers_env": {"Authorization": "DOCS_AUTH"}},
            {"label": "broken", "url": "https://a@b/"},
            {"label": "empty"},
            "not a table",
        ]
    }
    got = {s.name: s for s in servers.operator_servers(sec, {"DOCS_AUTH": "Bearer e"})}
    assert set(got) == {"time", "git", "docs"}
    assert got["time"].env == {"TZ": "UTC"} and got["git"].command[-1] == "/tmp/r"
    assert got["docs"].headers == {"Authorization": "Bearer e"}


def test_a_shown_url_drops_user_info_and_query():
    assert mc.shown_url("https://u:p@h.example:8443/mcp?token=abc#x") == "https://h.example:8443/mcp"
