"""Scripts of the offline model, one module per pattern; importing this package registers them all."""

from . import eval_tasks, generic, plan_execute, react, reflection  # noqa: F401
