"""The core's typed exceptions — raised at the edge, shown to users as clear messages.

Inside a loop, failures are observations (see tools.py); these are for what ends a run or refuses
to start one. Messages say what to do, never include secrets, and never log as a side effect.
"""

from __future__ import annotations


class AgentError(Exception):
    """Base of every error the core raises on purpose."""

    #: short machine-readable name, used as `run_failed.error_type`
    code = "agent_error"


class ConfigError(AgentError):
    code = "config_error"


class TemplateError(ConfigError):
    """A prompt template is broken: missing or unknown placeholder, a stray brace, or a placeholder that
    is more than a bare name (a format spec, a conversion, an index or an attribute). `kind` says which
    ("missing", "unknown", "invalid", "stray", "format"; "" otherwise), so a page can say it in its own
    language."""

    code = "template_error"

    def __init__(self, message: str, *, role: str = "", placeholder: str = "", kind: str = "") -> None:
        super().__init__(message)
        self.role = role
        self.placeholder = placeholder
        self.kind = kind


class ModelError(AgentError):
    """A model endpoint failed. `retryable` tells whether trying again later may help."""

    code = "model_error"
    retryable = False


class AuthError(ModelError):
    code = "auth_error"


class RateLimitError(ModelError):
    """HTTP 429 after the SDK's own retries; `retry_after` is the server's requested wait in seconds."""

    code = "rate_limited"
    retryable = True

    def __init__(self, message: str, retry_after: float | None = None) -> None:
        super().__init__(message)
        self.retry_after = retry_after


class EndpointConnectionError(ModelError):
    code = "connection_error"
    retryable = True


class EndpointTimeoutError(ModelError):
    code = "timeout"
    retryable = True


class BadRequestError(ModelError):
    code = "bad_request"


class ServerError(ModelError):
    code = "server_error"
    retryable = True


class StreamCutError(ModelError):
    """The stream ended part-way: the partial text is kept on the exception."""

    code = "stream_cut"
    retryable = True

    def __init__(self, message: str, partial_text: str = "") -> None:
        super().__init__(message)
        self.partial_text = partial_text


class MalformedResponseError(ModelError):
    code = "malformed_response"


class PlanError(AgentError):
    """No usable plan could be had from the planner."""

    code = "plan_error"


class CriticalStepFailed(AgentError):
    """A plan step the planner marked critical failed, so the run stops (seed 05)."""

    code = "critical_step_failed"


#: Why a file is not a trace we can load, as `TraceFormatError.reason`: pages name each in the reader's
#: language and keep the message as the technical detail.
TRACE_PROBLEMS = (
    "too_large",
    "not_json",
    "too_deep",
    "not_trace",
    "version",
    "bad_event",
    "no_run",
    "not_otlp",
    "config",
    "invalid",
)


class TraceFormatError(AgentError):
    """A trace file is not one we can load; `reason` is one of TRACE_PROBLEMS. `detail`, when given,
    is what the message adds to its reason (a parser's own words and where), so a page that names
    the reason in its reader's language shows the detail beside it, not the message that restates it."""

    code = "trace_format"

    def __init__(self, message: str, reason: str = "invalid", detail: str = "") -> None:
        super().__init__(message)
        self.reason = reason if reason in TRACE_PROBLEMS else "invalid"
        self.detail = detail


#: Why a task set cannot be loaded, as `TaskSetError.reason`: pages name each in the reader's language
#: and keep the message (which names the line) as the detail.
TASK_PROBLEMS = (
    "too_large",
    "not_gzip",
    "not_text",
    "not_json",
    "not_task",
    "bad_test",
    "too_many",
    "empty",
    "unreadable",
    "invalid",
)


class TaskSetError(AgentError):
    """An evaluation task set cannot be loaded: the message names the line and the problem; `reason`
    is one of TASK_PROBLEMS."""

    code = "task_set"

    def __init__(self, message: str, reason: str = "invalid", detail: str = "") -> None:
        super().__init__(message)
        self.reason = reason if reason in TASK_PROBLEMS else "invalid"
        #: what the message adds to its reason (as TraceFormatError.detail), or ""
        self.detail = detail
