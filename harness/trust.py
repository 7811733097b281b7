"""Which players run a program, and the rule for a command that comes from a shared store.

A command stored in a shared database (a ``tuned:`` alias, a stored run or
study) would run on every machine that plays it, so it runs only when the
user says so (``allow_engines``). This module is plain text over the spec's
kind, below every layer that needs the rule: the database applies it to the
aliases it resolves without loading any player, and ``players.guard_engine``
applies it to specs of any form. The player kinds that run a program are
named here once; ``players`` checks that its kinds agree (``RUNS_COMMAND``).
"""

from __future__ import annotations

from harness.errors import SpecError

COMMAND_KINDS = frozenset({"external", "uci"})


def kind_of(spec: str) -> str:
    """The kind of a player spec's text (``uci:command=x`` -> ``uci``)."""
    return spec.partition(":")[0].strip()


def runs_command(spec: str) -> bool:
    """True if a player spec's text names a kind that runs a program."""
    return kind_of(spec) in COMMAND_KINDS


def guard_command(spec: str, source: str, allow_engines: bool) -> str:
    """Return ``spec``, unless it runs a command that came from ``source`` and engines are not allowed.

    Raises:
        SpecError: the spec runs a command and ``allow_engines`` is False.
    """
    if not allow_engines and runs_command(spec):
        raise SpecError(f"{source} runs an engine command ({spec}); engines named there run only with "
                        "allow_engines (harness play, tournament, tune, live, arena)", parameters=("allow_engines",))
    return spec
