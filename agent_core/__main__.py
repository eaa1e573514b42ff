"""`python -m agent_core` — see agent_core/cli.py."""

import sys

from .cli import main

sys.exit(main())
