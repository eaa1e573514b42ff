"""Default prompt templates (English and Chinese) for every pattern and role, and their validation.

Templates use `{placeholder}` fields. Each `PromptSpec` declares which placeholders a template must
contain and which it may contain; `validate()` names any missing or unknown placeholder, or a stray
brace, before a model is ever called. Literal braces are written `{{` and `}}`.

A placeholder is a bare name. A template is participant text, and str.format's mini-language would
let it do more than name a value: `{task:>20000000}` pads the task to 20 MB (a width of 10⁹ needs
gigabytes), `{task!r}` reprs it, `{task[0]}` and `{task.x}` index into it. So a format spec, a
conversion, an index or an attribute is refused wherever a template is checked (the editor, the CLI,
step mode, a loaded trace), and `render` never applies one.
"""

from __future__ import annotations

import functools
import re
import string
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from ..calls import Provenance
from ..errors import TemplateError
from ..text import Text


@dataclass(frozen=True, eq=False)
class PromptSpec:
    """One editable prompt: its key, what it is for (en/zh), its placeholders and its default texts.

    Compared and hashed by identity (each is a module-level constant): a run looks its templates up
    in a cache keyed by (text, spec), and hashing a spec field by field cost more than the lookup saved.
    """

    key: str
    role: str
    purpose: Text
    required: frozenset[str]
    optional: frozenset[str]
    en: str
    zh: str

    def default(self, lang: str) -> str:
        return self.zh if lang == "zh" else self.en


def spec(
    key: str, role: str, purpose: Text, en: str, zh: str, *, required: Iterable[str] = (), optional: Iterable[str] = ()
) -> PromptSpec:
    return PromptSpec(key, role, purpose, frozenset(required), frozenset(optional), en.strip("\n"), zh.strip("\n"))


def placeholders(template: str, key: str = "") -> list[str]:
    """The placeholder names in a template, in order; raises TemplateError on a stray brace."""
    names: list[str] = []
    try:
        for _literal, name, spec_, conversion in string.Formatter().parse(template):
            if name is None:
                continue
            head = _FIELD_HEAD.match(name)
            if spec_ or conversion or (head and name[head.end() : head.end() + 1] in ("[", ".")):
                # an index or an attribute (`{task[0]}`, `{task.x}`), a conversion or a format spec
                shown = _short(
                    "{" + name + (f"!{conversion}" if conversion else "") + (f":{spec_}" if spec_ else "") + "}"
                )
                bare = "{" + (head.group(0) if head else "task") + "}"
                raise TemplateError(
                    f"prompt {key!r}: {shown} does more than name a value; a placeholder is a bare name such "
                    f"as {bare}, with no ':', '!', '[' or '.'",
                    role=key,
                    placeholder=shown,
                    kind="format",
                )
            if name == "" or not name.isidentifier():
                shown = _short("{" + name + "}")
                raise TemplateError(
                    f"prompt {key!r}: {shown} is not a valid placeholder; use a name like {{task}}, "
                    "or write literal braces as {{ and }}",
                    role=key,
                    placeholder=shown,
                    kind="invalid",
                )
            names.append(name)
    except ValueError as exc:
        brace = "}" if "'}'" in str(exc) else "{"
        raise TemplateError(
            f"prompt {key!r}: stray {brace!r} ({exc}); write a literal brace as {brace * 2}",
            role=key,
            placeholder=brace,
            kind="stray",
        ) from None
    return names


#: The name a field starts with; what follows it in the field (`[0]`, `.x`) is an index or an attribute.
_FIELD_HEAD = re.compile(r"[^\W\d]\w*")


def _short(shown: str, limit: int = 60) -> str:
    """A placeholder as a message quotes it: a 20 MB spec is not repeated in full."""
    return shown if len(shown) <= limit else shown[: limit - 2] + "…}"


def validate(template: str, prompt: PromptSpec) -> None:
    """Raise TemplateError naming the first missing or unknown placeholder."""
    found = set(placeholders(template, prompt.key))
    unknown = sorted(found - prompt.required - prompt.optional)
    if unknown:
        allowed = ", ".join("{" + n + "}" for n in sorted(prompt.required | prompt.optional)) or "none"
        raise TemplateError(
            f"prompt {prompt.key!r}: unknown placeholder {{{unknown[0]}}}; allowed: {allowed}",
            role=prompt.key,
            placeholder=unknown[0],
            kind="unknown",
        )
    missing = sorted(prompt.required - found)
    if missing:
        raise TemplateError(
            f"prompt {prompt.key!r}: missing placeholder {{{missing[0]}}}",
            role=prompt.key,
            placeholder=missing[0],
            kind="missing",
        )


@functools.lru_cache(maxsize=1024)
def _checked(text: str, prompt: PromptSpec) -> list[tuple[str, str | None, str | None, str | None]]:
    """`text` validated against its spec, and parsed; raises TemplateError. Cached: both are pure."""
    validate(text, prompt)
    return list(string.Formatter().parse(text))


class PromptSet:
    """The prompts one run uses: defaults for its pattern and language, with user overrides."""

    def __init__(self, specs: Mapping[str, PromptSpec], lang: str, overrides: Mapping[str, str] | None = None):
        self.specs = dict(specs)
        self.lang = lang
        overrides = dict(overrides or {})
        unknown = sorted(set(overrides) - set(self.specs))
        if unknown:
            raise TemplateError(f"no prompt called {unknown[0]!r}; prompts: {', '.join(self.specs)}", role=unknown[0])
        self.texts = {key: overrides.get(key, s.default(lang)) for key, s in self.specs.items()}
        # validated and parsed once per distinct template: a run of the defaults pays a dict lookup each
        self._parsed = {key: _checked(text, self.specs[key]) for key, text in self.texts.items()}
        self.edited = frozenset(k for k, text in overrides.items() if text != self.specs[k].default(lang))
        #: every text rendered so far -> its template, whether it was edited, and where the values stand
        self.rendered: dict[str, Provenance] = {}

    def replace(self, key: str, text: str) -> None:
        """Use `text` for prompt `key` from now on (step mode edits a template mid-run); validated first."""
        validate(text, self.specs[key])
        self.texts[key] = text
        self._parsed[key] = list(string.Formatter().parse(text))
        self.edited = self.edited | {key}

    def render(self, key: str, **values: object) -> str:
        """Fill a template (unknown values are ignored, missing optional ones are empty) and remember
        where the filled-in values stand, for the call record's Prompt view."""
        prompt = self.specs[key]
        used = prompt.required | prompt.optional
        filled = {k: ("" if v is None else v) for k, v in values.items() if k in used}
        parts: list[str] = []
        spans: list[tuple[str, int, int]] = []
        at = 0
        for literal, name, _spec, _conversion in self._parsed[key]:
            parts.append(literal)
            at += len(literal)
            if name is None:
                continue
            # the value as text, nothing more: a spec or a conversion never gets past validation, and
            # none is applied here either (a width is the size of the prompt, chosen by its author)
            text = str(filled.get(name, ""))
            parts.append(text)
            if text:
                spans.append((name, at, at + len(text)))
            at += len(text)
        out = "".join(parts)
        self.rendered[out] = Provenance(key, key in self.edited, tuple(spans))
        return out
