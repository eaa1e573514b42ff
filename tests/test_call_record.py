"""The call record: every model call's exact messages and raw reply, stored once per message.

A Prompt view is only honest if it shows what the model was really sent, so these tests compare the
record with the requests a scripted model actually received, call by call.
"""

import json

import agent_core as ac
from agent_core import events as ev
from agent_core import trace
from agent_core.calls import MessageTable, message_dict
from agent_core.offline import OfflineModel
from agent_core.testing import ScriptedModel, say, tool


def llm_calls(events):
    return [e for e in events if isinstance(e, ev.LlmCall)]


def test_the_record_holds_exactly_what_each_call_was_sent_and_replied():
    model = ScriptedModel([say("", tool("search", query="weather Beijing")), say("Sunny, 25 °C.")])
    config = ac.configure(pattern="react", tools=("search",))
    events = list(ac.stream("Weather in Beijing?", config, model))
    table = MessageTable(events)
    assert table.complete and len(table.calls) == 2
    for request, call in zip(model.requests, table.calls, strict=True):
        assert [message_dict(m) for m in request.messages] == [
            {k: v for k, v in m.items() if k not in ("id", "template", "edited", "fills")} for m in table.request(call)
        ]
        assert call.tools == ("search",)
    assert table.reply(table.calls[0])["tool_calls"][0]["name"] == "search"
    assert table.reply(table.calls[1])["content"] == "Sunny, 25 °C."
    assert [c.finish_reason for c in table.calls] == ["tool_calls", "stop"]


def test_a_history_resent_on_every_call_is_stored_once_and_referenced_as_one_range():
    rounds = 30
    model = ScriptedModel.forever(
        lambda r: say(
            f"round {len(r.messages)} thinking {len(r.messages) * 7}", tool("search", query=str(len(r.messages)))
        )
    )
    config = ac.configure(pattern="react", tools=("search",), max_rounds=rounds)
    events = list(ac.stream("Keep searching.", config, model))
    calls = llm_calls(events)
    assert len(calls) == rounds + 1  # the rounds, then one forced final answer
    assert all(len(c.messages) == 1 for c in calls), "an in-order history is a single id range"
    stored = sum(len(c.new_messages) for c in calls)
    sent = sum(len(r.messages) for r in model.requests)
    # each round adds its assistant reply and one tool result: linear, while re-sending is quadratic
    assert stored <= 3 * (rounds + 1) + 2 < sent / 10


def test_rendered_prompts_name_their_template_mark_edits_and_locate_filled_values():
    strict = 'Be strict. Review {draft} for {task}. Reply with JSON: {{"verdict": "PASS"}}'
    config, task = ac.for_scenario("primes", "en", prompts={"critic": strict})
    events = list(ac.stream(task, config, OfflineModel()))
    table = MessageTable(events)
    critic = next(c for c in table.calls if c.role == "critic")
    (sent,) = table.request(critic)
    assert sent["template"] == "critic" and sent["edited"] is True
    fills = {name: sent["content"][a:b] for name, a, b in sent["fills"]}
    assert fills["task"] == task
    assert fills["draft"].startswith("def find_primes")
    actor = table.request(table.calls[0])[0]
    assert actor["template"].startswith("initial") and actor["edited"] is False


def test_a_trace_round_trips_its_call_record_and_a_v1_trace_still_loads(tmp_path):
    config, task = ac.for_scenario("weather-report", "en")
    events = list(ac.stream(task, config, OfflineModel()))
    tr = trace.Trace.of(config.to_dict(), events)
    again = trace.loads(tr.dumps())
    assert again.version == trace.VERSION == 2 and again.run_id == tr.run_id
    assert MessageTable(again.events).messages == MessageTable(tr.events).messages
    assert [e for e in again.events] == [e for e in tr.events]

    v1 = json.loads(tr.dumps())
    v1["version"] = 1
    del v1["run_id"]
    for e in v1["events"]:
        if e["kind"] == "llm_call":
            for key in ("messages", "new_messages", "reply_message", "tools", "temperature", "finish_reason"):
                e.pop(key, None)
    old = trace.loads(json.dumps(v1))
    assert old.version == 1 and not MessageTable(old.events).complete
    assert old.result["final_answer"] == tr.result["final_answer"]


def test_a_key_inside_the_call_record_is_redacted_on_export():
    key = "sk-test-CALLRECORD-0123456789abcdef"
    model = ScriptedModel([say(f"my key is {key}")])
    config = ac.configure(pattern="react")
    events = list(ac.stream(f"Repeat {key}", config, model))
    assert any(key in json.dumps(e.to_dict()) for e in llm_calls(events))
    exported = trace.Trace.of(config.to_dict(), events).dumps(secrets=[key])
    assert key not in exported and key[8:] not in exported
