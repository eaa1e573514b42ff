"""What the CLI shows while a call streams, so a slow model never looks like a hung command.

On a terminal the streamed text itself appears, dimmed, under the event lines. When stdout is not
a terminal (piped to a file, a CI log), the text stays out of it and a one-line counter of tokens
and seconds goes to stderr instead: rewritten in place when stderr is a terminal, otherwise one
line at most every `interval` seconds, so a log shows life without filling up.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TextIO

from .messages import estimate_tokens

DIM, RESET = "\x1b[2m", "\x1b[0m"
#: Seconds between two counter lines in a log (on a terminal the line is rewritten this often too).
INTERVAL_S = 1.0


def _isatty(stream: TextIO) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError):  # a closed or unusual stream
        return False


class LiveView:
    """Follows `token` events of the current call; `end_call()` closes its display before the next line."""

    def __init__(
        self,
        out: TextIO,
        err: TextIO,
        *,
        show_text: bool | None = None,
        interval: float = INTERVAL_S,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.out, self.err = out, err
        self.dim = _isatty(out)
        #: the text itself (on a terminal, or when asked), else the counter
        self.show_text = self.dim if show_text is None else show_text
        self.rewrite = _isatty(err)
        self.interval = interval
        self.clock = clock
        self.role = ""
        self.tokens = 0
        self.text: list[str] = []
        self._started = clock()
        self._shown_at: float | None = None
        self._open = False  # a text line or a rewritten counter is on screen

    def call_may_start(self) -> None:
        """A non-token event arrived: the next call's seconds count from here."""
        self._started = self.clock()

    def token(self, role: str, text: str) -> None:
        if not self.text:
            self.role = role
        self.text.append(text)
        self.tokens += estimate_tokens(text)
        if self.show_text:
            self.out.write(f"{DIM}{text}{RESET}" if self.dim else text)
            self.out.flush()
            self._open = True
            return
        now = self.clock()
        # nothing for a quick call; then at most one line an interval
        if now - (self._started if self._shown_at is None else self._shown_at) < self.interval:
            return
        self._shown_at = now
        line = f"  … {self.role} streaming: ~{self.tokens} tokens, {now - self._started:.0f} s"
        if self.rewrite:
            self.err.write(f"\r\x1b[K{line}")
            self._open = True
        else:
            self.err.write(line + "\n")
        self.err.flush()

    def end_call(self) -> str:
        """Close the current call's display; returns the text it streamed (for a stopped call)."""
        if self._open:
            if self.show_text:
                self.out.write("\n")
                self.out.flush()
            else:
                self.err.write("\r\x1b[K")
                self.err.flush()
        text = "".join(self.text)
        self.text, self.tokens, self._shown_at, self._open = [], 0, None, False
        self.call_may_start()
        return text
