"""Offline honesty: the scripted model plays the seeds' runs whatever the prompts say, so where a
person edits prompts on it, the page says so plainly — and offers what does make an edit matter."""

from __future__ import annotations

import streamlit as st

from . import sidebar

WORDS = {
    "en": {"note": "**The offline model plays a script: it ignores prompt edits.** To see what an edit "
                   "changes, connect a model in the sidebar (a local Ollama or llama.cpp server counts), turn on "
                   "**Step mode** and answer a role yourself, or **Fork** a call of a finished run with an "
                   "edited reply.",
           "edited": "**{n} edited prompt(s), but the offline model ignores prompts:** this run will play the same "
                     "script as without your edits. Connect a model, answer a role in Step mode, or fork a call to "
                     "see what your edit does."},
    "zh": {"note": "**离线模型按脚本回放：它会忽略对提示词的修改。** 想看到修改带来的变化，可以在侧边栏连接一个模型（本地的 "
                   "Ollama 或 llama.cpp 服务也可以），或开启**单步模式**亲自扮演某个角色作答，或在运行结束后对某次调用"
                   "**分叉**并改写它的回复。",
           "edited": "**你修改了 {n} 个提示词，但离线模型会忽略提示词：**这次运行仍会回放与未修改时相同的脚本。"
                     "请连接模型、在单步模式中亲自作答，或对某次调用分叉，来观察修改的效果。"},
}


def _words(lang: str) -> dict[str, str]:
    return WORDS["zh" if lang == "zh" else "en"]


def prompts_note(lang: str) -> None:
    """Above the prompt editor, while the model is the scripted one."""
    if sidebar.is_offline():
        st.info(_words(lang)["note"], icon=":material/smart_toy:")


def run_note(edited: int, lang: str) -> None:
    """By the Run button, when prompts were edited but the scripted model will not read them."""
    if edited and sidebar.is_offline():
        st.warning(_words(lang)["edited"].format(n=edited), icon=":material/info:")
