"""agent_core — LLM agent patterns (ReAct, Plan-and-Execute, Reflection) as event generators.

UI-free: nothing here imports streamlit. A pattern run is `stream(task, config, models)`, a
generator of typed events (events.py); `run()` consumes it into a RunResult.
"""

from .config import RunConfig
from .errors import AgentError, ConfigError, ModelError, TemplateError
from .models import ChatModel, ModelRouter
from .offline import OfflineModel
from .patterns.registry import LIMITS, PATTERNS, config_from_dict, configure, validate
from .runner import RunResult, call_bound, result_of, run, stream
from .scenarios import SCENARIOS, for_scenario

__all__ = [
    "LIMITS",
    "PATTERNS",
    "SCENARIOS",
    "AgentError",
    "ChatModel",
    "ConfigError",
    "ModelError",
    "ModelRouter",
    "OfflineModel",
    "RunConfig",
    "RunResult",
    "TemplateError",
    "call_bound",
    "config_from_dict",
    "configure",
    "for_scenario",
    "result_of",
    "run",
    "stream",
    "validate",
]
