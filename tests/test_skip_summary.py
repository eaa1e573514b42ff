"""The test command ends by saying what it skipped and why, so a machine without chromium or
bubblewrap does not read "44 skipped" as a pass."""

from __future__ import annotations

from pathlib import Path

pytest_plugins = ["pytester"]

CONFTEST = (Path(__file__).parent / "conftest.py").read_text(encoding="utf-8")


def test_skips_are_summed_up_by_reason(pytester) -> None:
    pytester.makeconftest(CONFTEST.replace('collect_ignore = ["bench", "integration"]', "collect_ignore = []"))
    pytester.makepyfile(
        test_some="""
        import pytest

        @pytest.mark.parametrize("n", range(3))
        def test_in_a_browser(n):
            pytest.skip("/usr/bin/chromium is missing: apt-get install -y chromium")

        def test_sandboxed():
            pytest.skip("bubblewrap is not installed")

        def test_plain():
            assert True
    """
    )
    result = pytester.runpytest("-q")
    result.assert_outcomes(passed=1, skipped=4)
    result.stdout.re_match_lines(
        [
            r".*skipped, and why.*",
            r"\s+3 skipped: /usr/bin/chromium is missing: apt-get install -y chromium",
            r"\s+1 skipped: bubblewrap is not installed",
        ]
    )


def test_nothing_is_said_when_nothing_was_skipped(pytester) -> None:
    pytester.makeconftest(CONFTEST.replace('collect_ignore = ["bench", "integration"]', "collect_ignore = []"))
    pytester.makepyfile(test_some="def test_plain():\n    assert True\n")
    result = pytester.runpytest("-q")
    result.assert_outcomes(passed=1)
    assert "skipped, and why" not in result.stdout.str()
