"""Learn: what each pattern is, its graph, when to use it, what it costs, and what reflection can and
cannot catch. One click opens a pattern in the Playground on the scenario that shows it best."""

import streamlit as st

import agent_core as ac
from agent_core.patterns import registry
from agent_core.scenarios import SCENARIOS
from pages.ui import graphs, handoff, runs, shell, sidebar, text
from pages.ui.catalogue import VARIANTS
from pages.ui.lessons import FAILURES, LIMITS_OF_REFLECTION

shell.require("learn")
handoff.go_if_requested()
lang = sidebar.current_lang()
zh = lang == "zh"
busy = runs.any_active()

LESSONS = [spec.lesson for spec in registry.specs().values() if spec.lesson is not None]

st.title("学习：智能体模式与基线" if zh else "Learn the patterns")
st.caption("事实来自 shared/seeds 中的五篇文章；调用上限由本项目的公式计算。" if zh else
           "Facts from the five source articles in shared/seeds; call bounds from this project's own formulas.")

for tab, lesson in zip(st.tabs([lesson.title(lang) for lesson in LESSONS]), LESSONS, strict=True):
    with tab:
        variant = VARIANTS[lesson.variant]
        config, _task = ac.for_scenario(lesson.scenario, lang, **variant.forced)
        left, right = st.columns([3, 2], gap="large")
        with left:
            st.markdown(lesson.what(lang))
            use, avoid = st.columns(2)
            use.markdown(("**适用于**\n\n" if zh else "**Use it for**\n\n")
                         + "\n".join(f"- {item(lang)}" for item in lesson.use_when))
            avoid.markdown(("**不适用于**\n\n" if zh else "**Avoid it for**\n\n")
                           + "\n".join(f"- {item(lang)}" for item in lesson.avoid_when))
            st.markdown(("**成本**　" if zh else "**Cost**　") + lesson.cost(lang))
            bound = ac.call_bound(config)
            st.markdown((f"按场景 `{lesson.scenario}` 的限制，本模式最多调用 **{bound}** 次大模型。") if zh else
                        f"With the limits of `{lesson.scenario}`, this pattern makes at most **{bound}** LLM calls.")
        with right:
            st.graphviz_chart(graphs.dot(config.to_dict()), width="stretch")
            scenario = SCENARIOS[lesson.scenario]
            st.button(("在 Playground 中打开：" if zh else "Open in the Playground: ") + scenario.title[lang],
                      key=f"learn_open_{lesson.variant}", type="primary", icon=":material/play_circle:",
                      disabled=busy, on_click=handoff.load_into_playground, args=(config.to_dict(),))

st.divider()
st.subheader("反思要解决的三种翻车姿势" if zh else "Three ways an agent fails that reflection addresses")
for column, (title, story, scenario_id) in zip(st.columns(3), FAILURES[lang], strict=True):
    with column.container(border=True):
        st.markdown(f"**{text.escape(title)}**")
        st.markdown(story)
        config, _task = ac.for_scenario(scenario_id, lang)
        st.button(("看它运行" if zh else "Watch it run") + f" · {scenario_id}", key=f"learn_fail_{scenario_id}",
                  icon=":material/play_arrow:", disabled=busy, on_click=handoff.load_into_playground,
                  args=(config.to_dict(),))

st.subheader("反思抓不住什么" if zh else "What reflection cannot catch")
st.warning(LIMITS_OF_REFLECTION[lang], icon=":material/report:")

st.subheader("成本对比（种子文章 03）" if zh else "What reflection costs (seed 03)")
rows = [("无反思", "Without reflection", "1 + N"), ("有反思（全部 PASS）", "Reflection, every step passes", "1 + 2N"),
        ("有反思（1 次 RETRY）", "Reflection, one RETRY", "1 + 2N + 2"),
        ("有反思（1 次 REPLAN）", "Reflection, one REPLAN", "1 + 2N + 1 + M")]
st.table([{("执行方式" if zh else "run"): (zh_label if zh else en_label), ("LLM 调用" if zh else "LLM calls"): cost}
          for zh_label, en_label, cost in rows])
st.caption("N 为步骤数，M 为重规划后新步骤的调用次数。订单 99999 的离线运行正好 9 次调用，与文章一致。" if zh else
           "N = steps, M = the new steps' calls after a re-plan. The offline order-99999 run makes exactly the "
           "9 calls the article counts.")
