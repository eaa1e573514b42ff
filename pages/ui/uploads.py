"""Uploads the server holds in memory, bounded per file, per session and per server.

Streamlit keeps every uploaded file in memory (`MemoryUploadedFileManager`) from its PUT until the
page lets go of it or the session ends, and its endpoint `PUT /_stcore/upload_file/<session>/<file>`
takes a file for any live session and any file id, whatever the page draws. The app reads at most
5 MB of a file (a trace, a task set), through two uploaders (Replay, Eval). So:

- per file: `server.maxUploadSize = 5` in `.streamlit/config.toml` (Streamlit refuses a bigger file
  while it streams in, and its uploader says so before sending), and `PER_FILE_BYTES` here, should a
  command line raise that option;
- per session: at most `MAX_FILES` files and `MAX_SESSION_BYTES` at once (the two uploaders, and a
  file being replaced);
- per server: at most `settings.upload_server_mb()` held across all sessions.

`install()` (app.py, every script run; it does its work once) turns the runtime's manager into a
`BoundedUploadedFileManager`, the same object the upload route holds, so the check runs inside that
route: a file past a bound is answered 413 and dropped, never stored. `notice(lang)` says on the page,
in the page's language, why this session's last upload was refused.
"""

from __future__ import annotations

import threading
from typing import Any, cast

import streamlit as st
from streamlit.runtime.memory_uploaded_file_manager import MemoryUploadedFileManager

from agent_core import settings, trace
from agent_core.evaluation.tasks import MAX_BYTES as TASKS_MAX_BYTES

from .i18n import words

#: the most the app reads of one file (a trace, a task set)
PER_FILE_BYTES = max(trace.MAX_BYTES, TASKS_MAX_BYTES)
#: files one session may hold at once: Replay's and Eval's, each with one more while it is replaced
MAX_FILES = 4
#: bytes one session may hold at once: two full files, and a third replacing one of them
MAX_SESSION_BYTES = 3 * PER_FILE_BYTES


class UploadRefused(Exception):
    """An upload past a bound; `reason` is "file", "files", "session" or "server"."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


class BoundedUploadedFileManager(MemoryUploadedFileManager):
    """Streamlit's in-memory upload store, refusing a file past the per-file, per-session or per-server
    bound before it is stored (the upload route then answers 413)."""

    # set by `bound` (an instance made by Streamlit becomes one of these in place)
    _quota_lock: threading.Lock
    _refused: dict[str, str]
    server_bytes: int

    def bound(self, server_bytes: int) -> BoundedUploadedFileManager:
        self._quota_lock = threading.Lock()
        self._refused = {}
        self.server_bytes = server_bytes
        return self

    def add_file(self, session_id: str, file: Any) -> None:
        # One add at a time, so two uploads of one session cannot both pass the check; removals
        # may run meanwhile, which only leaves more room than was counted.
        with self._quota_lock:
            reason = self._refusal(session_id, file)
            if reason is not None:
                self._refused[session_id] = reason
                raise _http_refusal(reason)
            self._refused.pop(session_id, None)
            super().add_file(session_id, file)

    def remove_session_files(self, session_id: str) -> None:
        super().remove_session_files(session_id)
        with self._quota_lock:
            self._refused.pop(session_id, None)

    def take_refusal(self, session_id: str) -> str | None:
        """Why this session's last upload was refused, once (None when it was not)."""
        with self._quota_lock:
            return self._refused.pop(session_id, None)

    def held(self, session_id: str) -> tuple[int, int]:
        """(files, bytes) this session holds now."""
        with self._lock:
            storage = self.file_storage.get(session_id) or {}
            return len(storage), sum(len(f.data) for f in storage.values())

    def _refusal(self, session_id: str, file: Any) -> str | None:
        size = len(file.data)
        if size > PER_FILE_BYTES:
            return "file"
        with self._lock:
            storage = self.file_storage.get(session_id) or {}
            old = storage.get(file.file_id)  # the same file id again replaces that file
            freed = len(old.data) if old is not None else 0
            files = len(storage) + (old is None)
            session = sum(len(f.data) for f in storage.values()) - freed + size
            server = self._total_bytes - freed + size
        if files > MAX_FILES:
            return "files"
        if session > MAX_SESSION_BYTES:
            return "session"
        if server > self.server_bytes:
            return "server"
        return None


def _http_refusal(reason: str) -> Exception:
    """413 for the upload route (Starlette's HTTPException); a plain refusal where there is none."""
    try:
        from starlette.exceptions import HTTPException
    except ImportError:
        return UploadRefused(reason)
    return HTTPException(status_code=413, detail=f"upload refused: {_REASONS_EN[reason]}")


_REASONS_EN = {
    "file": f"a file may hold at most {PER_FILE_BYTES >> 20} MB",
    "files": f"a session may hold {MAX_FILES} files at once",
    "session": f"a session may hold {MAX_SESSION_BYTES >> 20} MB of uploads at once",
    "server": "the server holds as many uploads as it can now",
}
_INSTALL_LOCK = threading.Lock()


def install() -> BoundedUploadedFileManager | None:
    """Bound the running server's upload store (once; later calls return it). None outside a server."""
    from streamlit.runtime import Runtime

    if not Runtime.exists():
        return None
    manager = Runtime.instance().uploaded_file_mgr
    with _INSTALL_LOCK:
        if isinstance(manager, BoundedUploadedFileManager):
            return manager
        if type(manager) is not MemoryUploadedFileManager:
            return None  # another store (a future Streamlit's): left as it is, and docs/security.md says so
        manager.__class__ = BoundedUploadedFileManager
        return cast(BoundedUploadedFileManager, manager).bound(settings.upload_server_mb() << 20)


def message(reason: str, lang: str) -> str:
    """Why an upload was refused, in `lang`."""
    w = words("uploads", lang)
    return w["refused"].format(
        why=w[reason].format(mb=PER_FILE_BYTES >> 20, files=MAX_FILES, total=MAX_SESSION_BYTES >> 20)
    )


def notice(lang: str) -> None:
    """Say, once, why this session's last upload was refused (nothing when none was)."""
    from streamlit.runtime import Runtime
    from streamlit.runtime.scriptrunner import get_script_run_ctx

    ctx = get_script_run_ctx()
    if ctx is None or not Runtime.exists():
        return
    manager = Runtime.instance().uploaded_file_mgr
    if isinstance(manager, BoundedUploadedFileManager):
        reason = manager.take_refusal(ctx.session_id)
        if reason is not None:
            st.warning(message(reason, lang), icon=":material/upload_file:")
