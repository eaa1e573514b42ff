"""OpenTelemetry out and in: every bundled run goes to OTLP/JSON and comes back the same; the
file is a valid ExportTraceServiceRequest with the documented span tree; other tools' spans map or are
listed; bad files get the upload's clear messages."""

import base64
import copy
import io
import json

import pytest

from agent_core import events as ev
from agent_core import examples, otel, trace
from agent_core.cli import main as cli_main
from agent_core.errors import TraceFormatError
from agent_core.otel import importing

BUNDLED = examples.available()


def spans_of(request):
    return [s for rs in request["resourceSpans"] for ss in rs["scopeSpans"] for s in ss["spans"]]


def attrs(item):
    return {a["key"]: next(iter(a["value"].values())) for a in item.get("attributes", [])}


@pytest.mark.parametrize("sid,lang,path", BUNDLED, ids=[f"{s}.{lang}" for s, lang, _ in BUNDLED])
def test_round_trip_gives_the_same_run(sid, lang, path):
    original = trace.loads(path.read_bytes())
    [(name, back)] = importing.loads(otel.dumps(original))
    assert name == f"invoke_agent {original.config['pattern']}"
    assert [e.kind for e in back.events] == [e.kind for e in original.events]
    verdicts = [
        (e.role, e.verdict, e.feedback, e.analysis, e.suggestion, e.parsed)
        for e in original.events
        if isinstance(e, ev.VerdictEvent)
    ]
    assert verdicts == [
        (e.role, e.verdict, e.feedback, e.analysis, e.suggestion, e.parsed)
        for e in back.events
        if isinstance(e, ev.VerdictEvent)
    ]
    assert [(e.version, e.text) for e in back.events if isinstance(e, ev.Draft)] == [
        (e.version, e.text) for e in original.events if isinstance(e, ev.Draft)
    ]
    assert back.result["final_answer"] == original.result["final_answer"] and back.result["final_answer"]
    # more than OTLP needs: every field of every event, the config and the run id come back
    assert [e.to_dict() for e in back.events] == [e.to_dict() for e in original.events]
    assert back.config == original.config and back.run_id == original.run_id and back.unmapped == []


def test_export_is_stable_and_ids_come_from_the_run_id():
    tr = examples.load("order-99999", "en")
    assert otel.dumps(tr) == otel.dumps(trace.loads(tr.dumps()))
    spans = spans_of(otel.export_request(tr))
    assert len({s["traceId"] for s in spans}) == 1 and len({s["spanId"] for s in spans}) == len(spans)
    other = trace.Trace(tr.config, tr.events, tr.result, run_id="another-run")
    assert spans_of(otel.export_request(other))[0]["traceId"] != spans[0]["traceId"]


def test_plan_execute_tree_reads_like_the_run():
    """order 99999: the plan's steps are parents of their chat and execute_tool spans; REPLAN, RETRY, PASS."""
    spans = spans_of(otel.export_request(examples.load("order-99999", "en")))
    by_id = {s["spanId"]: s for s in spans}
    [root] = [s for s in spans if "parentSpanId" not in s]
    assert root["name"] == "invoke_agent plan-execute"
    a = attrs(root)
    assert a["gen_ai.operation.name"] == "invoke_agent" and a["agent_patterns.pattern"] == "plan-execute"
    assert a["agent_patterns.task"] == "Has my order 99999 arrived yet?" and a["agent_patterns.end_reason"] == "pass"
    assert a["agent_patterns.limit.max_replans"] == "2" and a["agent_patterns.plan.revision"] == "1"
    steps = [s for s in spans if s["name"].startswith("step ")]
    assert [(s["name"], attrs(s)["agent_patterns.verdict"], attrs(s)["agent_patterns.status"]) for s in steps] == [
        ("step 1", "REPLAN", "failed"),
        ("step 4", "RETRY", "retried"),
        ("step 4", "PASS", "done"),
    ]
    assert steps[0]["status"]["code"] == 2
    [tool] = [s for s in spans if s["name"].startswith("execute_tool")]
    assert by_id[tool["parentSpanId"]] is steps[0]
    t = attrs(tool)
    assert t["gen_ai.tool.name"] == "query_order" and json.loads(t["gen_ai.tool.call.arguments"]) == {
        "order_id": "99999"
    }
    assert "syncing" in t["gen_ai.tool.call.result"]
    chats = [s for s in spans if s["name"].startswith("chat")]
    assert len(chats) == 9 and all(s["kind"] == 3 for s in chats)
    planner = attrs(chats[0])
    assert by_id[chats[0]["parentSpanId"]] is root and planner["agent_patterns.role"] == "planner"
    assert planner["gen_ai.operation.name"] == "chat" and planner["gen_ai.request.model"] == "offline-scripted"
    assert int(planner["gen_ai.usage.input_tokens"]) == 267 and int(planner["gen_ai.usage.output_tokens"]) == 108
    sent = json.loads(planner["gen_ai.input.messages"])
    assert [m["role"] for m in sent] == ["user"] and "99999" in sent[0]["parts"][0]["content"]
    [reply] = json.loads(planner["gen_ai.output.messages"])
    assert reply["role"] == "assistant" and reply["finish_reason"] == "stop" and "99999" in reply["parts"][0]["content"]
    for span in spans:  # children lie inside their parents
        if "parentSpanId" in span:
            parent = by_id[span["parentSpanId"]]
            assert int(parent["startTimeUnixNano"]) <= int(span["startTimeUnixNano"])
            assert int(span["endTimeUnixNano"]) <= int(parent["endTimeUnixNano"])


def test_reflection_iterations_carry_verdicts_and_draft_diffs():
    spans = spans_of(otel.export_request(examples.load("primes", "en")))
    iterations = [s for s in spans if s["name"].startswith("iteration ")]
    assert [s["name"] for s in iterations] == ["iteration 0", "iteration 1", "iteration 2"]
    drafts = [attrs(e) for s in iterations for e in s.get("events", []) if e["name"] == "agent_patterns.draft"]
    assert [d["agent_patterns.version"] for d in drafts] == ["0", "1"]
    assert "agent_patterns.diff.lines_added" not in drafts[0] and int(drafts[1]["agent_patterns.diff.lines_added"]) > 0
    verdicts = [attrs(e) for s in iterations for e in s.get("events", []) if e["name"] == "agent_patterns.verdict"]
    assert [(v["agent_patterns.verdict"], v["agent_patterns.parsed"]) for v in verdicts] == [
        ("REVISE", True),
        ("PASS", True),
    ]
    assert "Sieve" in verdicts[0]["agent_patterns.feedback"]


def test_limit_reached_is_an_event_and_a_root_attribute():
    spans = spans_of(otel.export_request(examples.load("weather-report", "en")))
    [root] = [s for s in spans if "parentSpanId" not in s]
    assert attrs(root)["agent_patterns.limit_reached"] == "max_reflection_rounds"
    assert any(e["name"] == "agent_patterns.limit_reached" for e in root["events"])


def test_a_failed_run_marks_its_root_span():
    events = [
        ev.RunStarted(pattern="react", task="x"),
        ev.RunFailed(t=0.5, error_type="auth_error", message="bad key"),
        ev.RunFinished(t=0.5, reason="error"),
    ]
    spans = spans_of(otel.export_request(trace.Trace.of({"pattern": "react"}, events, run_id="r1")))
    assert spans[-1]["status"] == {"code": 2, "message": "auth_error: bad key"}
    [(_, back)] = importing.loads(otel.dumps(trace.Trace.of({"pattern": "react"}, events, run_id="r1")))
    assert [e.kind for e in back.events] == ["run_started", "run_failed", "run_finished"]


def test_a_cut_run_exports_and_comes_back_cut():
    tr = examples.load("order-99999", "en")
    cut = trace.Trace.of(tr.config, tr.events[:6], run_id=tr.run_id)  # stops after the tool call
    assert cut.events[-1].kind == "tool_call"
    [(_, back)] = importing.loads(otel.dumps(cut))
    assert [e.kind for e in back.events] == [e.kind for e in cut.events]


# --- the protobuf schema (opentelemetry-proto is a test dependency only) ---------------------------


def test_export_parses_as_export_trace_service_request():
    json_format = pytest.importorskip(
        "google.protobuf.json_format", reason="protobuf not installed (pip install -r requirements-dev.txt)"
    )
    service = pytest.importorskip(
        "opentelemetry.proto.collector.trace.v1.trace_service_pb2",
        reason="opentelemetry-proto not installed (pip install -r requirements-dev.txt)",
    )
    request = otel.export_request(examples.load("airx-watchfit-order", "en"))
    # OTLP/JSON writes ids as hex where protobuf's own JSON mapping uses base64; convert, as receivers do
    as_proto_json = copy.deepcopy(request)
    for span in spans_of(as_proto_json):
        for key in ("traceId", "spanId", "parentSpanId"):
            if key in span:
                span[key] = base64.b64encode(bytes.fromhex(span[key])).decode()
    message = json_format.ParseDict(as_proto_json, service.ExportTraceServiceRequest())
    parsed = message.resource_spans[0].scope_spans[0].spans
    assert len(parsed) == len(spans_of(request))
    assert [s.span_id.hex() for s in parsed] == [s["spanId"] for s in spans_of(request)]
    assert len({s.trace_id.hex() for s in parsed}) == 1 and len(parsed[0].trace_id) == 16
    names = {s.name.split(" ")[0] for s in parsed}
    assert names == {"invoke_agent", "step", "chat", "execute_tool"}
    root = next(s for s in parsed if not s.parent_span_id)
    by_key = {a.key: a.value for a in root.attributes}
    assert by_key["gen_ai.operation.name"].string_value == "invoke_agent"
    assert by_key["agent_patterns.max_llm_calls"].int_value > 0
    assert message.resource_spans[0].scope_spans[0].scope.name == "agent_patterns"


# --- import from other tools ---------------------------------------------------------------------


def foreign_request():
    """Spans as another GenAI-instrumented app might send them (hex ids, int64 as strings)."""

    def kv(key, value):
        kind = "intValue" if isinstance(value, int) else "stringValue"
        return {"key": key, "value": {kind: str(value) if kind == "intValue" else value}}

    tid = "5b8efff798038103d269b633813fc60c"
    return {
        "resourceSpans": [
            {
                "resource": {"attributes": [kv("service.name", "their-agent")]},
                "scopeSpans": [
                    {
                        "scope": {"name": "their.instrumentation"},
                        "spans": [
                            {
                                "traceId": tid,
                                "spanId": "eee19b7ec3c1b174",
                                "name": "invoke_agent helper",
                                "kind": 1,
                                "startTimeUnixNano": "1700000000000000000",
                                "endTimeUnixNano": "1700000003000000000",
                                "attributes": [
                                    kv("gen_ai.operation.name", "invoke_agent"),
                                    kv("gen_ai.agent.name", "helper"),
                                ],
                            },
                            {
                                "traceId": tid,
                                "spanId": "eee19b7ec3c1b175",
                                "parentSpanId": "eee19b7ec3c1b174",
                                "name": "chat gpt-4o",
                                "kind": 3,
                                "startTimeUnixNano": "1700000000100000000",
                                "endTimeUnixNano": "1700000001100000000",
                                "attributes": [
                                    kv("gen_ai.operation.name", "chat"),
                                    kv("gen_ai.request.model", "gpt-4o"),
                                    kv("gen_ai.usage.input_tokens", 50),
                                    kv("gen_ai.usage.output_tokens", 7),
                                    {
                                        "key": "gen_ai.response.finish_reasons",
                                        "value": {"arrayValue": {"values": [{"stringValue": "tool_calls"}]}},
                                    },
                                    kv(
                                        "gen_ai.input.messages",
                                        json.dumps(
                                            [
                                                {
                                                    "role": "user",
                                                    "parts": [{"type": "text", "content": "Weather in Paris?"}],
                                                }
                                            ]
                                        ),
                                    ),
                                    kv(
                                        "gen_ai.output.messages",
                                        json.dumps(
                                            [
                                                {
                                                    "role": "assistant",
                                                    "parts": [
                                                        {
                                                            "type": "tool_call",
                                                            "id": "c1",
                                                            "name": "weather",
                                                            "arguments": {"city": "Paris"},
                                                        }
                                                    ],
                                                    "finish_reason": "tool_call",
                                                }
                                            ]
                                        ),
                                    ),
                                ],
                            },
                            {
                                "traceId": tid,
                                "spanId": "eee19b7ec3c1b176",
                                "parentSpanId": "eee19b7ec3c1b174",
                                "name": "execute_tool weather",
                                "startTimeUnixNano": "1700000001200000000",
                                "endTimeUnixNano": "1700000001300000000",
                                "attributes": [
                                    kv("gen_ai.operation.name", "execute_tool"),
                                    kv("gen_ai.tool.name", "weather"),
                                    kv("gen_ai.tool.call.arguments", '{"city": "Paris"}'),
                                    kv("gen_ai.tool.call.result", "sunny, 21 C"),
                                ],
                            },
                            {
                                "traceId": tid,
                                "spanId": "eee19b7ec3c1b177",
                                "parentSpanId": "eee19b7ec3c1b174",
                                "name": "GET /cache",
                                "startTimeUnixNano": "1700000001400000000",
                                "endTimeUnixNano": "1700000001500000000",
                                "attributes": [kv("http.request.method", "GET")],
                                "events": [{"name": "cache.miss", "timeUnixNano": "1700000001450000000"}],
                            },
                        ],
                    }
                ],
            }
        ]
    }


def test_other_tools_genai_spans_map_and_the_rest_is_listed():
    [(name, back)] = importing.loads(json.dumps(foreign_request()))
    assert name == "invoke_agent helper"
    assert [e.kind for e in back.events] == ["run_started", "llm_call", "tool_call", "tool_result", "run_finished"]
    call = back.events[1]
    assert (call.model, call.prompt_tokens, call.completion_tokens, call.finish_reason, call.latency_ms) == (
        "gpt-4o",
        50,
        7,
        "tool_calls",
        1000.0,
    )
    assert call.t == 1.1 and back.events[2].arguments == {"city": "Paris"} and back.events[3].output == "sunny, 21 C"
    from agent_core.calls import MessageTable

    table = MessageTable(back.events)
    assert [m["content"] for m in table.request(call)] == ["Weather in Paris?"]
    assert table.reply(call)["tool_calls"][0]["name"] == "weather"
    assert back.unmapped == ["GET /cache (span)", "cache.miss (event on GET /cache)"]
    assert back.config["pattern"] == "react" and back.config["models"] == {"default": "gpt-4o"}


@pytest.mark.parametrize(
    "data,message",
    [
        (b"not json", "not a JSON file"),
        (b'{"resourceSpans": {}}', "resourceSpans should be a list"),
        (b'{"resourceSpans": [{"scopeSpans": [{"spans": [{"name": "x"}]}]}]}', "needs traceId and spanId"),
        (
            b'{"resourceSpans": [{"scopeSpans": [{"spans": [{"traceId": "a", "spanId": "b", "startTimeUnixNano": "soon"}]}]}]}',
            "startTimeUnixNano should be a time",
        ),
        (b'{"resourceSpans": []}', "holds no spans"),
        (b'{"resourceSpans": [' + b"[" * 40 + b"]" * 40 + b"]}", "nested"),
        (b" " * (trace.MAX_BYTES + 1), "limited to 5 MB"),
    ],
)
def test_bad_files_get_a_clear_message(data, message):
    with pytest.raises(TraceFormatError, match=message):
        importing.loads(data)


def test_hostile_agent_patterns_attributes_are_refused_by_the_trace_checks():
    request = otel.export_request(examples.load("primes", "en"))
    for span in spans_of(request):
        for event in span.get("events", []):
            if event["name"] == "agent_patterns.verdict":
                for a in event["attributes"]:
                    if a["key"] == "agent_patterns.verdict":
                        a["value"] = {"stringValue": "MAYBE"}
    with pytest.raises(TraceFormatError, match="verdict must be one of"):
        importing.loads(json.dumps(request))


# --- the command line ----------------------------------------------------------------------------


def test_cli_export_writes_otlp_json_to_stdout(tmp_path):
    out = io.StringIO()
    path = examples.path_of("code-review", "en")
    assert cli_main(["export", "--otlp-json", str(path)], out=out) == 0
    assert json.loads(out.getvalue()) == otel.export_request(trace.loads(path.read_bytes()))
    out = io.StringIO()
    assert cli_main(["export", "--otlp-json", str(path), "--start-time", "2026-05-01T09:30:00+00:00"], out=out) == 0
    root = [s for s in spans_of(json.loads(out.getvalue())) if "parentSpanId" not in s][0]
    assert root["startTimeUnixNano"] == str(1_777_627_800 * 10**9)


def test_cli_export_refuses_bad_input(tmp_path, capsys):
    bad = tmp_path / "bad.json"
    bad.write_text("{}")
    assert cli_main(["export", "--otlp-json", str(bad)]) == 2
    assert "not a trace" in capsys.readouterr().err
    assert cli_main(["export", "--otlp-json", str(tmp_path / "missing.json")]) == 2
    assert "cannot read" in capsys.readouterr().err
