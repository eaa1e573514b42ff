"""Learn: what each pattern is, its graph, when to use it, what it costs, and what reflection can and
cannot catch. One click opens a pattern in the Playground on the scenario that shows it best."""

import streamlit as st

import agent_core as ac
from agent_core.patterns import registry
from agent_core.scenarios import SCENARIOS
from pages.ui import graphs, handoff, runs, shell, sidebar, text
from pages.ui.catalogue import VARIANTS
from pages.ui.i18n import t
from pages.ui.lessons import failures, limits_of_reflection

shell.require("learn")
handoff.go_if_requested()
lang = sidebar.current_lang()
busy = runs.any_active()

LESSONS = [spec.lesson for spec in registry.specs().values() if spec.lesson is not None]

st.title(t("learn.title"))
st.caption(t("learn.sources"))

for tab, lesson in zip(st.tabs([lesson.title(lang) for lesson in LESSONS]), LESSONS, strict=True):
    with tab:
        variant = VARIANTS[lesson.variant]
        config, _task = ac.for_scenario(lesson.scenario, lang, **variant.forced)
        left, right = st.columns([5, 4], gap="large")  # the graph at its own size, labels 12 px and more
        with left:
            st.markdown(lesson.what(lang))
            use, avoid = st.columns(2)
            use.markdown(t("learn.use_for") + "\n\n" + "\n".join(f"- {item(lang)}" for item in lesson.use_when))
            avoid.markdown(t("learn.avoid_for") + "\n\n" + "\n".join(f"- {item(lang)}" for item in lesson.avoid_when))
            st.markdown(t("learn.cost", cost=lesson.cost(lang)))
            scenario = SCENARIOS[lesson.scenario]
            st.markdown(t("learn.bound", scenario=text.escape(scenario.title(lang)), bound=ac.call_bound(config)))
        with right:
            st.graphviz_chart(graphs.dot(config.to_dict(), lang=lang, vertical=True), width="content")
            # a short label that fits the column at 1280×720, and the scenario on its own line below
            st.button(
                t("fits.open_playground"),
                key=f"learn_open_{lesson.variant}",
                type="primary",
                icon=":material/play_circle:",
                width="stretch",
                disabled=busy,
                on_click=handoff.load_into_playground,
                args=(config.to_dict(),),
            )
            st.caption(t("fits.open_scenario", scenario=text.escape(scenario.title(lang))))

st.divider()
st.subheader(t("learn.failures"))
for column, (title, story, scenario_id) in zip(st.columns(3), failures(lang), strict=True):
    with column.container(border=True):
        st.markdown(f"**{text.escape(title)}**")
        st.markdown(story)
        config, _task = ac.for_scenario(scenario_id, lang)
        st.button(
            t("learn.watch", scenario=SCENARIOS[scenario_id].title(lang)),
            key=f"learn_fail_{scenario_id}",
            icon=":material/play_arrow:",
            disabled=busy,
            on_click=handoff.load_into_playground,
            args=(config.to_dict(),),
        )

st.subheader(t("learn.cannot_catch"))
st.warning(limits_of_reflection(lang), icon=":material/report:")

st.subheader(t("learn.costs"))
#: seed 03's cost table: the catalogue key of each way to run, and its call count
COST_ROWS = (
    ("cost_plain", "1 + N"),
    ("cost_pass", "1 + 2N"),
    ("cost_retry", "1 + 2N + 2"),
    ("cost_replan", "1 + 2N + 1 + M"),
)
st.table([{t("learn.cost_run"): t(f"learn.{key}"), t("learn.cost_calls"): cost} for key, cost in COST_ROWS])
st.caption(t("learn.cost_note"))
