"""The CLI's MCP parts: `tools --mcp SERVER` and `run ... --mcp SERVER`, forks of such runs."""

from __future__ import annotations

import io
import json
import sys
from pathlib import Path

import pytest

pytest.importorskip("mcp")

from agent_core import cli
from agent_core.mcp import client as mc

ROOT = Path(__file__).resolve().parents[1]
FAULT = f"{sys.executable} {ROOT / 'tests' / 'mcp_fault_server.py'}"


def main(*argv: str) -> tuple[int, str]:
    out = io.StringIO()
    return cli.main(list(argv), out), out.getvalue()


@pytest.mark.parametrize("lang, says", [("en", "connected, 8 tools"), ("zh", "已连接，8 个工具")])
def test_tools_lists_the_bundled_servers_tools_with_parameters(lang, says):
    rc, text = main("tools", "--mcp", "bundled", "--lang", lang)
    assert rc == 0 and says in text and "  book_appointment(dentist_id: string, slot: string)" in text
    assert "  find_dentist(day?: string, time?: string)" in text
    assert not mc._OPEN


def test_tools_names_what_it_left_out_and_why():
    rc, text = main("tools", "--mcp", FAULT)
    assert rc == 0 and "left out 'bad_schema': its input schema is not a valid JSON Schema" in text
    assert "  echo(text?: string)" in text


def test_tools_as_json():
    rc, text = main("tools", "--mcp", "bundled", "--json")
    listed = json.loads(text)
    assert rc == 0 and {t["server"] for t in listed} == {"mock-tools"} and len(listed) == 8


def test_a_server_that_does_not_start_is_an_error_line_not_a_traceback(capsys):
    rc, _ = main("tools", "--mcp", "/nonexistent/mcp-server")
    assert rc == 2 and "error: the MCP server mcp-server did not start" in capsys.readouterr().err


def test_a_run_with_mcp_tools_records_them_and_a_fork_without_the_server_replays_them(tmp_path, capsys):
    first = tmp_path / "run.json"
    rc, text = main("run", "--scenario", "order-99999", "--mcp", "bundled", "--trace-out", str(first))
    assert rc == 0 and "query_order" in text and not mc._OPEN
    saved = json.loads(first.read_text())
    results = [e for e in saved["events"] if e["kind"] == "tool_result"]
    assert results and all(e["server"] == "mock-tools" for e in results)
    assert [t["name"] for t in saved["config"]["mcp_tools"]] == ["query_order"]
    calls = sum(e["kind"] == "llm_call" for e in saved["events"])
    forked = tmp_path / "fork.json"
    rc, _ = main("run", "--from-trace", str(first), "--fork-at", str(calls), "--trace-out", str(forked))
    assert rc == 0 and "not connected: mock-tools" in capsys.readouterr().err
    again = [e for e in json.loads(forked.read_text())["events"] if e["kind"] == "tool_result"]
    assert [(e["output"], e["server"]) for e in again] == [(e["output"], e["server"]) for e in results]


def test_two_servers_in_one_run(tmp_path):
    pytest.importorskip("mcp_server_time")
    rc, _text = main(
        "run",
        "--task",
        "What time is it in Tokyo?",
        "--pattern",
        "direct",
        "--mcp",
        "bundled",
        "--mcp",
        f"{sys.executable} -m mcp_server_time --local-timezone UTC",
    )
    assert rc == 0 and not mc._OPEN
