"""A Streamlit session without a browser: the app's own websocket protocol, spoken from Python.

A browser tab costs a Chromium renderer (layout, React, painting); thirty of them on the server's
own two cores measure the box, not the server. A `Session` opens /_stcore/stream as the frontend
does, sends the same BackMsg protobufs (rerun a page, click a button, type into a box) and reads
every ForwardMsg the server sends, keeping what a page would show: widget ids by key, container
keys, and the text of every markdown/text/code element. It never lays anything out, so thirty of
them cost the machine little beyond the server they load.

    async with Session(url) as s:
        await s.open("learn")
        await s.click("learn_open_reflection")
        await s.wait_for(lambda s: "pg_run" in s.widgets)

`Session(url, timers=True)` also does what a browser does for `st.fragment(run_every=...)`: it asks
the server for each such fragment every interval, so live views, polls and heartbeats go on while the
visitor does nothing. `showing(key)` says whether the page, as its latest runs left it, still shows a
keyed box or widget (something a fragment stopped drawing is gone).
"""

from __future__ import annotations

import asyncio
import http.client
import re
import time
import urllib.request
import uuid
from collections.abc import Callable, Iterable
from urllib.parse import urlsplit

import websockets
from streamlit.proto.BackMsg_pb2 import BackMsg
from streamlit.proto.ForwardMsg_pb2 import ForwardMsg

FINISHED = {ForwardMsg.FINISHED_SUCCESSFULLY, ForwardMsg.FINISHED_FRAGMENT_RUN_SUCCESSFULLY}
#: element types whose body is text a reader sees
_TEXT_FIELDS = {
    "markdown": "body",
    "text": "body",
    "code": "code_text",
    "heading": "body",
    "alert": "body",
    "caption": "body",
}


class Session:
    """One browser-less visitor. Every received message is parsed; the state below is what it saw."""

    def __init__(self, url: str, *, timers: bool = False) -> None:
        self.url = url.replace("http://", "ws://").rstrip("/") + "/_stcore/stream"
        self.timers = timers  # run the fragments' run_every timers, as the frontend does
        self.query = ""  # the address's query string (`?room=CODE` without the "?"), sent with every run
        self.widgets: dict[str, str] = {}  # user key -> widget id
        self.blocks: set[str] = set()  # keys of keyed containers (.st-key-… in the browser)
        self.texts: list[str] = []  # every text body received, in order
        self.page = ""  # the url path of the page being shown
        self.session_id = ""  # the server's id of this session (uploads are addressed to it)
        self.page_hash = ""
        self.messages = 0
        self.bytes = 0
        self.runs_finished = 0  # whole-page script runs finished
        self.fragment_runs = 0  # fragment runs finished (only the timers ask for them)
        #: fragment id ("" for the page outside fragments) -> the keys its latest finished run drew
        self.shown: dict[str, set[str]] = {}
        self._drawing: dict[str, set[str]] = {}  # the same, for the script run under way
        #: a whole-page run under way: where on the page (delta path) each keyed box and widget it drew is.
        #: A page that follows something in one long script run (a seat of a room) never finishes a
        #: run, so what it shows is what that run drew and has not since replaced (an empty slot, a
        #: new box in the same place); None while no whole-page run is under way
        self._placed: dict[tuple[int, ...], str] | None = None
        self._path: tuple[int, ...] = ()  # the delta path of the message being read
        self._run_fragments: tuple[str, ...] = ()  # the fragments the run under way reruns (none: the page)
        self._ticking: dict[str, tuple[float, asyncio.Task]] = {}  # fragment id -> (interval, its timer)
        self._sent_after = 0  # runs_finished when the last rerun was asked for
        self.closed = False  # the server ended the connection
        self._ws = None
        self._reader: asyncio.Task | None = None
        self._changed = asyncio.Event()

    async def __aenter__(self) -> Session:
        self._ws = await websockets.connect(
            self.url, subprotocols=["streamlit"], max_size=None, ping_interval=None, open_timeout=300, close_timeout=1
        )
        self._reader = asyncio.create_task(self._read())
        return self

    async def __aexit__(self, *exc: object) -> None:
        self._stop_ticking()
        if self._reader is not None:
            self._reader.cancel()
        await self._ws.close()

    # --- what a visitor does ----------------------------------------------------------------------
    async def open(self, page: str, query: str = "") -> None:
        """Load a page (its url path, e.g. "learn"), as typing its address does; `query` is the
        address's query string without its "?" (e.g. "room=ABC234")."""
        self.page, self.page_hash, self.query = page, "", query
        self._stop_ticking()  # a new page: the frontend drops every fragment's timer
        await self._rerun()

    def showing(self, key: str) -> bool:
        """Whether the page shows the keyed box or widget `key`: as the whole-page run under way has
        drawn it so far, else as its latest finished run drew it (and fragments theirs)."""
        if self._placed:
            return key in self._placed.values() or any(key in keys for f, keys in self.shown.items() if f)
        return any(key in keys for keys in self.shown.values())

    def showing_nth(self, key: str) -> bool:
        """Whether the page shows `key` or a later one of its kind (`key-2`, `key-3`…: a script run that
        draws a box again in the same run keys each anew)."""
        pattern = re.compile(re.escape(key) + r"(-\d+)?")
        boxes = self._placed.values() if self._placed else set().union(*self.shown.values())
        return any(pattern.fullmatch(k) for k in boxes)

    async def click(self, key: str) -> None:
        await self._rerun(widget=(key, "trigger_value", True))

    async def type(self, key: str, value: str) -> None:
        """Type into a text input or area and leave it (the value is sent with a rerun)."""
        await self._rerun(widget=(key, "string_value", value))

    async def toggle(self, key: str, value: bool) -> None:
        """Switch a toggle or checkbox on or off (the value is sent with a rerun)."""
        await self._rerun(widget=(key, "bool_value", value))

    async def choose(self, key: str, label: str, *, many: bool = False) -> None:
        """Pick an option of a radio or selectbox (`many`: a segmented control or multiselect) by the
        label it shows: widgets send their formatted option."""
        if many:
            msg = BackMsg()
            state = msg.rerun_script
            state.page_name, state.page_script_hash, state.query_string = self.page, self.page_hash, self.query
            proto = state.widget_states.widgets.add()
            proto.id = self.widgets[key]
            proto.string_array_value.data.append(label)
            self._sent_after = self.runs_finished
            await self._ws.send(msg.SerializeToString())
        else:
            await self._rerun(widget=(key, "string_value", label))

    async def upload(self, key: str, name: str, data: bytes) -> int:
        """Drop a file on the file uploader `key`, as the frontend does: a multipart PUT of its bytes to
        /_stcore/upload_file/<session>/<file> (with the XSRF cookie and header), then a rerun whose
        widget state names the file. The PUT's HTTP status."""
        file_id = uuid.uuid4().hex
        status = await asyncio.to_thread(_put_file, self.url, self.session_id, file_id, name, data)
        msg = BackMsg()
        state = msg.rerun_script
        state.page_name, state.page_script_hash, state.query_string = self.page, self.page_hash, self.query
        proto = state.widget_states.widgets.add()
        proto.id = self.widgets[key]
        info = proto.file_uploader_state_value.uploaded_file_info.add()
        info.file_id, info.name, info.size = file_id, name, len(data)
        info.file_urls.file_id = file_id
        info.file_urls.upload_url = f"/_stcore/upload_file/{self.session_id}/{file_id}"
        info.file_urls.delete_url = info.file_urls.upload_url
        self._sent_after = self.runs_finished
        await self._ws.send(msg.SerializeToString())
        return status

    async def wait_for(self, seen: Callable[[Session], bool], timeout: float = 300.0) -> float:
        """Wait until `seen(self)` holds; returns the seconds it took."""
        began = time.perf_counter()
        async with asyncio.timeout(timeout):
            while not seen(self):
                if self.closed:
                    raise ConnectionError(f"the server closed the session on page {self.page!r}")
                self._changed.clear()
                await self._changed.wait()
        return time.perf_counter() - began

    async def settled(self, timeout: float = 300.0) -> float:
        """Wait until the script run the last action caused has finished."""
        return await self.wait_for(lambda s: s.runs_finished > s._sent_after, timeout)

    def saw(self, needle: str) -> bool:
        return any(needle in body for body in self.texts)

    # --- the protocol -----------------------------------------------------------------------------
    async def _rerun(self, widget: tuple[str, str, object] | None = None) -> None:
        msg = BackMsg()
        state = msg.rerun_script
        state.page_name, state.page_script_hash, state.query_string = self.page, self.page_hash, self.query
        if widget is not None:
            key, field, value = widget
            proto = state.widget_states.widgets.add()
            proto.id = self.widgets[key]
            setattr(proto, field, value)
        self._sent_after = self.runs_finished
        await self._ws.send(msg.SerializeToString())

    async def _read(self) -> None:
        try:
            await self._receive()
        finally:
            self.closed = True
            self._changed.set()

    async def _receive(self) -> None:
        async for data in self._ws:
            self.messages += 1
            self.bytes += len(data)
            msg = ForwardMsg()
            msg.ParseFromString(data)
            kind = msg.WhichOneof("type")
            if kind == "delta":
                self._path = tuple(msg.metadata.delta_path)
                self._delta(msg.delta)
            elif kind == "script_finished" and msg.script_finished in FINISHED:
                self._finished(msg.script_finished)
            elif kind == "navigation":
                self._navigated(msg.navigation)
            elif kind == "new_session":
                self.session_id = msg.new_session.initialize.session_id
                self._run_fragments, self._drawing = tuple(msg.metadata.run.fragment_ids), {}
                self._placed = None if self._run_fragments else {}
                if not self._run_fragments:
                    self._stop_ticking()  # a whole-page run declares its fragments' timers again
            elif kind == "auto_rerun" and self.timers:
                self._tick_every(msg.auto_rerun.fragment_id, msg.auto_rerun.interval)
            elif kind == "stop_auto_rerun":
                self._stop_ticking(msg.stop_auto_rerun.fragment_ids)
            self._changed.set()

    def _finished(self, how: int) -> None:
        if how == ForwardMsg.FINISHED_SUCCESSFULLY:
            self.runs_finished += 1
            self.shown = self._drawing
            self._placed = None
        else:  # a fragment's run redraws that fragment only
            self.fragment_runs += 1
            for fragment in self._run_fragments:
                self.shown[fragment] = self._drawing.get(fragment, set())
        self._drawing = {}

    def _tick_every(self, fragment: str, interval: float) -> None:
        """The frontend's timer for a fragment with run_every (a new interval replaces the old one)."""
        old = self._ticking.get(fragment)
        if not fragment or (old is not None and old[0] == interval):
            return
        self._stop_ticking([fragment])
        self._ticking[fragment] = (interval, asyncio.create_task(self._tick(fragment, interval)))

    async def _tick(self, fragment: str, interval: float) -> None:
        while not self.closed:
            await asyncio.sleep(interval)
            msg = BackMsg()
            state = msg.rerun_script
            state.page_name, state.page_script_hash, state.query_string = self.page, self.page_hash, self.query
            state.fragment_id, state.is_auto_rerun = fragment, True
            try:
                await self._ws.send(msg.SerializeToString())
            except websockets.ConnectionClosed:
                return

    def _stop_ticking(self, fragments: Iterable[str] | None = None) -> None:
        for fragment in list(self._ticking if fragments is None else fragments):
            entry = self._ticking.pop(fragment, None)
            if entry is not None:
                entry[1].cancel()

    def _place(self, key: str | None) -> None:
        """A whole-page run drew at self._path: what was there (and inside it) is replaced."""
        placed, path = self._placed, self._path
        if placed is None or not path:
            return
        for old in [p for p in placed if p[: len(path)] == path]:
            del placed[old]
        if key is not None:
            placed[path] = key

    def _delta(self, delta) -> None:  # noqa: ANN001 (protobuf)
        which = delta.WhichOneof("type")
        drawn = self._drawing.setdefault(delta.fragment_id, set())
        if which == "add_block":
            key = delta.add_block.id.split("-", 2)[2] if delta.add_block.id.startswith("$$ID-") else None
            if key is not None:
                self.blocks.add(key)
                drawn.add(key)
            if not delta.fragment_id:
                self._place(key)
            return
        if which != "new_element":
            return
        element_type = delta.new_element.WhichOneof("type")
        if element_type is None:
            return
        element = getattr(delta.new_element, element_type)
        key = None
        if element_type in _TEXT_FIELDS:
            self.texts.append(getattr(element, _TEXT_FIELDS[element_type]))
        elif "id" in element.DESCRIPTOR.fields_by_name and element.id.startswith("$$ID-"):
            key = element.id.split("-", 2)[2]
            if key != "None":
                self.widgets[key] = element.id
                drawn.add(key)
            else:
                key = None
        if not delta.fragment_id:
            self._place(key)

    def _navigated(self, nav) -> None:  # noqa: ANN001 (protobuf)
        self.page_hash = nav.page_script_hash
        for page in nav.app_pages:
            if page.page_script_hash == nav.page_script_hash:
                self.page = page.url_pathname


def _put_file(ws_url: str, session_id: str, file_id: str, name: str, data: bytes) -> int:
    parts = urlsplit(ws_url.replace("ws://", "http://"))
    base = f"http://{parts.hostname}:{parts.port}"
    with urllib.request.urlopen(base + "/_stcore/health", timeout=60) as response:  # the page's XSRF cookie
        cookies = [h.partition("=") for h in response.headers.get_all("Set-Cookie") or []]
        xsrf = next((rest.split(";", 1)[0] for k, _s, rest in cookies if k.strip() == "_streamlit_xsrf"), "")
    boundary = uuid.uuid4().hex
    body = (
        (
            f'--{boundary}\r\nContent-Disposition: form-data; name="{name}"; filename="{name}"\r\n'
            "Content-Type: application/octet-stream\r\n\r\n"
        ).encode()
        + data
        + f"\r\n--{boundary}--\r\n".encode()
    )
    conn = http.client.HTTPConnection(parts.hostname, parts.port, timeout=120)
    try:
        conn.request(
            "PUT",
            f"/_stcore/upload_file/{session_id}/{file_id}",
            body=body,
            headers={
                "Content-Type": f"multipart/form-data; boundary={boundary}",
                "X-Xsrftoken": xsrf,
                "Cookie": f"_streamlit_xsrf={xsrf}",
                "Origin": base,
            },
        )
        response = conn.getresponse()
        response.read()
        return response.status
    finally:
        conn.close()


# --- moves in this app -----------------------------------------------------------------------------


async def to_primes(session: Session) -> None:
    """Learn's one click into the Playground on the primes scenario (Reflection with unit tests)."""
    await session.open("learn")
    await session.wait_for(lambda s: "learn_open_reflection" in s.widgets)
    await session.click("learn_open_reflection")
    # the whole Playground, not its first widgets: Run rides in the header, drawn before the setup column
    await session.wait_for(lambda s: "pg_run" in s.widgets and "pg_to_free" in s.widgets)


def finished(session: Session) -> bool:
    return "pg_view-final" in session.blocks


async def seated(session: Session, marker: str) -> None:
    """Open the primes scenario and make it a free task marked with this participant's seat."""
    await to_primes(session)
    await session.click("pg_to_free")
    await session.wait_for(lambda s: "pg_free_task" in s.widgets)
    await session.type("pg_free_task", f"{marker}: write find_primes(n) returning the primes from 1 to n.")
    await session.settled()


async def run_to_end(session: Session) -> float:
    """Press Run and wait for the final answer; returns the seconds it took."""
    session.blocks.discard("pg_view-final")  # a previous run's
    began = time.perf_counter()
    await session.click("pg_run")
    await session.wait_for(finished)
    return time.perf_counter() - began


async def drop_mid_run(url: str, count: int) -> None:
    """Start `count` runs and close their sessions while they are going, as closed tabs do."""
    sessions = [Session(url) for _ in range(count)]
    for session in sessions:
        await session.__aenter__()
        await to_primes(session)
        await session.click("pg_run")
    await sessions[-1].wait_for(lambda s: "pg_view-flow" in s.blocks, timeout=60)  # under way
    for session in sessions:
        await session.__aexit__()
