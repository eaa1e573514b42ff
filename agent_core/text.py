"""`Text`: the one shape of a text a person reads, in English and Chinese."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Text:
    """A text a person reads, in English and Chinese; call it with a language to get one."""

    en: str
    zh: str

    def __call__(self, lang: str) -> str:
        return self.zh if lang == "zh" else self.en
