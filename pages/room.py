"""Room: a workshop room. The trainer opens it here and runs in the Playground; every participant's
seat here shows the room's question at the top and the trainer's run below it, live and read-only.

Two sections, each a sequence of calls to the modules that draw them: the trainer's and a seat's."""

import streamlit as st

from pages.ui import room_join, room_session, room_submit, room_view, shell, sidebar
from pages.ui.i18n import t

shell.require("room")

lang = sidebar.current_lang()
st.title(t("room.title"))
member = room_session.current()

if member is None:
    room_session.entry(lang)  # open a room, or join one by its code
elif member.trainer:
    room_session.trainer_head(member, lang)  # its code, who is here, Close
    room_join.join_card(member.code, lang)  # the code, the join link and its QR code, for the projector
    room_submit.trainer_panel(member.code, str(member.secret), lang)  # submissions, Compare, leaderboard
else:
    question = st.empty()  # the room's question first, with a toast as it arrives
    room_session.participant_head(member, lang)  # the room's code, whether the trainer is here, Leave
    run_area = st.container()
    room_submit.submit_form(member.code, member.me, lang)  # this seat's variant or fork, to the trainer
    with run_area:
        # the trainer's run, live and read-only, and Take it from here under it: that run, at the call it
        # is at, into this seat's Playground. Last, for it follows the room until a click or a new run.
        room_view.seat(member, lang, question)
