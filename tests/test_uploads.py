"""Uploads are bounded by what the app reads: per file, per session and per server, against the real
`streamlit run app.py` on 127.0.0.1.

The uploads go as the browser sends them: a multipart PUT to /_stcore/upload_file/<session>/<file>,
with the XSRF cookie the page set and the same token in X-Xsrftoken, for a session whose websocket is
open (tests/st_client.py). Streamlit's endpoint takes any file id for a live session, whatever the page
shows, so these are the uploads a hostile participant can make without the uploader.
"""

from __future__ import annotations

import asyncio
import http.client
import time
import urllib.request
import uuid
from concurrent.futures import ThreadPoolExecutor
from urllib.parse import urlsplit

import pytest

from pages.ui.uploads import MAX_FILES, MAX_SESSION_BYTES, PER_FILE_BYTES, message
from tests.browser.harness import server_pid, streamlit_app
from tests.st_client import Session

SERVER_MB = 40  # the server-wide bound this test's server runs with
MB = 1 << 20


@pytest.fixture(scope="module")
def url():
    with streamlit_app({"AGENT_PLAYGROUND_UPLOADS_MB": str(SERVER_MB)}, log_name="uploads-server.log") as base:
        yield base


def _run(coro):
    with ThreadPoolExecutor(1) as pool:
        return pool.submit(asyncio.run, coro).result()


def xsrf_token(base: str) -> str:
    """The XSRF cookie the server sets, as the page receives it from its first health check."""
    with urllib.request.urlopen(base + "/_stcore/health") as response:
        for header in response.headers.get_all("Set-Cookie") or []:
            name, _sep, rest = header.partition("=")
            if name.strip() == "_streamlit_xsrf":
                return rest.split(";", 1)[0]
    raise AssertionError("the page set no XSRF cookie")


def put(base: str, session_id: str, data: bytes, file_id: str | None = None, *, xsrf: str, cookie: bool = True) -> int:
    """Upload `data` as one file, as the frontend does; the HTTP status (0: the server cut the upload)."""
    boundary = uuid.uuid4().hex
    body = (
        (
            f'--{boundary}\r\nContent-Disposition: form-data; name="trace.json"; filename="trace.json"\r\n'
            f"Content-Type: application/json\r\n\r\n"
        ).encode()
        + data
        + f"\r\n--{boundary}--\r\n".encode()
    )
    parts = urlsplit(base)
    conn = http.client.HTTPConnection(parts.hostname, parts.port, timeout=30)
    try:
        conn.request(
            "PUT",
            f"/_stcore/upload_file/{session_id}/{file_id or uuid.uuid4()}",
            body=body,
            headers={
                "Content-Type": f"multipart/form-data; boundary={boundary}",
                "X-Xsrftoken": xsrf,
                **({"Cookie": f"_streamlit_xsrf={xsrf}"} if cookie else {}),
                "Origin": base,
            },
        )
        response = conn.getresponse()
        response.read()
        return response.status
    except (BrokenPipeError, ConnectionResetError):
        return 0  # the server stopped reading an oversized body: refused as well
    finally:
        conn.close()


def delete(base: str, session_id: str, file_id: str, *, xsrf: str) -> int:
    parts = urlsplit(base)
    conn = http.client.HTTPConnection(parts.hostname, parts.port, timeout=30)
    try:
        conn.request(
            "DELETE",
            f"/_stcore/upload_file/{session_id}/{file_id}",
            headers={"X-Xsrftoken": xsrf, "Cookie": f"_streamlit_xsrf={xsrf}"},
        )
        return conn.getresponse().status
    finally:
        conn.close()


def rss_mb(pid: int) -> float:
    with open(f"/proc/{pid}/status") as fh:
        line = next(line for line in fh if line.startswith("VmRSS:"))
    return int(line.split()[1]) / 1024


async def visitor(base: str) -> Session:
    session = Session(base)
    await session.__aenter__()
    await session.open("")
    await session.settled(timeout=120)
    assert session.session_id
    return session


def refused(status: int) -> bool:
    return status in (0, 413)


# --- per file -----------------------------------------------------------------------------------------


def test_a_file_bigger_than_the_app_reads_is_refused_and_the_page_says_why(url):
    xsrf = xsrf_token(url)

    async def scenario():
        s = await visitor(url)
        try:
            await s.open("replay")
            await s.settled(timeout=120)
            kept = str(uuid.uuid4())
            just = await asyncio.to_thread(put, url, s.session_id, b"x" * PER_FILE_BYTES, kept, xsrf=xsrf)
            over = await asyncio.to_thread(put, url, s.session_id, b"x" * (PER_FILE_BYTES + 1), xsrf=xsrf)
            way_over = await asyncio.to_thread(put, url, s.session_id, b"x" * (40 * MB), xsrf=xsrf)
            await s.open("replay")  # the next click anywhere reruns the page
            await s.settled(timeout=120)
            await asyncio.to_thread(delete, url, s.session_id, kept, xsrf=xsrf)
            return just, over, way_over, s.saw(message("file", "en"))
        finally:
            await s.__aexit__(None, None, None)

    just, over, way_over, said = _run(scenario())
    assert just == 204, "a file of exactly what the app reads is taken"
    assert refused(over) and refused(way_over)
    assert said, "the page says why, in the page's language"


def test_an_upload_from_another_site_without_the_pages_cookie_is_refused(url):
    xsrf = xsrf_token(url)

    async def scenario():
        s = await visitor(url)
        try:
            return await asyncio.to_thread(put, url, s.session_id, b"{}", xsrf=xsrf, cookie=False)
        finally:
            await s.__aexit__(None, None, None)

    assert _run(scenario()) == 403


# --- per session and per server ---------------------------------------------------------------------


def test_a_session_past_its_files_or_bytes_is_refused_and_what_it_frees_can_be_used_again(url):
    xsrf = xsrf_token(url)

    async def scenario():
        out = {}
        s = await visitor(url)
        try:
            ids = [str(uuid.uuid4()) for _ in range(MAX_FILES)]
            out["small"] = [await asyncio.to_thread(put, url, s.session_id, b"{}", i, xsrf=xsrf) for i in ids]
            out["one_more"] = await asyncio.to_thread(put, url, s.session_id, b"{}", xsrf=xsrf)
            out["replaced"] = await asyncio.to_thread(put, url, s.session_id, b"[]", ids[0], xsrf=xsrf)
            for i in ids:
                await asyncio.to_thread(delete, url, s.session_id, i, xsrf=xsrf)
            full = [str(uuid.uuid4()) for _ in range(MAX_SESSION_BYTES // PER_FILE_BYTES)]
            out["full"] = [
                await asyncio.to_thread(put, url, s.session_id, b"y" * PER_FILE_BYTES, i, xsrf=xsrf) for i in full
            ]
            out["past_bytes"] = await asyncio.to_thread(put, url, s.session_id, b"{}", xsrf=xsrf)
            await s.open("eval")
            await s.settled(timeout=120)
            out["said"] = s.saw(message("session", "en"))
            await asyncio.to_thread(delete, url, s.session_id, full[0], xsrf=xsrf)
            last = str(uuid.uuid4())
            out["after_delete"] = await asyncio.to_thread(put, url, s.session_id, b"{}", last, xsrf=xsrf)
            for i in [*full[1:], last]:
                await asyncio.to_thread(delete, url, s.session_id, i, xsrf=xsrf)
        finally:
            await s.__aexit__(None, None, None)
        return out

    out = _run(scenario())
    assert out["small"] == [204] * MAX_FILES
    assert refused(out["one_more"]), "one file past the session's count"
    assert out["replaced"] == 204, "the same file id again replaces that file"
    assert out["full"] == [204] * (MAX_SESSION_BYTES // PER_FILE_BYTES)
    assert refused(out["past_bytes"]), "one byte past the session's total"
    assert out["said"], "the page says why"
    assert out["after_delete"] == 204, "what a session frees it can use again"


def test_refused_uploads_hold_no_memory_and_the_server_stays_responsive(url):
    xsrf = xsrf_token(url)
    pid = server_pid(url)

    async def scenario():
        s = await visitor(url)
        try:
            kept = [str(uuid.uuid4()) for _ in range(MAX_SESSION_BYTES // PER_FILE_BYTES)]
            for file_id in kept:  # the session holds all it may
                assert await asyncio.to_thread(put, url, s.session_id, b"z" * PER_FILE_BYTES, file_id, xsrf=xsrf) == 204
            before = rss_mb(pid)
            health: list[float] = []
            stop = asyncio.Event()

            async def probe():
                while not stop.is_set():
                    start = time.perf_counter()
                    await asyncio.to_thread(lambda: urllib.request.urlopen(url + "/_stcore/health", timeout=10).read())
                    health.append(time.perf_counter() - start)
                    await asyncio.sleep(0.05)

            prober = asyncio.create_task(probe())
            statuses = [
                await asyncio.to_thread(put, url, s.session_id, b"w" * PER_FILE_BYTES, xsrf=xsrf) for _ in range(40)
            ]  # 200 MB offered
            stop.set()
            await prober
            after = rss_mb(pid)
            for file_id in kept:
                await asyncio.to_thread(delete, url, s.session_id, file_id, xsrf=xsrf)
            return before, after, statuses, health
        finally:
            await s.__aexit__(None, None, None)

    before, after, statuses, health = _run(scenario())
    assert all(refused(s) for s in statuses)
    assert after - before < 80, f"refused uploads were held: RSS {before:.0f} -> {after:.0f} MB for 200 MB offered"
    assert health and max(health) < 2.0, f"/_stcore/health took {max(health):.2f} s during the uploads"


def test_the_server_holds_at_most_its_bound_across_sessions(url):
    xsrf = xsrf_token(url)

    async def scenario():
        sessions = [await visitor(url) for _ in range(3)]
        try:
            statuses, held = [], []
            for s in sessions:
                for _ in range(MAX_SESSION_BYTES // PER_FILE_BYTES):
                    file_id = str(uuid.uuid4())
                    status = await asyncio.to_thread(put, url, s.session_id, b"s" * PER_FILE_BYTES, file_id, xsrf=xsrf)
                    statuses.append(status)
                    if status == 204:
                        held.append((s.session_id, file_id))
            for session_id, file_id in held:
                await asyncio.to_thread(delete, url, session_id, file_id, xsrf=xsrf)
            return statuses
        finally:
            for s in sessions:
                await s.__aexit__(None, None, None)

    statuses = _run(scenario())
    accepted = statuses.count(204)
    assert accepted == SERVER_MB * MB // PER_FILE_BYTES, statuses
    assert all(refused(s) for s in statuses[accepted:])


# --- the store itself, without a server ---------------------------------------------------------------


def bounded(server_mb: int = SERVER_MB):
    from streamlit.runtime.memory_uploaded_file_manager import MemoryUploadedFileManager

    from pages.ui.uploads import BoundedUploadedFileManager

    manager = MemoryUploadedFileManager("/_stcore/upload_file")
    manager.__class__ = BoundedUploadedFileManager  # what install() does to the server's own
    return manager.bound(server_mb * MB)


def rec(size: int, file_id: str | None = None):
    from streamlit.runtime.uploaded_file_manager import UploadedFileRec

    return UploadedFileRec(file_id or str(uuid.uuid4()), "f.json", "application/json", b"u" * size)


def test_many_uploads_at_once_never_take_a_session_or_the_server_past_its_bound():
    from starlette.exceptions import HTTPException

    manager = bounded(server_mb=SERVER_MB)
    outcomes: list[bool] = []

    def upload(session: str) -> None:
        try:
            manager.add_file(session, rec(PER_FILE_BYTES))
            outcomes.append(True)
        except HTTPException as exc:
            assert exc.status_code == 413
            outcomes.append(False)

    with ThreadPoolExecutor(16) as pool:
        list(pool.map(upload, [f"s{n % 5}" for n in range(60)]))
    per_session = [manager.held(f"s{n}") for n in range(5)]
    assert all(files <= MAX_FILES and size <= MAX_SESSION_BYTES for files, size in per_session)
    assert sum(size for _f, size in per_session) <= SERVER_MB * MB
    assert outcomes.count(True) == SERVER_MB * MB // PER_FILE_BYTES
    refusals = {manager.take_refusal(f"s{n}") for n in range(5)}
    assert refusals <= {"session", "server", None} and refusals - {None}
    manager.remove_session_files("s0")
    assert manager.held("s0") == (0, 0) and manager.take_refusal("s0") is None


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_every_refusal_is_explained_in_both_languages(lang):
    texts = {reason: message(reason, lang) for reason in ("file", "files", "session", "server")}
    assert len(set(texts.values())) == 4
    assert "5 MB" in texts["file"] and f"{MAX_SESSION_BYTES >> 20} MB" in texts["session"]
    assert str(MAX_FILES) in texts["files"]
    assert all(("refused" in t) if lang == "en" else ("拒绝" in t) for t in texts.values())


@pytest.mark.parametrize(
    "page, switch",
    [
        ("pages/replay.py", ("segmented_control", "rp_source", "upload")),
        ("pages/eval.py", ("radio", "ev_source", "upload")),
    ],
)
def test_each_uploader_refuses_before_sending_a_file_bigger_than_the_app_reads(page, switch):
    from tests.app_pages import open_page

    at = open_page(page)
    kind, key, value = switch
    getattr(at, kind)(key=key).set_value(value).run()
    (uploader,) = at.get("file_uploader")
    assert uploader.proto.max_upload_size_mb == PER_FILE_BYTES >> 20
