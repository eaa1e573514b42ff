"""The command line's flags for the patterns' options, from their specs: one per limit (each pattern's,
then the run-wide ones) and `--X` / `--no-X` per switch, so a new pattern's options need no edit in
the CLI."""

from __future__ import annotations

import argparse
from typing import Any

from .patterns import registry
from .patterns.registry import LIMITS, PATTERNS


def add_option_flags(parser: argparse.ArgumentParser, *, switches: bool = True) -> None:
    """A flag for every limit (each pattern's, then the run-wide ones) and, for runs, `--X` / `--no-X`
    for every switch, from the patterns' specs: a new pattern's options need no edit here."""
    for lim in LIMITS.values():
        who = ", ".join(registry.get(p).label.en for p in lim.patterns) if len(lim.patterns) < len(PATTERNS) else ""
        parser.add_argument(
            lim.spec.cli_flag,
            dest=f"opt_{lim.name}",
            type=int,
            metavar="N",
            help=f"{who + ': ' if who else ''}{lim.spec.help.en} ({lim.low}-{lim.high})",
        )
    if not switches:
        return
    seen: set[str] = set()
    for spec in registry.specs().values():
        for switch in spec.switches:
            if switch.name in seen:
                continue
            seen.add(switch.name)
            flag = switch.name.replace("_", "-")
            parser.add_argument(
                f"--{flag}",
                dest=f"opt_{switch.name}",
                action="store_const",
                const=True,
                help=f"{spec.label.en}: {switch.help.en}",
            )
            parser.add_argument(
                f"--no-{flag}", dest=f"opt_{switch.name}", action="store_const", const=False, help=argparse.SUPPRESS
            )


def option_overrides(args: argparse.Namespace) -> dict[str, Any]:
    """The options the flags set (an option whose flag was not given is left out)."""
    return {name[4:]: value for name, value in vars(args).items() if name.startswith("opt_") and value is not None}
