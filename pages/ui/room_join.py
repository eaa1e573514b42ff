"""The trainer's join card: the room's code in type a projector's back row can read, the join link
(this page's own address with `?room=CODE`), its QR code, and how many have joined and when the room
expires.

The QR code is drawn here, from the link, by segno (pure Python) as an SVG that st.image inlines as a
data URI: nothing is fetched, so it works in a room without internet, and the link never leaves the
server. The link is the address the trainer's browser shows (st.context.url, the page's URL without
its query); without one (no browser, as in AppTest) the server's configured address stands in.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import segno
import streamlit as st

from . import text
from .i18n import t

#: the Room page's URL path (pages/room.py: st.navigation names a page's path after its file)
ROOM_PATH = "room"
KEY = "room_join_card"
#: the code in large monospace letters, for a projector (scoped to this card's keyed container)
_STYLE = (
    f".st-key-{KEY}-code h1 {{ font-size: clamp(3rem, 8vw, 6.5rem); letter-spacing: 0.14em; "
    "font-family: ui-monospace, SFMono-Regular, Menlo, monospace; padding: 0; line-height: 1.1; }"
)


def join_link(code: str, page_url: str | None = None) -> str:
    """The link a participant opens to join: the Room page's address with `?room=CODE`."""
    base = page_url if page_url is not None else _page_url()
    return f"{base.split('?', 1)[0].split('#', 1)[0]}?room={code}"


def _page_url() -> str:
    """This page's address in the trainer's browser, else the server's own (no browser to ask)."""
    url = st.context.url
    if url:
        return url
    host = st.get_option("browser.serverAddress") or "localhost"
    port = st.get_option("browser.serverPort") or st.get_option("server.port") or 8501
    return f"http://{host}:{port}/{ROOM_PATH}"


def qr_svg(link: str) -> str:
    """The link as a QR code, an SVG document (medium error correction: a projector's glare and a
    phone held at an angle still read it)."""
    return segno.make(link, error="m").svg_inline(scale=8, border=2, dark="#000", light="#fff")


def expires_in(seconds: float, lang: str) -> str:
    """How long the room has left, in hours and minutes ("7 h 59 min")."""
    minutes = max(0, int(seconds // 60))
    hours, minutes = divmod(minutes, 60)
    if hours:
        return t("room_seat.hours_minutes", lang, h=hours, m=minutes)
    return t("room_seat.minutes", lang, m=minutes)


def join_card(code: str, lang: str, *, info: Any = None, clock: Callable[[], float] = time.time) -> None:
    """The trainer's join card for room `code`. `info`: its RoomInfo (read from rooms() when None);
    a room that has expired says so instead."""
    if info is None:
        from agent_core.rooms import rooms

        info = rooms().info(code)
    with st.container(border=True, key=KEY):
        if info is None:
            st.warning(t("room_seat.gone", lang), icon=":material/timer_off:")
            return
        st.html(f"<style>{_STYLE}</style>")
        link = join_link(code)
        words_col, qr_col = st.columns([3, 2], gap="medium", vertical_alignment="center")
        with words_col:
            st.caption(t("room_seat.code_label", lang))
            with st.container(key=f"{KEY}-code"):
                st.markdown(f"# {text.escape(code)}")
            st.caption(t("room_seat.link_label", lang))
            st.code(link, language=None, wrap_lines=True)  # a copy button for the chat
            st.markdown(
                t(
                    "room_seat.status",
                    lang,
                    n=int(info.participants),
                    left=expires_in(float(info.expires) - clock(), lang),
                )
            )
        with qr_col:
            st.image(qr_svg(link), caption=t("room_seat.qr_caption", lang), width=240)
