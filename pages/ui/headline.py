"""The head of a run view: the verdict trail and the run's latest change, above counters and graph.

A room watching a run wants to know what the reviewer said and what changed, not how many tokens
went by. So every verdict is a large badge in one row (its feedback in the badge's tooltip), the
newest verdict's feedback is spelled out beside it, and the latest change follows as a word diff in
a box of bounded height: a draft against the one before, a re-plan against the plan, a retried
step's result against its first attempt. Amber marks a verdict that sends the work back (REVISE, RETRY, REPLAN):
a re-plan is the pattern working, not the app failing, and red is kept for real errors.

The trail is drawn with st.html from a fixed template; every piece of run text is html.escape'd.
"""

from __future__ import annotations

import html
from dataclasses import dataclass

import streamlit as st

from agent_core import events as ev
from agent_core.diffing import MAX_DIFF_WORK, Budget
from agent_core.patterns.spec import PatternSpec

from . import call_views, diff_view, i18n, text
from .blocks import Versions
from .slots import slot

#: verdict -> (text colour, background, glyph): green passes, amber sends back; anything else grey
LOOKS = {
    "PASS": ("#14532d", "#bbf7d0", "✓"),
    "REVISE": ("#78350f", "#fde68a", "✎"),
    "RETRY": ("#78350f", "#fde68a", "↻"),
    "REPLAN": ("#78350f", "#fde68a", "⤳"),
    "DONE": ("#14532d", "#bbf7d0", "✓"),
    "REDISPATCH": ("#78350f", "#fde68a", "⑂"),
}
OTHER = ("#1f2937", "#e5e7eb", "•")
#: the class of the trail's HTML, for the browser tests and the presenter's style
TRAIL_CLASS = "apg-trail"
_PILL = (
    "display: inline-flex; align-items: center; gap: 0.35em; padding: 0.2em 0.7em; border-radius: 999px; "
    "font-weight: 700; font-size: 1.15em; letter-spacing: 0.02em; border: 2px solid {fg};"
)
_WHERE = "font-weight: 400; font-size: 0.8em; opacity: 0.8;"
#: the word diff in the head costs at most one diff's work, whatever the drafts
HEAD_DIFF_WORK = MAX_DIFF_WORK
#: Verdicts the trail draws: the first TRAIL_FIRST and the latest TRAIL_LATEST, the others counted
#: in one pill between them (20,000 pills were 20 MB of HTML on every redraw).
TRAIL_FIRST, TRAIL_LATEST = 3, 24
#: Characters of each side of the head's diff.
DIFF_CHARS = 50_000


def words(lang: str | None = None) -> dict[str, str]:
    """The head's texts (locales/*.toml, table [headline])."""
    return i18n.words("headline", lang)


@dataclass(frozen=True)
class Seen:
    """One verdict as the trail shows it: the event, and where in the run it fell (a label)."""

    verdict: ev.VerdictEvent
    where: str


class Headline:
    """The verdict trail and the latest change of one run view. `see` takes events, `paint` draws."""

    def __init__(
        self,
        key: str,
        *,
        spec: PatternSpec,
        lang: str,
        code: bool,
        diff_layout: str,
        diff: bool = True,
        live: bool = True,
    ) -> None:
        """`diff=False` leaves the latest diff out (Compare's narrow lanes have their answer diff);
        `live=False` is a redraw, painted once (slots.slot says why that matters)."""
        self.key, self.lang, self.code, self.layout, self.with_diff = key, lang, code, diff_layout, diff
        #: the run's pattern: what each role's verdicts are about
        self.spec = spec
        self.w = words(lang)
        self.seen: list[Seen] = []
        self._by_role: dict[str, int] = {}  # verdicts seen per role (the trail numbers them)
        #: the latest change of the run: (old name, new name, old text, new text) — a draft against the
        #: one before, a re-plan against the plan, a retried step's result against the first one
        self.diff: tuple[str, str, str, str] | None = None
        self.drafts = Versions()
        self.plan: str | None = None
        self.plans = 0
        self.results: dict[int, list[str]] = {}
        self.dirty = False
        # keyed boxes made once (a key may appear once per script run); their slots are redrawn
        with st.container(key=f"{key}-headline"):
            self._trail_slot = slot(live)
            # the newest feedback and the latest diff: stacked, or side by side on a projector
            with st.container(key=f"{key}-head-body"):
                self._verdict_slot = slot(live)
                with st.container(key=f"{key}-latest-diff"):
                    self._diff_slot = slot(live)
        st.html(f"<style>.st-key-{key}-latest-diff {{ max-height: 45vh; overflow-y: auto; }}</style>")

    def see(self, e: ev.Event) -> None:
        """Take what the head shows from one event of the run (every event passes here, in order)."""
        if isinstance(e, ev.VerdictEvent):
            self._verdict(e)
        elif isinstance(e, ev.Draft):
            since = self.drafts.add(e.version, e.text)
            if since is not None:
                draft = lambda v: i18n.t("render.draft", self.lang, version=v)  # noqa: E731
                self._changed(draft(since), draft(e.version), self.drafts.texts[since], e.text)
        elif isinstance(e, ev.PlanEvent):
            # a re-plan: what the plan was, and what it is now
            now = "\n".join(f"{s.get('id')}. {s.get('description', '')}" for s in e.steps)
            if self.plan is not None:
                self._changed(
                    self.w["plan"] if self.plans == 1 else self.w["replan"].format(n=self.plans - 1),
                    self.w["replan"].format(n=self.plans),
                    self.plan,
                    now,
                )
            self.plan, self.plans = now, self.plans + 1
        elif isinstance(e, ev.StepFinished) and e.result:
            # a retried step: its result before and after the retry
            tries = self.results.setdefault(e.step_id, [])
            tries.append(e.result)
            if len(tries) > 1:
                attempt = lambda n: self.w["attempt"].format(step=e.step_id, n=n)  # noqa: E731
                self._changed(attempt(len(tries) - 1), attempt(len(tries)), tries[-2], tries[-1])

    def _verdict(self, e: ev.VerdictEvent) -> None:
        grammar = self.spec.role(e.role)
        at = grammar.verdict_at if grammar is not None else "answer"
        if at == "step":
            where = self.w["at_step"].format(step=e.step)
        elif at == "draft" and self.drafts:
            where = self.w["at_draft"].format(version=self.drafts.latest)
        else:
            where = self.w["at_answer"].format(n=self._by_role.get(e.role, 0) + 1)
        self._by_role[e.role] = self._by_role.get(e.role, 0) + 1
        self.seen.append(Seen(e, where))
        self.dirty = True

    def _changed(self, old_name: str, new_name: str, old: str, new: str) -> None:
        if self.with_diff:
            self.diff = (old_name, new_name, old, new)
            self.dirty = True

    def paint(self) -> None:
        """Draw the head again if something arrived since it was last drawn."""
        if not self.dirty:
            return
        self.dirty = False
        if self.seen:
            with self._trail_slot.container():
                self._trail()
            with self._verdict_slot.container():
                self._latest(self.seen[-1])
        if self.diff is not None:
            with self._diff_slot.container(border=True):
                self._diff(*self.diff)

    def _trail(self) -> None:
        pills = []
        shown = self.seen
        if len(shown) > TRAIL_FIRST + TRAIL_LATEST + 1:
            shown = [*self.seen[:TRAIL_FIRST], None, *self.seen[-TRAIL_LATEST:]]
        for seen in shown:
            if seen is None:  # the verdicts between the first and the latest, counted
                more = html.escape(
                    self.w["fold.trail_more"].format(n=f"{len(self.seen) - TRAIL_FIRST - TRAIL_LATEST:,}")
                )
                pills.append(f'<span class="apg-verdict-more" style="{_WHERE}">{more}</span>')
                continue
            e = seen.verdict
            fg, bg, glyph = LOOKS.get(e.verdict, OTHER)
            tip = " · ".join(v for v in (e.feedback, e.analysis, e.suggestion) if v) or self.w["no_feedback"]
            name = html.escape(" ".join(e.verdict.split())[:30])
            pills.append(
                f'<span class="apg-verdict" data-verdict="{html.escape(e.verdict if e.verdict in LOOKS else "other")}" '
                f'title="{html.escape(text.clip(tip, 600))}" style="{_PILL.format(fg=fg)} color: {fg}; background: {bg};">'
                f'{glyph} {name} <span style="{_WHERE}">{html.escape(seen.where)}</span></span>'
            )
        head = html.escape(self.w["trail"])
        st.html(
            f'<div class="{TRAIL_CLASS}" style="display: flex; flex-wrap: wrap; align-items: center; gap: 0.5em;">'
            f'<span style="font-weight: 600; margin-right: 0.25em;">{head}</span>{" ".join(pills)}</div>'
        )

    def _latest(self, seen: Seen) -> None:
        e, w = seen.verdict, self.w
        role = call_views.role_name(e.role, self.lang)
        with st.container(border=True):
            st.markdown(
                f"**{w['latest'].format(verdict=text.inline(e.verdict, 30), role=role, where=seen.where)}**"
                + ("" if e.parsed else f" · _{w['fallback']}_")
            )
            shown = False
            for name, value in (("feedback", e.feedback), ("analysis", e.analysis), ("suggestion", e.suggestion)):
                if value and (name == "feedback" or value != e.feedback):  # a reflector often repeats itself
                    st.markdown(f"**{w[name]}** · {text.escape(text.clip(value, 1200))}")
                    shown = True
            if not shown:
                st.caption(w["no_feedback"])

    def _diff(self, old_name: str, new_name: str, old: str, new: str) -> None:
        st.markdown(f"**{self.w['diff'].format(old=old_name, new=new_name)}**")
        diff_view.word_diff_block(
            text.clip(old, DIFF_CHARS),
            text.clip(new, DIFF_CHARS),
            code=self.code,
            layout=self.layout,
            budget=Budget(HEAD_DIFF_WORK),
            names=(old_name, new_name),
        )
