"""Named entries on the Eval page: run configs handed over from another page (a room's submissions and
the default prompts beside them), scored over a task set under their labels.

`hand_over` is meant for a button's `on_click` on another page (the trainer's submissions panel): it
parses the entries at the border (agent_core.evaluation.entries: labels cleaned, bounded and made
unique, configs checked) and sets the Eval page's widgets before they are drawn — the task set that
fits the entries' kind (code tasks when one of them writes code, else the question sample), no
pattern by name, the rows of an earlier evaluation gone. The page calls `show` to list them (every
participant's text escaped) and runs what it returns through `agent_core.evaluation.backends.plan`.
`ran()` says which entries the rows on the page came from, so a leaderboard reads only its own.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import streamlit as st

from agent_core.errors import AgentError
from agent_core.evaluation import bundled_tasks, samples
from agent_core.evaluation import entries as named
from agent_core.evaluation.harness import EVAL_PATTERNS
from agent_core.patterns import registry

from . import text
from .i18n import t

P = "ev"
#: the handed-over entries: [{"id": submission id or None, "label": str, "config": dict}]
K_ENTRIES = f"{P}_entries"
#: the entries the rows on the page came from (set when an evaluation starts)
K_RAN = f"{P}_entries_ran"
#: the question sample a set of entries that writes no code runs on
QUESTIONS = "gsm8k-style"


def writes_code(config: Mapping[str, Any]) -> bool:
    """Whether a run config's answers are code (its pattern says, from the config)."""
    try:
        return bool(registry.get(str(config.get("pattern") or "")).code_answers(config))
    except (KeyError, AgentError):
        return False


def hand_over(picks: Sequence[tuple[str | None, str, Mapping[str, Any]]]) -> list[dict[str, Any]]:
    """Put (id, label, config) entries on the Eval page, its task set chosen to fit them; raises
    EntryError (nothing set) when one cannot run. Returns what was stored."""
    parsed = named.parse([(label, config) for _id, label, config in picks], taken=EVAL_PATTERNS)
    stored = [
        {"id": ident, "label": entry.label, "config": dict(config)}
        for (ident, _label, config), entry in zip(picks, parsed, strict=True)
    ]
    state = st.session_state
    source = "bundled" if any(writes_code(config) for _i, _l, config in picks) else QUESTIONS
    state[K_ENTRIES] = stored
    state[f"{P}_source"] = source
    state[f"{P}_limit"] = len(bundled_tasks() if source == "bundled" else samples.load_sample(source).tasks)
    state[f"{P}_patterns"] = []
    state[f"{P}_rows"] = []
    state[K_RAN] = None
    return stored


def kept() -> list[dict[str, Any]]:
    stored = st.session_state.get(K_ENTRIES)
    return list(stored) if isinstance(stored, list) else []


def ran() -> list[dict[str, Any]] | None:
    """The entries of the evaluation whose rows the page holds (None when it ran none)."""
    got = st.session_state.get(K_RAN)
    return list(got) if isinstance(got, list) else None


def started() -> None:
    """An evaluation starts: its rows are these entries' rows."""
    st.session_state[K_RAN] = kept() or None


def _drop() -> None:
    st.session_state[K_ENTRIES] = []


def show(lang: str, *, disabled: bool) -> list[named.Entry]:
    """The entries handed over, listed with what each changes, parsed again here (the page's border);
    [] when there are none or one no longer parses (said on the page)."""
    from .room_submit import differences

    stored = kept()
    if not stored:
        return []
    try:
        parsed = list(named.parse([(e["label"], e["config"]) for e in stored], taken=EVAL_PATTERNS))
    except (named.EntryError, KeyError, TypeError) as exc:
        why = exc.message(lang) if isinstance(exc, named.EntryError) else str(exc)
        st.error(t("room_eval.bad", lang, why=text.inline(why, 300)), icon=":material/error:")
        return []
    with st.container(border=True, key=f"{P}_entries_box"):
        st.markdown(f"##### :material/groups: {t('room_eval.head', lang, n=len(parsed))}")
        st.caption(t("room_eval.intro", lang))
        for entry in parsed:
            st.markdown(
                t(
                    "room_eval.entry",
                    lang,
                    label=text.inline(entry.label, named.MAX_LABEL_CHARS),
                    pattern=text.inline(registry.get(entry.pattern).label(lang), 60),
                    changes=text.inline(differences(entry.config, lang), 200),
                )
            )
        st.button(
            t("room_eval.drop", lang),
            key=f"{P}_entries_drop",
            icon=":material/close:",
            help=t("room_eval.drop_help", lang),
            on_click=_drop,
            disabled=disabled,
        )
    return parsed
