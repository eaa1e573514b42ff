"""The one redaction of the project: settings, traces, reports, Compare exports and the adapter's
error messages all replace a key with `REDACTED` through `redact`."""

from __future__ import annotations

from collections.abc import Iterable

REDACTED = "sk-…redacted"
#: Shorter "keys" (placeholders like "x" for local servers) are no secret, and replacing them
#: everywhere would garble ordinary text.
MIN_SECRET_LENGTH = 8


def redact(text: str, keys: Iterable[str | None], replacement: str = REDACTED) -> str:
    """Replace every occurrence of any of `keys` in `text` with `replacement`."""
    # Longest first, so a key that contains another is replaced whole.
    for key in sorted({k for k in keys if k and len(k) >= MIN_SECRET_LENGTH}, key=len, reverse=True):
        text = text.replace(key, replacement)
    return text
