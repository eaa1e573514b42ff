"""The core never imports the UI, and stays light to import."""

import subprocess
import sys


def _modules_after(code: str) -> set[str]:
    out = subprocess.run(
        [sys.executable, "-c", code + "; import sys; print('\\n'.join(sys.modules))"],
        capture_output=True,
        text=True,
        check=True,
    )
    return set(out.stdout.split())


def test_import_agent_core_leaves_streamlit_out():
    loaded = _modules_after("import agent_core")
    assert "streamlit" not in loaded


def test_import_agent_core_does_not_load_the_sdk_or_dataframes():
    loaded = _modules_after("import agent_core")
    assert not {"openai", "pandas", "plotly"} & loaded


def test_an_offline_run_never_loads_streamlit_or_the_sdk():
    loaded = _modules_after(
        "import agent_core as ac; c, t = ac.for_scenario('weather-report'); ac.run(t, c, ac.OfflineModel())"
    )
    assert not {"streamlit", "openai"} & loaded
