"""Match lines into the database: ``harness db import``, the way back from ``harness export``.

JSON lines are the exchange format, the database the store of evidence: a
file of match lines (``harness export``, ``harness play --json``, the
``--results`` files scripts/eval_players.py used to write) is loaded as one
run of kind ``import`` per file, or as one named run for all of them. Both
formats are read alike (``harness.results.result_from_line``).

What is checked, so that nothing wrong or doubled gets in:

* every line's key is made again from its content (canonical game, the two
  specs as written, seed, opening) and must equal the stored key: a line
  edited by hand, or renamed without recomputing its key, is refused;
* a key the database already holds is not stored again: the run holds the
  recorded match (as any run that meets a recorded key does), and if the
  recorded match and the line disagree (outcome, score or actions) the file
  or the database is stale, and the import is refused;
* a file imported before (the same bytes, by SHA-256) is not imported again:
  that is a no-op that names the run holding it.

Bad input is one ``InvalidInput`` naming the file, the line and what is
valid. A file is read and checked whole before anything of it is written,
then written in one transaction with its run: a file is imported entirely or
not at all, and a list of files stopped by a bad one resumes by running the
same command again (the files already imported are no-ops).
"""

from __future__ import annotations

import gzip
import hashlib
import json
import os
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from harness.db.specs import canonical_game, game_parts
from harness.errors import InvalidInput
from harness.results import MatchResult, canonical_match_key, result_from_line

if TYPE_CHECKING:
    from harness.db.database import Database

IMPORT_KIND = "import"
# progress: (file, bytes read so far, the file's size)
Progress = Callable[[Path, int, int], None]


@dataclass(frozen=True)
class ImportedFile:
    """What importing one file did."""

    path: Path
    run_id: int
    run_name: str | None
    lines: int            # match lines read (each distinct key once)
    stored: int           # matches the database did not hold before
    held: int             # matches another run had recorded: the run holds them, nothing is doubled
    already: bool = False  # the same file was imported before: nothing was done

    def describe(self) -> str:
        """One line for the user."""
        if self.already:
            return (f"{self.path}: already imported as run {self.run_id}"
                    + (f" ({self.run_name})" if self.run_name else "") + "; nothing to do")
        return (f"{self.path}: run {self.run_id}" + (f" ({self.run_name})" if self.run_name else "")
                + f", {self.lines} matches: {self.stored} stored, {self.held} already recorded (held, not doubled)")


def file_digest(path: Path) -> str:
    """The SHA-256 of a file's bytes: how a file imported before is known again."""
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def checked_key(result: MatchResult) -> str:
    """The key a match's content gives (canonical game; specs as written, as the match layer wrote them).

    Raises:
        UnknownGame: the game is not registered.
    """
    openings = (result.extra or {}).get("openings", "")
    return canonical_match_key(canonical_game(result.game), result.player, result.opponent, result.seed,
                               0 if openings else result.opening_plies, openings)


def read_match_file(path: Path, progress: Progress | None = None) -> list[MatchResult]:
    """Every match line of ``path`` (plain or gzipped), checked, each distinct key once, in file order.

    Raises:
        InvalidInput: the file cannot be read, or a line is not a match, names an unknown game, has a key
            that does not match its content, or repeats a key with another result; the message names the
            file and the line.
    """
    size = path.stat().st_size
    opener: Any = gzip.open if _is_gzip(path) else open
    results: dict[str, MatchResult] = {}
    try:
        with opener(path, "rb") as handle:
            for number, line in enumerate(handle, 1):
                if progress is not None and number % 200 == 0:
                    progress(path, _position(handle), size)
                if not line.strip():
                    continue
                result = _checked_line(path, number, line)
                earlier = results.get(result.key)
                if earlier is not None and not same_match(earlier, result):
                    raise InvalidInput(f"{path} line {number}: key {result.key} comes twice with different "
                                       "results; a file holds each match once")
                results.setdefault(result.key, result)
    except (OSError, EOFError, gzip.BadGzipFile) as error:
        raise InvalidInput(f"cannot read {path}: {error}; give files written by harness export") from None
    if progress is not None:
        progress(path, size, size)
    return list(results.values())


def _checked_line(path: Path, number: int, line: bytes) -> MatchResult:
    where = f"{path} line {number}"
    try:
        data = json.loads(line)
    except (json.JSONDecodeError, UnicodeDecodeError) as error:
        raise InvalidInput(f"{where} is not JSON ({error}); a file holds one match a line, as harness export "
                           "writes them") from None
    try:
        result = result_from_line(data)
    except InvalidInput as error:
        raise InvalidInput(f"{where} {error}") from None
    try:
        key = checked_key(result)
    except InvalidInput as error:  # an unknown game
        raise InvalidInput(f"{where}: {error}") from None
    if key != result.key:
        raise InvalidInput(f"{where}: key {result.key} does not match the line's match (its game, players, "
                           f"seed and opening give {key}); a line edited by hand, or renamed without its key")
    return result


def same_match(first: MatchResult, second: MatchResult) -> bool:
    """Whether two results of one key tell the same match (outcome, score and every action)."""
    return (first.outcome, float(first.score), first.actions) == (second.outcome, float(second.score),
                                                                    second.actions)


def run_games(results: Iterable[MatchResult]) -> list[str]:
    """The game configurations (canonical specs) of these matches, sorted."""
    return sorted({canonical_game(result.game) for result in results})


def run_game(games: list[str]) -> str:
    """What a run of matches of ``games`` plays, as its ``game``: their one configuration, else their
    game's name (the first name, should a file mix games; the run's config lists them all)."""
    return games[0] if len(games) == 1 else sorted(game_parts(spec)[0] for spec in games)[0]


def import_files(database: Database | Callable[[], Database], paths: Iterable[str | os.PathLike[str]],
                 run_name: str | None = None, progress: Progress | None = None) -> list[ImportedFile]:
    """Load match files into the database: one run of kind ``import`` per file, or one run ``run_name`` for all.

    Every file is read and checked before the database is opened, so bad input writes nothing (and
    creates no database); then each file is read again and written in one transaction with its run.

    Args:
        database: the results database, or a function that opens it (called only once the files passed
            their checks: ``DatabaseSource.writable``).
        paths: files of match lines (``harness export`` or ``MatchResult`` lines; plain or gzipped).
        run_name: put every file's matches in one run of this name; by default each file is a run named
            after the file (its name without ``.jsonl`` / ``.gz``).
        progress: called as each file is read: (file, bytes read, its size).

    Returns:
        What each file did (with ``run_name``, one entry for all the files).

    Raises:
        InvalidInput: a missing file, a bad line (see ``read_match_file``), or a key already recorded with
            another result (then the files before it are imported, nothing of it or after it).
        DatabaseError: the write failed; nothing of that file was stored.
    """
    files = [Path(path) for path in paths]
    if not files:
        raise InvalidInput("give at least one file of match lines (harness export writes them)",
                           parameters=("files",))
    for path in files:
        if not path.is_file():
            raise InvalidInput(f"no file {str(path)!r}; give files written by harness export", parameters=("files",))
    seen: dict[str, tuple[Path, MatchResult]] = {}
    for path in files:  # every check that needs no database, before one is opened
        for result in read_match_file(path, progress):
            earlier = seen.setdefault(result.key, (path, result))
            if run_name is not None and not same_match(earlier[1], result):
                raise InvalidInput(f"{path}: match {result.key} is in {earlier[0]} with another result")
    seen.clear()
    opened = database() if callable(database) else database
    if run_name is not None:
        digest = hashlib.sha256("".join(file_digest(path) for path in files).encode()).hexdigest()
        merged = {result.key: result for path in files for result in read_match_file(path)}
        return [_import(opened, Path(", ".join(map(str, files))), list(merged.values()), run_name, digest,
                        [path.name for path in files])]
    return [_import(opened, path, None, _run_name_of(path), file_digest(path), [path.name]) for path in files]


def _import(database: Database, path: Path, results: list[MatchResult] | None, name: str | None, digest: str,
            sources: list[str]) -> ImportedFile:
    """One run from ``results`` (None: read them from ``path``), unless these bytes were imported before."""
    earlier_run = _imported_before(database, digest)
    if earlier_run is not None:
        return ImportedFile(path, earlier_run[0], earlier_run[1], 0, 0, 0, already=True)
    if results is None:
        results = read_match_file(path)
    if not results:
        raise InvalidInput(f"{path} holds no match lines; give files written by harness export")
    games = run_games(results)
    config = {"sources": sources, "sha256": digest, "lines": len(results), "games": games}
    run_id, stored, held = database.import_run(name, run_game(games), config, results)
    return ImportedFile(path, run_id, name, len(results), stored, held)


def _imported_before(database: Database, digest: str) -> tuple[int, str | None] | None:
    for run in database.runs(kind=IMPORT_KIND):
        if isinstance(run.config, dict) and run.config.get("sha256") == digest:
            return run.id, run.name
    return None


def _run_name_of(path: Path) -> str:
    name = path.name
    for suffix in (".gz", ".jsonl", ".json"):
        name = name.removesuffix(suffix)
    return name


def _is_gzip(path: Path) -> bool:
    with open(path, "rb") as handle:
        return handle.read(2) == b"\x1f\x8b"


def _position(handle: Any) -> int:
    """How far into the file a reader is, in bytes of the file (compressed bytes for a gzipped one)."""
    raw = getattr(handle, "fileobj", None)
    try:
        return (raw if raw is not None else handle).tell()
    except (OSError, ValueError):
        return 0
