"""The pages in 中文 under AppTest: a workshop taught in Chinese switched the language and
still read English on Home, in the sidebar, on Compare and Eval. Here each of those pages is opened
in zh and its headings, widgets, table headers and results are read back in Chinese — and the
English catalogue is what the same pages show in en.
"""

from __future__ import annotations

import json
import re

from pages.ui import i18n
from tests.app_pages import open_page

HAN = re.compile(r"[\u4e00-\u9fff]")


def chinese(text: str) -> bool:
    return bool(HAN.search(text))


def test_home_and_the_sidebar_speak_chinese():
    at = open_page("pages/home.py", sb_lang="zh")
    assert at.title[0].value == "智能体模式实验场"
    assert chinese(at.info[0].value) and "离线" in at.info[0].value
    assert all(chinese(c.value) for c in at.caption if c.value.startswith("场景"))
    provider = at.sidebar.selectbox(key="sb_provider")
    assert provider.label == "模型服务" and provider.options[0] == "离线 · 脚本演示"
    assert "通义千问（DashScope）" in provider.options
    speed = at.sidebar.select_slider(key="sb_offline_speed")
    assert speed.label == "离线速度" and "适合观看 · 每秒 60 个 token" in speed.options
    assert at.sidebar.button(key="sb_test").label == "测试连接"


def test_the_same_pages_read_the_english_catalogue_in_english():
    at = open_page("pages/home.py", sb_lang="en")
    assert at.title[0].value == i18n.t("app.title", "en")
    assert at.sidebar.selectbox(key="sb_provider").label == i18n.t("sidebar.provider", "en")
    assert at.sidebar.button(key="sb_test").label == "Test connection"


def test_a_chinese_comparison_names_its_lanes_roles_endings_and_columns_in_chinese():
    """Order 99999 through every pattern, read in Chinese: the table a trainer puts on the projector."""
    at = open_page("pages/compare.py", sb_lang="zh")
    assert at.title[0].value == "对比"
    assert at.button(key="cmp_run").label == "运行全部赛道"
    at.button(key="cmp_run").click().run()
    assert not at.exception, [e.message for e in at.exception]
    frame = next(d for d in at.dataframe if "lane" in d.value.columns)
    shown = frame.value
    assert shown["ended"][1] == "已通过" and all(chinese(e) for e in shown["ended"])  # how each lane ended
    assert shown["by_role"][1].startswith("规划器 2, 执行器 2")  # calls by role, with the roles named
    headers = json.loads(frame.proto.columns)  # the column headers people read, by column
    assert headers["llm_calls"]["label"] == "大模型调用" and headers["ended"]["label"] == "结束方式"
    subheaders = [s.value for s in at.main.subheader]
    assert "各赛道对比" in subheaders and "答案有何不同" in subheaders and "带走结果" in subheaders
    assert at.download_button(key="cmp_export").label == "下载全部赛道（一个 JSON 文件）"


def test_eval_speaks_chinese_before_a_run():
    at = open_page("pages/eval.py", sb_lang="zh")
    assert at.title[0].value == "评测"
    assert at.radio(key="ev_source").options == [
        "内置题集（7 道题，离线）",
        "12 道 GSM8K 格式的小学应用题",
        "HumanEval 的前 10 道题",
        "上传 `JSONL` 文件",
    ]
    assert at.button(key="ev_run").label == "开始评测" and at.button(key="ev_stop").label == "停止"
    picked = at.multiselect(key="ev_patterns")
    assert "反思 + 测试" in picked.options and "标准答案" in picked.options
    assert [s.value for s in at.main.subheader][-1] == "已发表的参考数据"
