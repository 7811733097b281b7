"""Studies already in the database: found by name or study file, read as plain data and plots."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from harness.errors import InvalidInput
from harness.tuning import adapter
from harness.tuning.studyfile import StudyFile, load_study_file, parse_study_file

__all__ = ["database_url", "load_stored_study", "stored_study_file", "study_reference", "study_trials",
           "study_figures"]


def database_url(url: str | None) -> str:
    """The database URL both the results and the Optuna study use (the results DB's default rule)."""
    from harness.db import default_url
    return url or default_url()


def load_stored_study(name: str, url: str | None = None) -> adapter.Study:
    """A study from the database, to read.

    Raises:
        InvalidInput: no study of that name in the database (the message lists them).
    """
    return adapter.load_study(name, database_url(url))


def stored_study_file(name: str, url: str | None = None) -> StudyFile:
    """The study file a stored study was created from.

    Raises:
        InvalidInput: no study of that name in the database (the message lists them).
    """
    text = load_stored_study(name, url).user_attrs.get("study_file")
    if text is None:
        raise InvalidInput(f"study {name!r} was not created by harness tune (no study file stored)")
    return parse_study_file(text, f"{name} (stored)")


def study_reference(reference: str, url: str | None = None) -> StudyFile:
    """A study by file path, or by name from the database."""
    if reference.endswith(".toml") or Path(reference).is_file():
        return load_study_file(reference)
    return stored_study_file(reference, url)


def study_trials(name: str, db_url: str | None = None) -> list[dict[str, Any]]:
    """Every trial of a stored study as plain data (number, state, value, games, params)."""
    return load_stored_study(name, db_url).trials()


def study_figures(name: str, db_url: str | None = None) -> list[tuple[str, Any]]:
    """Optuna's own plots of a stored study: (title, plotly figure) pairs for the report."""
    return adapter.study_figures(name, database_url(db_url))
