"""Free-text tasks: a short, coherent run per pattern, clearly labelled as scripted.

Each pattern's script module registers its roles here with `@role(pattern, name)`; the generic
script dispatches on the request's pattern and role.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import TypeVar

from ..script import Call, Reply, script

#: a role's generic reply: unlike a scenario's script it answers every call, so `generic` always has a reply
RoleReply = Callable[[Call], Reply]
RoleT = TypeVar("RoleT", bound=RoleReply)

_ROLES: dict[tuple[str, str], RoleReply] = {}

LABEL = {"en": "[Scripted offline demo — no language model was called]", "zh": "【离线脚本演示——未调用任何大模型】"}


def role(pattern: str, name: str) -> Callable[[RoleT], RoleT]:
    """Register the generic reply of one pattern's role."""

    def register(fn: RoleT) -> RoleT:
        _ROLES[(pattern, name)] = fn
        return fn

    return register


def label(call: Call) -> str:
    return LABEL["zh" if call.zh else "en"]


# a Latin letter or digit on both sides of a cut means the cut falls inside a word
_MID_WORD = re.compile(r"[A-Za-z0-9\u00c0-\u024f]")


def shortened(text: str, limit: int = 80) -> str:
    """`text` on one line, at most `limit` characters, cut between words (CJK between characters),
    with "…" when something was left out."""
    flat = " ".join(text.split())
    if len(flat) <= limit:
        return flat
    cut = flat[:limit]
    if _MID_WORD.match(flat[limit]) and _MID_WORD.match(cut[-1]) and " " in cut:
        cut = cut.rsplit(" ", 1)[0]
    return cut.rstrip(" ,.;:!?，。；：！？、") + "…"


def topic(call: Call, limit: int = 80) -> str:
    """The run's task, shortened for quoting: never the call's first message, which for most roles
    is a rendered prompt template."""
    # a closing full stop would sit awkwardly inside the quotes
    return shortened(call.input("task") or call.task, limit).rstrip("。.") or call.t("the task", "该任务")


@script("generic")
def generic(call: Call) -> Reply:
    fn = _ROLES.get((str(call.ctx.pattern), call.role))
    if fn is None:
        return Reply(
            call.t(
                f"{label(call)} The offline model has no script for the {call.role!r} role here. "
                "Connect a model in the sidebar to run this for real.",
                f"{label(call)} 离线模型没有为 {call.role} 角色准备脚本。请在侧边栏连接真实模型。",
            )
        )
    return fn(call)
