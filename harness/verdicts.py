"""A study's verdict on its tuned player: the words, and what using a player without a good one says.

A study ends by confirming its chosen weights against its incumbent (its
starting weights) and saves them as ``tuned:<study>`` with the verdict. The
database stores the verdict and the tuning package decides it, and neither
may import the other's layer for the words, so they live here, in the
foundation. A player saved before verdicts were stored, or by hand, has none:
it is *unconfirmed*, which is said the same way everywhere it is shown.
"""

from __future__ import annotations

from harness.errors import InvalidInput

# The kinds of named player, each its prefix (``tuned:<name>``, ``fitted:<name>``): from a study (harness tune)
# or a fit (harness fit). The database stores the kind; the players package resolves the prefix.
NAMED_KINDS = ("tuned", "fitted")
VERDICTS = ("better", "no gain", "worse")
UNCONFIRMED = "unconfirmed"  # how a player without a verdict is shown (stored as NULL)


def check_verdict(verdict: str | None) -> str | None:
    """``verdict`` unchanged when it is one of ``VERDICTS`` or None (unconfirmed).

    Raises:
        InvalidInput: any other text; the message lists the valid ones.
    """
    if verdict is not None and verdict not in VERDICTS:
        raise InvalidInput(f"unknown verdict {verdict!r}; valid: {', '.join(VERDICTS)} "
                           "(or none: the player is unconfirmed)")
    return verdict


def shown_verdict(verdict: str | None) -> str:
    """The verdict as listings show it: ``unconfirmed`` for a player without one."""
    return UNCONFIRMED if verdict is None else verdict


def unconfirmed_note(name: str, verdict: str | None, detail: str = "") -> str | None:
    """The one line for using the tuned player ``name`` (``tuned:<study>``), or None when it is confirmed better.

    A player that its study did not confirm better than the incumbent is still
    the study's answer and may be played; the note keeps a user from taking
    it for an improvement.
    """
    if verdict == "better":
        return None
    if name.startswith("fitted:") and verdict is None:
        return (f"{name} is fitted to labelled positions, not confirmed by games; a study naming it as its "
                "incumbent is how it earns a verdict")
    evidence = f"; its evidence: {detail}" if detail else ""
    return (f"{name} is not confirmed better than its study's incumbent "
            f"(verdict: {shown_verdict(verdict)}){evidence}")
