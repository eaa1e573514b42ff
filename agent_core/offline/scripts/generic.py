"""Free-text tasks: a short, coherent run per pattern, clearly labelled as scripted.

Each pattern's script module registers its roles here with `@role(pattern, name)`; the generic
script dispatches on the request's pattern and role.
"""

from __future__ import annotations

from collections.abc import Callable

from ..model import Call, Reply, Script, script

_ROLES: dict[tuple[str, str], Script] = {}

LABEL = {"en": "[Scripted offline demo — no language model was called]",
         "zh": "【离线脚本演示——未调用任何大模型】"}


def role(pattern: str, name: str) -> Callable[[Script], Script]:
    """Register the generic reply of one pattern's role."""
    def register(fn: Script) -> Script:
        _ROLES[(pattern, name)] = fn
        return fn
    return register


def label(call: Call) -> str:
    return LABEL["zh" if call.zh else "en"]


@script("generic")
def generic(call: Call) -> Reply:
    fn = _ROLES.get((str(call.ctx.pattern), call.role))
    if fn is None:
        return Reply(call.t(f"{label(call)} The offline model has no script for the {call.role!r} role here. "
                            "Connect a model in the sidebar to run this for real.",
                            f"{label(call)} 离线模型没有为 {call.role} 角色准备脚本。请在侧边栏连接真实模型。"))
    return fn(call)
