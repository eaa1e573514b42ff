"""Room: a workshop room. The trainer opens it here and runs in the Playground; every participant's
seat here shows the room's question at the top and the trainer's run below it, live and read-only.

Two sections, each a sequence of calls to the modules that draw them: the trainer's and a seat's."""

import streamlit as st

from pages.ui import room_session, shell, sidebar
from pages.ui.i18n import t

shell.require("room")

lang = sidebar.current_lang()
st.title(t("room.title"))
member = room_session.current()

if member is None:
    room_session.entry(lang)  # open a room, or join one by its code
elif member.trainer:
    room_session.trainer_head(member, lang)  # its code, who is here, Close
else:
    room_session.participant_head(member, lang)  # the room's code, whether the trainer is here, Leave
