"""The ORM models of the results database (SQLAlchemy 2.x declarative).

One row per distinct player configuration (``players``, keyed by a stable
hash of the canonical spec), per run of work (``runs``: a tournament, one
tuning trial, a live session), per distinct finished match (``matches``,
unique by the match's deterministic key: a re-run batch, a retried trial or
the same gauntlet run twice store each match once, so every count over the
table counts distinct matches), per membership of a match in a run
(``run_matches``: a run that played or reused a match already recorded by
another holds it here, without a copy), per alias of a tuned or fitted configuration
with its study's verdict (``named_players``), per live game in progress
(``live_games``, so an interrupted live session can resume) and per label of
a position (``position_labels``: what ``harness fit`` paid a search for, so a
refit or a resumed labelling pays nothing again).

The schema is changed only through the Alembic migrations in
``harness/db/migrations``; a test checks that migrating an empty database
gives exactly these models.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import JSON, BigInteger, DateTime, Float, ForeignKey, Index, Integer, MetaData, String, Text
from sqlalchemy import UniqueConstraint
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column

# Explicit constraint names, so migrations can address them on every backend.
NAMING_CONVENTION = {
    "ix": "ix_%(table_name)s_%(column_0_N_name)s",
    "uq": "uq_%(table_name)s_%(column_0_N_name)s",
    "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
    "pk": "pk_%(table_name)s",
}

SPEC = 400  # longest game or player spec text kept in an indexed column


class Base(DeclarativeBase):
    """Declarative base carrying the harness's metadata."""

    metadata = MetaData(naming_convention=NAMING_CONVENTION)


class PlayerRow(Base):
    """One player configuration: the same canonical spec is always the same row."""

    __tablename__ = "players"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    hash: Mapped[str] = mapped_column(String(64), unique=True)
    kind: Mapped[str] = mapped_column(String(64))
    spec: Mapped[str] = mapped_column(Text)
    params: Mapped[dict[str, Any]] = mapped_column(JSON)
    created: Mapped[datetime] = mapped_column(DateTime(timezone=True))


class RunRow(Base):
    """One run of work: a tournament, a tuning trial or a live session."""

    __tablename__ = "runs"
    __table_args__ = (Index(None, "study", "trial"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    name: Mapped[str | None] = mapped_column(String(200), index=True)
    kind: Mapped[str] = mapped_column(String(16))
    game: Mapped[str] = mapped_column(String(SPEC))
    config: Mapped[dict[str, Any]] = mapped_column(JSON)
    status: Mapped[str] = mapped_column(String(16))
    started: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    ended: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    host: Mapped[str] = mapped_column(String(255))
    version: Mapped[str] = mapped_column(String(64))
    study: Mapped[str | None] = mapped_column(String(200))
    trial: Mapped[int | None] = mapped_column(Integer)


class MatchRow(Base):
    """One distinct finished match, from the user's seat; unique by its key.

    ``run_id`` is the run that recorded it first; every run that holds it
    (that one included) has a ``run_matches`` row. The older per-run unique
    constraint is kept (implied by the key's, and dropping it would rebuild
    the table on SQLite).
    """

    __tablename__ = "matches"
    __table_args__ = (
        UniqueConstraint("run_id", "key"),
        Index(None, "key", unique=True),
        Index(None, "game", "player_id"),
        Index(None, "game", "opponent_id"),
        Index(None, "game_name"),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    run_id: Mapped[int] = mapped_column(ForeignKey("runs.id", ondelete="CASCADE"))
    key: Mapped[str] = mapped_column(String(200))
    game: Mapped[str] = mapped_column(String(SPEC))
    game_name: Mapped[str] = mapped_column(String(64))
    seat: Mapped[str | None] = mapped_column(String(16))
    seed: Mapped[int] = mapped_column(BigInteger)
    opening_plies: Mapped[int] = mapped_column(Integer)
    player_id: Mapped[int] = mapped_column(ForeignKey("players.id"))
    opponent_id: Mapped[int] = mapped_column(ForeignKey("players.id"))
    outcome: Mapped[str] = mapped_column(String(8))
    reason: Mapped[str] = mapped_column(String(64))
    score: Mapped[float] = mapped_column(Float)
    counters: Mapped[dict[str, int]] = mapped_column(JSON)
    plies: Mapped[int] = mapped_column(Integer)
    actions: Mapped[list[dict[str, Any]]] = mapped_column(JSON)
    duration_s: Mapped[float] = mapped_column(Float)
    player_s: Mapped[float] = mapped_column(Float)
    opponent_s: Mapped[float] = mapped_column(Float)
    source: Mapped[str] = mapped_column(String(8))
    server_score: Mapped[float | None] = mapped_column(Float)
    error: Mapped[str | None] = mapped_column(Text)
    extra: Mapped[dict[str, Any]] = mapped_column(JSON)
    recorded: Mapped[datetime] = mapped_column(DateTime(timezone=True))


class RunMatchRow(Base):
    """A match held by a run: the run played it, or reused the recorded one (same key)."""

    __tablename__ = "run_matches"

    run_id: Mapped[int] = mapped_column(ForeignKey("runs.id", ondelete="CASCADE"), primary_key=True)
    match_id: Mapped[int] = mapped_column(ForeignKey("matches.id", ondelete="CASCADE"), primary_key=True,
                                          index=True)


class NamedPlayerRow(Base):
    """An alias ``<kind>:<name>`` for a stored canonical player spec, with its study's verdict.

    ``kind`` says where the player came from: ``tuned`` (a study, ``harness
    tune``) or ``fitted`` (``harness fit``); names are one namespace, so a
    name means one player whatever its kind. ``verdict`` is one of
    ``harness.verdicts.VERDICTS``, NULL for a player no confirmation stands
    behind (saved before verdicts were kept, by hand, or fitted);
    ``verdict_detail`` is the confirmation's evidence in a few words.
    """

    __tablename__ = "named_players"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    name: Mapped[str] = mapped_column(String(200), unique=True)
    spec: Mapped[str] = mapped_column(Text)
    game: Mapped[str] = mapped_column(String(SPEC))
    note: Mapped[str] = mapped_column(Text)
    created: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    verdict: Mapped[str | None] = mapped_column(String(16))
    verdict_detail: Mapped[str | None] = mapped_column(Text)
    kind: Mapped[str] = mapped_column(String(16), server_default="tuned")


class LiveGameRow(Base):
    """A live game's last known server state, so a session can resume after a fault."""

    __tablename__ = "live_games"
    __table_args__ = (UniqueConstraint("run_id", "key"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    run_id: Mapped[int] = mapped_column(ForeignKey("runs.id", ondelete="CASCADE"))
    key: Mapped[str] = mapped_column(String(200))
    game: Mapped[str] = mapped_column(String(SPEC))
    seed: Mapped[int] = mapped_column(BigInteger)
    player: Mapped[str] = mapped_column(Text)
    server_state: Mapped[Any] = mapped_column(JSON)
    actions: Mapped[list[Any]] = mapped_column(JSON)
    status: Mapped[str] = mapped_column(String(32))
    error: Mapped[str | None] = mapped_column(Text)
    server_score: Mapped[float | None] = mapped_column(Float)
    updated: Mapped[datetime] = mapped_column(DateTime(timezone=True))


class PositionLabelRow(Base):
    """One label of one position: what a deeper search or a solver said of it, from the side to move.

    ``position`` is the position's key (``harness.fitting.positions.position_key``: a digest of the state
    the rules replay to, history included); ``label`` names the labeller in canonical form
    (``search:<player spec>``, ``exact:<solver budget>``), so another labeller never reads these values.
    ``value`` is in [0, 1] (1 a win for the side to move), NULL when the labeller does not reach the
    position (the solver's budget); ``raw`` is the search's value in its evaluation units, when there is one.
    """

    __tablename__ = "position_labels"
    __table_args__ = (UniqueConstraint("game", "label", "position"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    game: Mapped[str] = mapped_column(String(64))
    label: Mapped[str] = mapped_column(String(SPEC))
    position: Mapped[str] = mapped_column(String(64))
    value: Mapped[float | None] = mapped_column(Float)
    raw: Mapped[float | None] = mapped_column(Float)
    created: Mapped[datetime] = mapped_column(DateTime(timezone=True))
