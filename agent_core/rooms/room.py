"""`Rooms`: the rules of a workshop room, on any RoomStore.

A trainer opens a room and gets its code (for everyone) and a secret (for their session only: it is
stored as its sha256 and every trainer call checks it). The trainer's current run streams into the
room as event dicts; participants who join read it from any index, so one who comes late catches up
at once. A poll belongs to one run and one call of it, and is open only while that run is the room's
and going on and the trainer is here. Everything a participant sends is untrusted and bounded.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import secrets
import time
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

from .. import events as ev
from ..untrusted import loads
from . import errors, inputs
from .bell import Bell
from .errors import RoomError
from .inputs import ALPHABET, CODE_LENGTH, normalise
from .store import RoomStore
from .values import Bounds, PollState, RoomInfo, Submission

__all__ = ["Bounds", "EventList", "PollState", "RoomError", "RoomInfo", "Rooms", "Submission", "typed_events"]

TITLE_CHARS = 80
#: tries at a fresh code before giving up: with 31⁶ codes and at most a few dozen rooms, one is enough
_CODE_TRIES = 32
_MEMBERS, _POLLS, _SUBMISSIONS = "members", "polls", "submissions"
#: what events() gives for a stored item that is not a JSON object: no event kind has this name
_UNREADABLE = {"kind": "unreadable"}


def _stream(run_id: str) -> str:
    return f"run:{run_id}"


def _votes(poll_id: str) -> str:
    return f"votes:{poll_id}"


def _digest(secret: str) -> str:
    return hashlib.sha256(secret.encode("utf-8", "surrogatepass")).hexdigest()


def _number(text: str | None) -> float:
    try:
        return float(text) if text else 0.0
    except ValueError:
        return 0.0


def _object(text: str | None) -> dict[str, Any] | None:
    """A JSON object read back from the store (shared state: anything else is None, never an error)."""
    if not text:
        return None
    try:
        value = loads(text)
    except ValueError:
        return None
    return value if isinstance(value, dict) else None


class EventList(list[ev.Event]):
    """Typed events, and how many of the dicts they came from were skipped as malformed."""

    skipped: int = 0


def typed_events(dicts: Iterable[object]) -> EventList:
    """Rebuild events from a room's dicts, skipping (and counting) any that is not a valid event: a
    shared store is shared state, and one bad entry must not blank every participant's screen."""
    out = EventList()
    for item in dicts:
        try:
            out.append(ev.event_from_dict(item))  # type: ignore[arg-type]  # (a non-dict is refused in there)
        except (ev.EventFormatError, TypeError, ValueError):
            out.skipped += 1
    return out


class Rooms:
    """The rooms of one server (or of every server sharing `store`)."""

    def __init__(self, store: RoomStore, bounds: Bounds | None = None, clock: Callable[[], float] = time.time) -> None:
        self.store = store
        self.bounds = bounds if bounds is not None else Bounds()
        self.clock = clock
        #: rung by every write a seat draws (the run, its events and pause, polls, votes) made here
        self.bell = Bell()

    # --- anyone -----------------------------------------------------------------------------------

    def open(self, title: str = "") -> tuple[str, str]:
        """A new room: (its code, the trainer's secret). The secret is shown to nobody: keep it in the
        trainer's session only."""
        limit = self.bounds.rooms
        if self.store.count_rooms() >= limit:
            raise errors.too_many_rooms(limit)
        secret = secrets.token_urlsafe(24)
        now = repr(self.clock())
        meta = {
            "title": inputs.clean_name(title, TITLE_CHARS),
            "created": now,
            "touched": now,
            "heartbeat": now,
            "secret": _digest(secret),
            "run": "",
            "run_ended": "",
            "run_bytes": "0",
            "pause": "",
            "poll": "",
        }
        for _ in range(_CODE_TRIES):
            code = "".join(secrets.choice(ALPHABET) for _ in range(CODE_LENGTH))
            if self.store.create(code, meta, self.bounds.ttl_s, max_rooms=limit):
                return code, secret
            if self.store.count_rooms() >= limit:
                raise errors.too_many_rooms(limit)
        raise errors.too_many_rooms(limit)  # pragma: no cover - 32 collisions in a row

    @staticmethod
    def normalise(code_typed: object) -> str | None:
        """A room code from what a person typed (" ab-c23 " -> "ABC23…"), or None."""
        return normalise(code_typed)

    def info(self, code: str) -> RoomInfo | None:
        """What anyone with the code may know of the room; None when there is none."""
        found = self._find(code)
        if found is None:
            return None
        code, meta = found
        return RoomInfo(
            code=code,
            title=meta.get("title", ""),
            created=_number(meta.get("created")),
            expires=_number(meta.get("touched")) + self.bounds.ttl_s,
            participants=self.store.count(code, _MEMBERS),
            trainer_here=self._here(meta),
        )

    def join(self, code: str, participant: str, name: str = "") -> None:
        """Join (or rename oneself in) the room; raises RoomError when there is none, it is full, or
        the id is not one a session makes."""
        code, meta = self._room(code)
        participant = inputs.participant_id(participant)
        if self._is_secret(meta, participant):
            # the trainer's secret as a participant id would be stored in the clear, for the trainer's
            # page to show: never
            raise errors.not_trainer()
        if not self.store.put(
            code, _MEMBERS, participant, inputs.clean_name(name, self.bounds.name_chars), self.bounds.participants
        ):
            raise self._gone_or(code, errors.full("participants", self.bounds.participants))

    def is_trainer(self, code: str, secret: object) -> bool:
        found = self._find(code)
        return found is not None and self._is_secret(found[1], secret)

    # --- the trainer -------------------------------------------------------------------------------

    def heartbeat(self, code: str, secret: str) -> None:
        """The trainer is here: polls stay open, and the room lives ttl_s from now."""
        code, _ = self._trainer(code, secret)
        now = repr(self.clock())
        self.store.set_meta(code, "heartbeat", now)
        self.store.set_meta(code, "touched", now)
        self.store.touch(code, self.bounds.ttl_s)

    def close(self, code: str, secret: str) -> None:
        code, _ = self._trainer(code, secret)
        self.store.delete(code)
        self.bell.forget(code)

    def members(self, code: str, secret: str) -> list[str]:
        """The participants' names, in no particular order (untrusted text: escape where drawn)."""
        code, _ = self._trainer(code, secret)
        return list(self.store.table(code, _MEMBERS).values())

    def start_run(self, code: str, secret: str, run: Mapping[str, Any]) -> None:
        """`run` ({"run_id", "task", "config", "models", "bound", optional "fork"}) is the room's current
        run now: its events stream starts empty, the previous run's is dropped, an open poll closes."""
        code, meta = self._trainer(code, secret)
        if not isinstance(run, Mapping):
            raise errors.invalid("A run is an object with a run_id.", "运行须为含 run_id 的对象。")
        run_id = inputs.run_id(run.get("run_id"))
        text = inputs.json_text(dict(run))
        if text is None:
            raise errors.invalid("A run must be JSON data.", "运行须为 JSON 数据。")
        if inputs.size(text) > self.bounds.run_bytes:
            raise errors.full("bytes", self.bounds.run_bytes)
        self._close_open_poll(code, meta)
        previous = self._run_id(meta)
        if previous:
            self.store.drop(code, _stream(previous))
        self.store.drop(code, _stream(run_id))
        self.store.set_meta(code, "pause", "")
        self.store.set_meta(code, "run_bytes", "0")
        self.store.set_meta(code, "run_ended", "")
        if not self.store.set_meta(code, "run", text):
            raise errors.no_room()
        self.bell.ring(code)

    def publish(self, code: str, secret: str, run_id: str, events: Sequence[Mapping[str, Any]]) -> int:
        """Append event dicts (Event.to_dict()) to the current run's stream, in order; how many were
        kept. Ignored (0) for a run that is not the room's current one or has ended. Past the run's
        bounds what fits is kept and RoomError("full") says which bound was met."""
        code, meta = self._trainer(code, secret)
        if not self._current(meta, run_id):
            return 0
        items = []
        for event in events:
            text = inputs.json_text(dict(event)) if isinstance(event, Mapping) else None
            if text is None:
                raise errors.invalid("An event must be a JSON object.", "事件须为 JSON 对象。")
            items.append(text)
        used, budget = int(_number(meta.get("run_bytes"))), self.bounds.run_bytes
        fits = 0
        for text in items:
            if used + inputs.size(text) > budget:
                break
            used += inputs.size(text)
            fits += 1
        kept = self.store.extend(code, _stream(run_id), items[:fits], self.bounds.events_per_run) if fits else 0
        if kept is None:
            raise errors.no_room()
        self.store.set_meta(code, "run_bytes", str(used))
        if kept:
            self.bell.ring(code)
        if fits < len(items):
            raise errors.full("bytes", budget)
        if kept < fits:
            raise errors.full("events", self.bounds.events_per_run)
        return kept

    def set_pause(self, code: str, secret: str, run_id: str, pause: Mapping[str, Any] | None) -> None:
        """Where the current run waits ({"at", "role", "call", "messages": [{"role", "content"}…]}), or
        None when it goes on. Ignored for a run that is not current."""
        code, meta = self._trainer(code, secret)
        if not self._current(meta, run_id):
            return
        text = ""
        if pause is not None:
            text = (inputs.json_text(dict(pause)) if isinstance(pause, Mapping) else None) or ""
            if not text:
                raise errors.invalid("A pause must be a JSON object.", "暂停须为 JSON 对象。")
            if inputs.size(text) > self.bounds.run_bytes:
                raise errors.full("bytes", self.bounds.run_bytes)
        self.store.set_meta(code, "pause", text)
        self.bell.ring(code)

    def end_run(self, code: str, secret: str, run_id: str) -> None:
        """The run ended (any reason): it stays on screen, its pause goes, an open poll closes unanswered."""
        code, meta = self._trainer(code, secret)
        if self._run_id(meta) != run_id:
            return
        self._close_open_poll(code, meta)
        self.store.set_meta(code, "pause", "")
        self.store.set_meta(code, "run_ended", "1")
        self.bell.ring(code)

    def open_poll(self, code: str, secret: str, run_id: str, call: int, role: str, choices: Sequence[str]) -> PollState:
        """Ask the room about call `call` (made in `role`) of the current run. One poll is open at a
        time: a poll still open closes first."""
        code, meta = self._trainer(code, secret)
        if not self._current(meta, run_id):
            raise errors.invalid(
                "That run is not the room's current run, or it has ended.", "该运行不是房间当前的运行，或已结束。"
            )
        if isinstance(call, bool) or not isinstance(call, int) or call < 0:
            raise errors.invalid("A poll's call is a call number.", "投票的调用须为调用序号。")
        if not isinstance(role, str) or not ev.ROLE_NAME.fullmatch(role):
            raise errors.invalid("A poll's role is a role's name.", "投票的角色须为角色名。")
        offered = inputs.choices(choices)
        self._close_open_poll(code, meta)
        poll_id = "p" + secrets.token_hex(8)
        record = {
            "id": poll_id,
            "run_id": run_id,
            "call": call,
            "role": role,
            "choices": list(offered),
            "closed": False,
            "answer": None,
        }
        if not self.store.put(code, _POLLS, poll_id, json.dumps(record), self.bounds.polls):
            raise self._gone_or(code, errors.full("polls", self.bounds.polls))
        self.store.set_meta(code, "poll", poll_id)
        self.bell.ring(code)
        state = self._state(code, record, self.store.meta(code) or meta)
        assert state is not None
        return state

    def close_poll(self, code: str, secret: str, poll_id: str) -> None:
        """Voting ends (the run resumed, stepped or stopped)."""
        code, _ = self._trainer(code, secret)
        self._update_poll(code, poll_id, closed=True)

    def reveal(self, code: str, secret: str, poll_id: str, answer: str) -> None:
        """The real verdict, shown to the room (voting ends with it)."""
        code, _ = self._trainer(code, secret)
        shown = inputs.clean_name(answer, inputs.CHOICE_CHARS)
        if not shown:
            raise errors.invalid("A poll's answer is a short text.", "投票的答案须为简短文本。")
        self._update_poll(code, poll_id, closed=True, answer=shown)

    def submissions(self, code: str, secret: str) -> list[Submission]:
        """What participants sent, oldest first (untrusted: escape every text where drawn)."""
        code, _ = self._trainer(code, secret)
        return [s for i, text in enumerate(self.store.read(code, _SUBMISSIONS)) if (s := _submission(i, text))]

    # --- a participant -----------------------------------------------------------------------------

    def run(self, code: str) -> dict[str, Any] | None:
        """The room's current run as the trainer started it, with "ended"; None: no run, or no room."""
        found = self._find(code)
        if found is None:
            return None
        run = _object(found[1].get("run"))
        if run is None or not isinstance(run.get("run_id"), str):
            return None
        return {**run, "ended": bool(found[1].get("run_ended"))}

    def events(self, code: str, run_id: str, start: int = 0) -> list[dict[str, Any]]:
        """The run's event dicts from index `start` ([] when there are none); rebuild with typed_events.
        Every stored item gives one dict, so `start + len(result)` is where the next read begins."""
        found = self._find(code)
        if found is None or not isinstance(run_id, str) or not isinstance(start, int):
            return []
        try:
            inputs.run_id(run_id)
        except RoomError:
            return []
        # one dict per stored item, so a reader's next start is its count so far; an item that is not a
        # JSON object (shared state) reads as an event of no known kind, which typed_events skips
        return [_object(text) or dict(_UNREADABLE) for text in self.store.read(found[0], _stream(run_id), start)]

    def pause(self, code: str) -> dict[str, Any] | None:
        """Where the current run waits, or None."""
        found = self._find(code)
        return _object(found[1].get("pause")) if found is not None else None

    def poll(self, code: str) -> PollState | None:
        """The room's latest poll (open or not), or None."""
        found = self._find(code)
        if found is None:
            return None
        code, meta = found
        poll_id = meta.get("poll", "")
        return self._state(code, _object(self.store.get(code, _POLLS, poll_id)), meta) if poll_id else None

    def voted(self, code: str, participant: str, poll_id: str) -> str | None:
        """This participant's choice in that poll, or None."""
        found = self._find(code)
        if found is None or not isinstance(participant, str) or not isinstance(poll_id, str):
            return None
        if self.store.get(found[0], _POLLS, poll_id) is None:
            return None
        return self.store.get(found[0], _votes(poll_id), participant)

    def vote(self, code: str, participant: str, poll_id: str, choice: str) -> None:
        """A joined participant's vote; again replaces it. Only while the poll is open, only a listed choice."""
        code, meta = self._room(code)
        participant = self._member(code, participant)
        record = _object(self.store.get(code, _POLLS, poll_id)) if isinstance(poll_id, str) else None
        state = self._state(code, record, meta)
        if state is None or not state.is_open:
            raise errors.closed()
        if not isinstance(choice, str) or choice not in state.choices:
            raise errors.bad_choice()
        if not self.store.put(code, _votes(state.id), participant, choice, self.bounds.participants):
            raise self._gone_or(code, errors.full("votes", self.bounds.participants))
        # no bell: a vote moves only tallies, which waiters redraw at their next timed look; a bell here
        # woke every seat of the room at every vote (40 looks a vote in a room of 40)

    def submit(self, code: str, participant: str, name: str, payload: Mapping[str, Any]) -> Submission:
        """Send the trainer a prompt variant or a fork: {"config": {...}, "task": str, "note": str}."""
        code, _ = self._room(code)
        participant = self._member(code, participant)
        data, _text = inputs.payload(payload, self.bounds.submission_bytes)
        sent = [s for i, t in enumerate(self.store.read(code, _SUBMISSIONS)) if (s := _submission(i, t))]
        if sum(s.participant == participant for s in sent) >= self.bounds.submissions_each:
            raise errors.submissions_each(self.bounds.submissions_each)
        shown = inputs.clean_name(name, self.bounds.name_chars) or self.store.get(code, _MEMBERS, participant) or ""
        at = self.clock()
        record = {"participant": participant, "name": shown, "payload": data, "at": at}
        index = self.store.push(code, _SUBMISSIONS, json.dumps(record, ensure_ascii=False), self.bounds.submissions)
        if index is None:
            raise self._gone_or(code, errors.full("submissions", self.bounds.submissions))
        return Submission(id=str(index), participant=participant, name=shown, payload=data, at=at)

    # --- inside ------------------------------------------------------------------------------------

    def _find(self, code: object) -> tuple[str, dict[str, str]] | None:
        normal = normalise(code)
        meta = self.store.meta(normal) if normal is not None else None
        return (normal, meta) if normal is not None and meta is not None else None

    def _room(self, code: object) -> tuple[str, dict[str, str]]:
        found = self._find(code)
        if found is None:
            raise errors.no_room()
        return found

    def _trainer(self, code: object, secret: object) -> tuple[str, dict[str, str]]:
        code, meta = self._room(code)
        if not self._is_secret(meta, secret):
            raise errors.not_trainer()
        return code, meta

    @staticmethod
    def _is_secret(meta: Mapping[str, str], secret: object) -> bool:
        if not isinstance(secret, str) or not 0 < len(secret) <= 256:
            return False
        return hmac.compare_digest(_digest(secret), meta.get("secret", ""))

    def _member(self, code: str, participant: object) -> str:
        participant = inputs.participant_id(participant)
        if self.store.get(code, _MEMBERS, participant) is None:
            raise errors.not_joined()
        return participant

    def _gone_or(self, code: str, error: RoomError) -> RoomError:
        """A refused write: the room expired meanwhile, or `error` (a bound was met)."""
        return error if self.store.meta(code) is not None else errors.no_room()

    def _here(self, meta: Mapping[str, str]) -> bool:
        return self.clock() - _number(meta.get("heartbeat")) <= self.bounds.presence_s

    @staticmethod
    def _run_id(meta: Mapping[str, str]) -> str:
        run = _object(meta.get("run"))
        run_id = run.get("run_id") if run is not None else None
        return run_id if isinstance(run_id, str) else ""

    def _current(self, meta: Mapping[str, str], run_id: object) -> bool:
        """`run_id` is the room's current run and it has not ended."""
        return isinstance(run_id, str) and bool(run_id) and self._run_id(meta) == run_id and not meta.get("run_ended")

    def _state(self, code: str, record: dict[str, Any] | None, meta: Mapping[str, str]) -> PollState | None:
        """A poll's state from its stored record and votes; None for a record that is not a poll's."""
        if record is None:
            return None
        poll_id, run_id, call, role = record.get("id"), record.get("run_id"), record.get("call"), record.get("role")
        offered = record.get("choices")
        answer = record.get("answer")
        if not (
            isinstance(poll_id, str)
            and isinstance(run_id, str)
            and isinstance(call, int)
            and isinstance(role, str)
            and isinstance(offered, list)
            and all(isinstance(c, str) for c in offered)
        ):
            return None
        choices = tuple(offered)
        tally: Counter[str] = Counter(v for v in self.store.table(code, _votes(poll_id)).values() if v in choices)
        closed = bool(record.get("closed"))
        return PollState(
            id=poll_id,
            run_id=run_id,
            call=call,
            role=role,
            choices=choices,
            tally=tally,
            voters=sum(tally.values()),
            is_open=not closed and self._current(meta, run_id) and self._here(meta),
            answer=answer if isinstance(answer, str) else None,
            closed=closed,
        )

    def _update_poll(self, code: str, poll_id: object, **changes: Any) -> None:
        record = _object(self.store.get(code, _POLLS, poll_id)) if isinstance(poll_id, str) else None
        if record is None:
            raise errors.closed()
        record.update(changes)
        if not self.store.put(code, _POLLS, str(poll_id), json.dumps(record), self.bounds.polls):
            raise errors.no_room()
        self.bell.ring(code)

    def _close_open_poll(self, code: str, meta: Mapping[str, str]) -> None:
        poll_id = meta.get("poll", "")
        record = _object(self.store.get(code, _POLLS, poll_id)) if poll_id else None
        if record is not None and not record.get("closed"):
            self._update_poll(code, poll_id, closed=True)


def _submission(index: int, text: str) -> Submission | None:
    record = _object(text)
    if record is None:
        return None
    participant, name, payload, at = (record.get(k) for k in ("participant", "name", "payload", "at"))
    if not (
        isinstance(participant, str)
        and isinstance(name, str)
        and isinstance(payload, dict)
        and isinstance(at, (int, float))
    ):
        return None
    return Submission(id=str(index), participant=participant, name=name, payload=payload, at=float(at))
