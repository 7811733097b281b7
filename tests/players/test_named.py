"""players.named: a run's specs resolved once, and a tuned player its study did not confirm better noted once."""

from __future__ import annotations

import warnings

import pytest

from harness.console import Note
from harness.db.records import NamedPlayerRecord
from players.named import SpecResolver

STORED = {"flat": ("alphabeta:depth=1", "no gain", "+0.4 [-2.0, 2.8]"), "champion": ("alphabeta:depth=2", "better", ""),
          "by-hand": ("greedy", None, "")}


class Store:
    """The named players of STORED, as the results database hands them out."""

    def resolve_spec(self, spec: str, allow_engines: bool = False) -> str:
        return STORED[spec.removeprefix("tuned:")][0] if spec.startswith("tuned:") else spec

    def named_player_record(self, name: str) -> NamedPlayerRecord | None:
        spec, verdict, detail = STORED[name]
        return NamedPlayerRecord(name, spec, "totality", "", None, verdict=verdict, detail=detail)


def notes_of(*specs: str) -> list[str]:
    resolver = SpecResolver(Store())
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for spec in specs:
            resolver.canonical(spec, "totality")
            resolver.canonical(spec)  # another game to check the weights against: resolved again
    assert all(issubclass(w.category, Note) for w in caught)
    return [str(w.message) for w in caught]


def test_a_tuned_player_not_confirmed_better_is_noted_once_per_run_with_its_evidence():
    assert notes_of("tuned:flat", "tuned:flat", "greedy") == [
        "tuned:flat is not confirmed better than its study's incumbent (verdict: no gain); "
        "its evidence: +0.4 [-2.0, 2.8]"]
    assert notes_of("tuned:by-hand") == [
        "tuned:by-hand is not confirmed better than its study's incumbent (verdict: unconfirmed)"]


def test_a_tuned_player_confirmed_better_and_a_plain_spec_are_not_noted():
    assert notes_of("tuned:champion", "alphabeta:depth=3") == []


def test_a_plain_python_caller_sees_the_note_as_a_warning():
    with pytest.warns(Note, match="tuned:flat is not confirmed better"):
        assert SpecResolver(Store()).resolve("tuned:flat") == "alphabeta:depth=1"
