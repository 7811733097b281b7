"""Studies already in the database: found by name or study file, read as plain data and plots."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from harness.errors import InvalidInput, SpecError, StudyFileError
from harness.tuning import adapter
from harness.tuning.studyfile import StudyFile, load_study_file, parse_study_file

if TYPE_CHECKING:
    from harness.db import Database

__all__ = ["database_url", "load_stored_study", "stored_study_file", "study_reference", "study_trials",
           "study_figures", "resolve_incumbent"]


def database_url(url: str | None) -> str:
    """The database URL both the results and the Optuna study use (the results DB's default rule)."""
    from harness.db import default_url
    return url or default_url()


def load_stored_study(name: str, url: str | None = None, read_only: bool = True) -> adapter.Study:
    """A study from the database, to read (``read_only``: on a read-only connection, as every reading
    command opens one; False for a caller that writes, such as a driver's lease).

    Raises:
        InvalidInput: no study of that name in the database (the message lists them).
    """
    return adapter.load_study(name, database_url(url), read_only=read_only)


def stored_study_file(name: str, url: str | None = None) -> StudyFile:
    """The study file a stored study was created from.

    Raises:
        InvalidInput: no study of that name in the database (the message lists them).
    """
    text = load_stored_study(name, url).user_attrs.get("study_file")
    if text is None:
        raise InvalidInput(f"study {name!r} was not created by harness tune (no study file stored)")
    return _stored_incumbent(parse_study_file(text, f"{name} (stored)"), url)


def study_reference(reference: str, url: str | None = None) -> StudyFile:
    """A study by file path, or by name from the database (a named incumbent as the study resolved it)."""
    if reference.endswith(".toml") or Path(reference).is_file():
        return _stored_incumbent(load_study_file(reference), url)
    return stored_study_file(reference, url)


def resolve_incumbent(config: StudyFile, db: Database, url: str | None = None) -> StudyFile:
    """``config`` started at the named player its file gives as ``incumbent`` (``fitted:<name>``, ``tuned:<name>``).

    A study that exists already keeps the spec it resolved the name to when
    it was created (stored with it, ``adapter.INCUMBENT_SPEC``): its outcome depends
    on its file and seed alone, so a name bound to other weights since does
    not change a resumed study. A new study resolves the name in ``db``.

    Raises:
        StudyFileError: the name is unknown, names a player of another game,
            or gives a searched weight a value outside its range.
    """
    config = _stored_incumbent(config, url)
    if not config.incumbent_player or config.incumbent_spec:
        return config
    from harness.games import kit
    where = f"{config.path}: incumbent"
    try:
        spec = db.resolve_spec(config.incumbent_player, allow_engines=True)  # only its weights are used
    except SpecError as error:
        raise StudyFileError(f"{where}: {error}") from None
    record = db.named_player_record(config.incumbent_player.partition(":")[2])
    game = kit(config.game).name
    if record is not None and kit(record.game).name != game:
        raise StudyFileError(f"{where}: {config.incumbent_player} is a player of {kit(record.game).name}, "
                             f"not of {game}; give one of {game} (harness players lists them)")
    return config.with_incumbent(spec)


def _stored_incumbent(config: StudyFile, url: str | None) -> StudyFile:
    """``config`` with the incumbent spec its stored study resolved, when there is one."""
    if not config.incumbent_player or config.incumbent_spec:
        return config
    try:
        spec = load_stored_study(config.name, url).user_attrs.get(adapter.INCUMBENT_SPEC)
    except InvalidInput:  # no such study yet
        return config
    return config.with_incumbent(spec) if spec else config


def study_trials(name: str, db_url: str | None = None) -> list[dict[str, Any]]:
    """Every trial of a stored study as plain data (number, state, value, games, params)."""
    return load_stored_study(name, db_url).trials()


def study_figures(name: str, db_url: str | None = None) -> list[tuple[str, Any]]:
    """Optuna's own plots of a stored study: (title, plotly figure) pairs for the report."""
    return adapter.study_figures(name, database_url(db_url))
