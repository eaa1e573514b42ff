"""Offline honesty: on the scripted model a prompt edit changes nothing, and the page says so — in the
prompt editor, and by Run once a prompt is edited — with what would make the edit matter."""

from tests.app_pages import open_page


def test_the_scripted_model_says_it_ignores_prompt_edits_before_the_run():
    at = open_page("pages/playground.py")
    at.selectbox(key="pg_variant").select("reflection").run()
    at.selectbox(key="pg_scenario").select("primes").run()
    assert any("ignores prompt edits" in i.value for i in at.info)
    assert not any("edited prompt" in w.value for w in at.warning)
    critic = at.text_area(key="pg_prompt_reflection_critic")
    critic.input(critic.value.replace("exacting reviewer", "lenient reviewer")).run()
    (warning,) = [w.value for w in at.warning if "edited prompt" in w.value]
    assert "Step mode" in warning and "fork" in warning


def test_the_note_is_in_chinese_on_a_chinese_page():
    at = open_page("pages/playground.py", sb_lang="zh")
    assert any("离线模型按脚本回放" in i.value for i in at.info)
