"""A study's report: one self-contained HTML page.

Optuna's own visualisation module draws the optimisation history, the
parameter importances and the rest (through ``harness.tuning``, the only
module that imports Optuna); this module adds the score distribution of the
defaults against the tuned weights on the validation seeds and the
leaderboard, both from the results database. plotly.js is embedded once, with
the first figure, so the page opens offline.
"""

from __future__ import annotations

import html
from dataclasses import asdict, dataclass, is_dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from harness import tuning
from harness.errors import InvalidInput
from harness.files import check_output_file, write_text_whole
from harness.verdicts import shown_verdict
from players.named import SpecResolver

if TYPE_CHECKING:
    from harness.db import Database

PAGE = """<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>{title}</title>
<style>
body {{ font-family: system-ui, sans-serif; margin: 2em auto; max-width: 1100px; color: #222; }}
table {{ border-collapse: collapse; margin: 1em 0; font-size: 0.9em; }}
th, td {{ border: 1px solid #ccc; padding: 0.3em 0.6em; text-align: left; }}
th {{ background: #f3f3f3; }}
code {{ font-size: 0.9em; }}
</style></head><body>
<h1>{title}</h1>
{body}
</body></html>
"""


def _table(rows: list[dict[str, Any]], columns: list[str] | None = None) -> str:
    if not rows:
        return "<p>(none)</p>"
    columns = columns or list(rows[0])
    head = "".join(f"<th>{html.escape(str(c))}</th>" for c in columns)
    body = "".join("<tr>" + "".join(f"<td>{html.escape(_cell(row.get(c)))}</td>" for c in columns) + "</tr>"
                   for row in rows)
    return f"<table><tr>{head}</tr>{body}</table>"


def _cell(value: Any) -> str:
    if isinstance(value, float):
        return f"{value:.4g}"
    if isinstance(value, dict):
        return ", ".join(f"{k}={_cell(v)}" for k, v in value.items())
    return "" if value is None else str(value)


def _plain(row: Any) -> dict[str, Any]:
    if is_dataclass(row):
        return asdict(row)
    if isinstance(row, dict):
        return dict(row)
    return {k: v for k, v in vars(row).items() if not k.startswith("_")}


def score_distribution(db: Database, config: tuning.StudyFile, outcome: tuning.Outcome | None) -> tuple[Any, list[dict]]:
    """Histogram of the confirmation's scores of the incumbent and of the winner, and their summary rows."""
    import plotly.graph_objects as go
    figure = go.Figure()
    summary = []
    labels = [("incumbent", "incumbent")]
    if outcome is not None and outcome.winner is not None:
        labels.append((f"trial-{outcome.winner}", f"winner (trial {outcome.winner})"))
    for run_label, legend in labels:
        run = db.run(tuning.stage_run_name(config, "confirmation", run_label))
        if run is None:
            continue
        scores = [record.score for record in db.matches(run_id=run.id)]
        if not scores:
            continue
        figure.add_trace(go.Histogram(x=scores, name=legend, opacity=0.6))
        summary.append({"player": legend, "games": len(scores), "mean score": sum(scores) / len(scores),
                        "spec": run.config.get("player") if isinstance(run.config, dict) else ""})
    figure.update_layout(barmode="overlay", xaxis_title="documented score", yaxis_title="games",
                         title="Confirmation scores: incumbent vs winner (same openings)")
    return (figure if summary else None), summary


@dataclass(frozen=True)
class StudyView:
    """Everything a study's page shows, gathered once: for the HTML report and for ``harness serve``."""

    config: tuning.StudyFile
    trials: tuple[dict[str, Any], ...]
    best: dict[str, Any] | None
    counts: dict[str, int]
    figures: tuple[tuple[str, Any], ...]
    outcome: tuning.Outcome | None
    confirmation_summary: tuple[dict[str, Any], ...]
    leaderboard: tuple[dict[str, Any], ...]

    @property
    def empty_line(self) -> str | None:
        """One line when the study has no complete trial yet (None when it has one)."""
        if self.best is not None:
            return None
        return (f"study {self.config.name} has no complete trial yet ({self.counts['pruned']} pruned, "
                f"{self.counts['running']} running); harness tune runs more")


@dataclass(frozen=True)
class Report:
    """A written report: where, and what the study held."""

    path: Path
    view: StudyView


def study_view(reference: str, db_url: str | None = None) -> StudyView:
    """Gather a stored study's trials, Optuna figures, outcome (race, confirmation, verdict) and leaderboard.

    Raises:
        InvalidInput: no results database yet, or the study is not in it.
    """
    from harness.db import database_exists, mask_url, open_database
    url = tuning.database_url(db_url)
    if not database_exists(url):  # before Optuna's storage would create the file
        raise InvalidInput(f"no results database at {mask_url(url)}; give db_url URL where the study was tuned "
                           "(harness studies lists them)", parameters=("db_url",))
    with open_database(url, read_only=True) as db:  # first: a database the harness must not read is refused
        config = tuning.study_reference(reference, url)
        trials = tuning.study_trials(config.name, url)
        complete = [t for t in trials if t["state"] == "complete"]
        best = max(complete, key=lambda t: t["value"], default=None)
        figures = tuning.study_figures(config.name, url)
        outcome = tuning.recorded_outcome(config, db, url) if best is not None else None
        distribution, summary = score_distribution(db, config, outcome)
        opponents = tuning_opponents(db, config)
        several = len(config.game_specs) > 1
        leaderboard = [({"game": game} if several else {}) | ({"opponent": opponent} if len(opponents) > 1 else {})
                       | _plain(row) for game in config.game_specs for opponent in opponents
                       for row in db.leaderboard(game, opponent=opponent)]
    if distribution is not None:
        figures.append(("Score distribution on the confirmation openings", distribution))
    counts = {state: sum(t["state"] == state for t in trials) for state in ("complete", "pruned", "fail", "running")}
    return StudyView(config, tuple(trials), best, counts, tuple(figures), outcome, tuple(summary),
                     tuple(leaderboard))


def trial_rows(trials: Any) -> list[dict[str, Any]]:
    """The trials table: a pruned trial shows the last value it reported and the games it played."""
    rows = []
    for trial in trials:
        intermediate = trial.get("intermediate") or {}
        last_step = max(intermediate, key=int, default=None)
        rows.append({"number": trial["number"], "state": trial["state"], "value": trial["value"],
                     "last intermediate": None if last_step is None
                     else f"{intermediate[last_step]:.4g} at step {last_step}",
                     "games": trial.get("games"), "params": trial["params"]})
    return rows


def study_body(view: StudyView, plotlyjs: bool | str = True) -> str:
    """The HTML body of a study's page.

    Args:
        view: the gathered study.
        plotlyjs: ``True`` embeds plotly.js once with the first figure (a
            self-contained file); ``False`` leaves it to the page (``harness
            serve`` serves it locally).
    """
    config, best = view.config, view.best
    sections: list[str] = []
    sections.append(
        f"<p>Game <code>{html.escape(config.games_label)}</code>, player <code>"
        f"{html.escape(config.player_spec(config.incumbent_weights()))}</code> (the incumbent) against <code>"
        f"{html.escape(config.opponent)}</code>; objective <b>{html.escape(config.objective)}</b>, a trial's value "
        f"its paired gain over the incumbent on {config.openings_per_trial} openings of the suite "
        f"<code>{html.escape(config.suite)}</code> ({config.blocks} blocks of {config.block}; pruner "
        f"{config.pruner}, sampler {config.sampler}). "
        f"Trials: {view.counts['complete']} complete, {view.counts['pruned']} pruned.</p>")
    if view.outcome is not None:
        sections.append(f"<p>Verdict: <b>{html.escape(view.outcome.verdict.upper())}</b> "
                        f"({html.escape(view.outcome.reason)}).</p>")
    if best is not None:
        sections.append(f"<p>Best in-study trial <b>#{best['number']}</b>, gain {best['value']:+.4g}: "
                        f"<code>{html.escape(_cell(best['params']))}</code></p>")
    else:
        sections.append(f"<p class=\"empty\">{html.escape(view.empty_line or '')}</p>")
    plotly_embedded = plotlyjs is False
    for title, figure in view.figures:
        sections.append(f"<h2>{html.escape(title)}</h2>")
        if figure is None:
            continue
        sections.append(figure.to_html(full_html=False, include_plotlyjs=not plotly_embedded))
        plotly_embedded = True
    sections.append("<h2>Race and confirmation</h2>" + _outcome_html(view.outcome)
                    + _table(list(view.confirmation_summary)))
    sections.append(f"<h2>Leaderboard: {html.escape(config.games_label)}</h2>" + _table(list(view.leaderboard)))
    sections.append("<h2>Trials</h2>" + _table(trial_rows(view.trials),
                                               ["number", "state", "value", "last intermediate", "games", "params"]))
    return "\n".join(sections)


def build_report(reference: str, out: str | Path, db_url: str | None = None) -> Report:
    """Write the HTML report of a study (by name or study file) to ``out``.

    Raises:
        InvalidInput: there is no database yet, or the study is not in it.
        UnusableResource: ``out`` cannot be written (checked before any work).
            Nothing is written then, and a failed write leaves nothing behind.
    """
    path = check_output_file(out)
    view = study_view(reference, db_url)
    write_text_whole(path, PAGE.format(title=html.escape(f"Study {view.config.name}"), body=study_body(view)))
    return Report(path, view)


def write_report(reference: str, out: str | Path, db_url: str | None = None) -> Path:
    """Write the HTML report of a study (by name or study file) to ``out``; returns the path written.

    Raises:
        InvalidInput: see ``build_report``.
    """
    return build_report(reference, out, db_url).path


STUDIES_FORMAT = "harness.studies/1"


def studies_document(db_url: str | None = None) -> dict[str, Any]:
    """The studies recorded in the results database as the JSON document of ``harness studies --json``.

    A study is listed once a trial or validation of it is recorded (its runs
    name it); its trials come from Optuna's storage in the same database.

    Raises:
        InvalidInput: no results database yet.
    """
    from harness.db import open_database
    url = tuning.database_url(db_url)
    with open_database(url, read_only=True) as db:
        names = db.study_names()
        runs = db.run_summaries(kind="study")
        tuned = {p.name: p for p in db.named_player_records()}
    studies = []
    for name in names:
        try:
            trials = tuning.study_trials(name, url)
        except InvalidInput:  # runs of a study whose Optuna storage is elsewhere or gone
            trials = []
        own = [r for r in runs if r.run.study == name]
        complete = [t for t in trials if t["state"] == "complete"]
        best = max(complete, key=lambda t: t["value"], default=None)
        count = {state: sum(t["state"] == state for t in trials) for state in ("complete", "pruned", "fail", "running")}
        player = tuned.get(name)
        studies.append({"name": name, "game": own[0].run.game if own else None, "trials": len(trials),
                        "complete": count["complete"], "pruned": count["pruned"], "failed": count["fail"],
                        "running": count["running"], "best_trial": None if best is None else best["number"],
                        "best_value": None if best is None else best["value"],
                        "best_params": None if best is None else best["params"],
                        "games": sum(r.matches for r in own),
                        "tuned_player": None if player is None else f"tuned:{name}",
                        "tuned_spec": None if player is None else player.spec,
                        "tuned_verdict": None if player is None else shown_verdict(player.verdict),
                        "tuned_verdict_detail": None if player is None else player.detail})
    return {"format": STUDIES_FORMAT, "studies": studies}


def _outcome_html(outcome: tuning.Outcome | None) -> str:
    if outcome is None:
        return "<p>Not raced and confirmed yet: <code>harness tune --validate STUDY</code>.</p>"
    saved = ("" if outcome.winner_spec is None else
             f" Saved as <b>{html.escape(outcome.named_player)}</b>: <code>{html.escape(outcome.winner_spec)}</code>.")
    return (f"<p>Winner of the race: {'none' if outcome.winner is None else f'trial {outcome.winner}'}. "
            f"Verdict: <b>{html.escape(outcome.verdict.upper())}</b> ({html.escape(tuning.VERDICT_RULES[outcome.verdict])})."
            f"{saved}</p>" + _table(outcome.rows()))


def tuning_opponents(db: Database, config: tuning.StudyFile) -> tuple[str, ...]:
    """The study's opponents as the results database records them (named players resolved)."""
    resolver = SpecResolver(db, allow_engines=True)  # only read
    return tuple(resolver.canonical(opponent) for opponent in config.opponents)
