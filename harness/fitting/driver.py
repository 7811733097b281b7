"""``harness fit`` as one call: matches -> positions -> labels (on the pool, stored) -> fit -> ``fitted:<name>``.

Everything the command is given is checked before any work (the labeller,
the base player, the name); the positions are replayed in the driver, the
labels searched on the pool (the expensive part), the fit run in the driver.
A stop (Ctrl-C, SIGTERM) during labelling keeps every label stored so far:
the same command resumes and labels only the rest.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from typing import TYPE_CHECKING, Any

from harness.errors import InvalidInput, SpecError
from harness.fitting.fit import RIDGE, FitResult, fit_weights
from harness.fitting.labels import Labeller, label_positions, make_labeller
from harness.fitting.positions import (MatchFilter, extract_positions, file_matches, recorded_matches,
                                       replay_position)
from harness.games import kit, parse_spec
from harness.interrupts import is_stop

if TYPE_CHECKING:
    from harness.dbsource import DatabaseSource

FORMAT = "harness.fit/1"


@dataclass(frozen=True)
class FitRequest:
    """What ``harness fit`` was asked: the game, where the games come from, the labeller, the fit's settings.

    Attributes:
        game: the game (its name or any of its specs).
        chosen: which recorded matches (runs, studies, players, opponents).
        files: ``harness export`` files to read instead of the database's matches.
        label: ``result``, ``search`` or ``exact``.
        label_player: the searching player of the ``search`` label.
        positions: at most this many positions (a seeded sample), None for all.
        seed: the sample's and the held-out split's seed.
        holdout: the share of positions held out.
        name: the named player to save (``fitted:<name>``), None to save nothing.
        base: the player whose weights are fitted (its other settings kept): default ``strong``'s alpha-beta.
        fixed: weights held at their defaults.
        ridge: the fit's L2 penalty toward the defaults, in positions' worth (``fit.RIDGE`` by default).
        workers, address: the pool (``--workers``, ``--address``).
    """

    game: str
    chosen: MatchFilter = MatchFilter()
    files: tuple[str, ...] = ()
    label: str = "result"
    label_player: str | None = None
    positions: int | None = None
    seed: int = 0
    holdout: float = 0.2
    name: str | None = None
    base: str = "strong"
    fixed: tuple[str, ...] = ()
    ridge: float = RIDGE
    workers: int | None = None
    address: str | None = None


@dataclass(frozen=True)
class FitReport:
    """What a fit did: positions and labels, the fit, the player saved; ``interrupted`` when a stop came first."""

    game: str
    label: str
    matches: int
    positions: int
    labelled: int
    label_seconds: float
    result: FitResult | None
    spec: str | None
    saved: str | None
    interrupted: bool = False

    def to_dict(self) -> dict[str, Any]:
        """The one JSON line of ``harness fit --json`` (format ``harness.fit/1``, docs/tuning.md)."""
        data: dict[str, Any] = {"format": FORMAT, "game": self.game, "label": self.label, "matches": self.matches,
                                "positions": self.positions, "labelled": self.labelled,
                                "label_seconds": round(self.label_seconds, 3), "interrupted": self.interrupted,
                                "spec": self.spec, "player": self.saved}
        if self.result is not None:
            data.update({key: value for key, value in asdict(self.result).items()} | {
                "seconds": round(self.result.seconds, 3), "held": list(self.result.held)})
        return data


def fitted_spec(base: str, game: str, weights: dict[str, float]) -> str:
    """The canonical spec of ``base`` (``strong`` means its alpha-beta form) with ``weights``.

    Raises:
        SpecError: a base player that takes no weights.
    """
    from players import load as load_player
    from players.strong import strong_spec
    player = load_player(strong_spec(game) if base == "strong" else base, game)
    if not hasattr(player, "search"):
        raise SpecError(f"base {base!r} has no evaluation weights to fit; give strong or an alphabeta spec")
    return type(player)(dict(player.params), dict(player.weights) | weights).spec


def check_request(request: FitRequest) -> Labeller:
    """Every part of ``request`` that can be checked before work, and its labeller.

    Raises:
        InvalidInput / SpecError: bad input, with the option to blame named.
    """
    from harness.db.database import check_player_name
    kit(request.game)  # UnknownGame for a game that is not registered
    parse_spec(request.game)
    if request.files and (request.chosen.runs or request.chosen.studies):
        raise InvalidInput("give the games either from export files (files) or from the database (runs, studies), not both",
                           parameters=("files", "runs", "studies"))
    if request.positions is not None and request.positions < 10:
        raise InvalidInput(f"positions must be at least 10, not {request.positions}", parameters=("positions",))
    if request.name is not None:
        check_player_name(request.name, "name")
    features = kit(request.game).features
    for weight in request.fixed:
        if weight not in features:
            raise InvalidInput(f"{weight!r} is not a feature of {kit(request.game).name}; valid: "
                               f"{', '.join(features)}", parameters=("fixed",))
    fitted_spec(request.base, request.game, {})
    return make_labeller(request.label, request.game, request.label_player)


def run_fit(request: FitRequest, source: DatabaseSource,
            progress: Callable[[int, int], None] | None = None) -> FitReport:
    """Fit ``request.game``'s weights as ``request`` says; see the module's docstring.

    Raises:
        InvalidInput: bad input, or no positions in the games chosen.
    """
    labeller = check_request(request)
    game = request.game
    if request.files:
        matches = list(file_matches(request.files, game))
        matches = _chosen_in_files(matches, request.chosen, game)
    else:
        matches = list(recorded_matches(source.existing(), game, request.chosen))
    reached = getattr(kit(game).search, "reaches", None) if labeller.kind == "exact" else None
    positions = extract_positions(game, matches, request.positions, request.seed, keep=reached)
    if not positions:
        where = " that its solver reaches" if reached is not None else ""
        raise InvalidInput(f"no open {kit(game).name} positions{where} in the {len(matches)} matches chosen; "
                           "record games first (harness tournament) or choose others")
    database = source.writable() if labeller.stored or request.name else None
    started = time.perf_counter()
    labels: dict[str, float] = {}
    interrupted = False
    try:
        if labeller.stored:
            from harness.cluster import using_pool
            with using_pool(None, workers=request.workers, address=request.address) as pool:
                labels = label_positions(game, positions, labeller, database=database, pool=pool, progress=progress)
        else:
            labels = label_positions(game, positions, labeller)
    except BaseException as error:  # a stop: the labels stored stay, the same command resumes
        if not is_stop(error):
            raise
        interrupted = True
    label_seconds = time.perf_counter() - started
    if interrupted:
        return FitReport(kit(game).name, labeller.name, len(matches), len(positions), len(labels), label_seconds,
                         None, None, None, interrupted=True)
    chosen = [position for position in positions if position.key in labels]
    states = [replay_position(game, position) for position in chosen]
    result = fit_weights(game, states, [labels[p.key] for p in chosen], holdout=request.holdout,
                         seed=request.seed, fixed=request.fixed, ridge=request.ridge)
    spec = fitted_spec(request.base, game, result.weights)
    saved = None
    if request.name is not None and database is not None:
        note = (f"harness fit: {labeller.name} labels, {result.train_positions + result.heldout_positions} "
                f"positions, ridge {result.ridge:g}, held-out loss {result.loss_before:.4f} -> {result.loss_after:.4f}")
        database.save_named_player(request.name, spec, kit(game).name, note, kind="fitted")
        saved = f"fitted:{request.name}"
    return FitReport(kit(game).name, labeller.name, len(matches), len(positions), len(chosen), label_seconds,
                     result, spec, saved)


def _chosen_in_files(matches: Sequence[Any], chosen: MatchFilter, game: str) -> list[Any]:
    """The file's matches whose player and opponent ``chosen`` names (canonical specs compared)."""
    from players import load as load_player
    players = {load_player(spec, game).spec for spec in chosen.players}
    opponents = {load_player(spec, game).spec for spec in chosen.opponents}
    return [match for match in matches if (not players or match.player in players)
            and (not opponents or match.opponent in opponents)]
