"""What the Learn page teaches beyond each pattern's own lesson (which its spec holds): the three
failure modes and the limits of reflection (content only, no widgets; the words are the catalogue's
`lessons` table, in English and Chinese).

The facts come from the seeds: the cost table and the three failure modes are seed 03's, the
selection advice is seeds 04 and 05's. Call bounds are computed from our own formulas.
"""

from __future__ import annotations

from .i18n import t

#: The three failure modes reflection addresses (seed 03): catalogue key, and the scenario that shows it.
FAILURES = (("tool_error", "logistics-sf0000000"), ("drift", "vacuum-cats"), ("chain", "airx-watchfit-order"))


def failures(lang: str) -> list[tuple[str, str, str]]:
    """(title, story, scenario id) of each failure mode, in `lang`."""
    return [(t(f"lessons.{key}_title", lang), t(f"lessons.{key}_story", lang), scenario) for key, scenario in FAILURES]


def limits_of_reflection(lang: str) -> str:
    """What no reviewer can catch: it has no ground truth (seed 03)."""
    return t("lessons.limits", lang)
