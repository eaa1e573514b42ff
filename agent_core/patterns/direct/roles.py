"""The one role of the `direct` baseline: the actor that answers."""

from __future__ import annotations

from ...roles import Role
from ..spec import Text

ACTOR = Role("actor", Text("actor", "执行者"))

ROLES = (ACTOR,)
