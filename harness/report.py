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
from dataclasses import asdict, is_dataclass
from pathlib import Path
from typing import Any

from harness import tuning
from harness.files import check_output_file, write_text_whole

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


def score_distribution(db: Any, config: tuning.StudyFile, best_trial: int | None) -> tuple[Any, list[dict]]:
    """Histogram of the validation scores of the defaults and of the best trial, and their summary rows."""
    import plotly.graph_objects as go
    figure = go.Figure()
    summary = []
    labels = [("defaults", "defaults")]
    if best_trial is not None:
        labels.append((f"trial-{best_trial}", f"tuned (trial {best_trial})"))
    for run_label, legend in labels:
        run = db.run(f"{config.name}/validation/{run_label}")
        if run is None:
            continue
        scores = [record.score for record in db.matches(run_id=run.id)]
        if not scores:
            continue
        figure.add_trace(go.Histogram(x=scores, name=legend, opacity=0.6))
        summary.append({"player": legend, "games": len(scores), "mean score": sum(scores) / len(scores),
                        "spec": run.config.get("player") if isinstance(run.config, dict) else ""})
    figure.update_layout(barmode="overlay", xaxis_title="documented score", yaxis_title="games",
                         title="Validation scores: defaults vs tuned (same seeds)")
    return (figure if summary else None), summary


def write_report(reference: str, out: str | Path, db_url: str | None = None) -> Path:
    """Write the HTML report of a study (by name or study file) to ``out``.

    Returns:
        The path written.

    Raises:
        InvalidInput: the study is not in the database.
        UnusableResource: ``out`` cannot be written (checked before any work).
    """
    from harness.db import open_database
    out = check_output_file(out)
    url = tuning.database_url(db_url)
    config = tuning.study_reference(reference, url)
    trials = tuning.study_trials(config.name, url)
    complete = [t for t in trials if t["state"] == "complete"]
    best = max(complete, key=lambda t: t["value"], default=None)
    sections: list[str] = []
    figures = tuning.study_figures(config.name, url)
    db = open_database(url)
    try:
        validation = tuning.recorded_validation(config, db, url)
        distribution, summary = score_distribution(db, config, best["number"] if best else None)
        leaderboard = [_plain(row) for row in db.leaderboard(config.game, opponent=tuning_opponent(db, config))]
    finally:
        db.close()
    if distribution is not None:
        figures.append(("Score distribution on the validation seeds", distribution))
    counts = {state: sum(t["state"] == state for t in trials) for state in ("complete", "pruned", "fail")}
    sections.append(
        f"<p>Game <code>{html.escape(config.game)}</code>, player <code>"
        f"{html.escape(config.player_spec(config.default_weights()))}</code> (defaults) against <code>{html.escape(config.opponent)}</code>; objective "
        f"<b>{html.escape(config.objective)}</b> over {config.games} tuning games per trial "
        f"(rungs {list(config.rungs)}, pruner {config.pruner}, sampler {config.sampler}). "
        f"Trials: {counts['complete']} complete, {counts['pruned']} pruned, {counts['fail']} failed.</p>")
    if best is not None:
        sections.append(f"<p>Best trial <b>#{best['number']}</b>, value {best['value']:.4g}: "
                        f"<code>{html.escape(_cell(best['params']))}</code></p>")
    plotly_embedded = False
    for title, figure in figures:
        sections.append(f"<h2>{html.escape(title)}</h2>")
        if figure is None:
            continue
        sections.append(figure.to_html(full_html=False, include_plotlyjs=not plotly_embedded))
        plotly_embedded = True
    sections.append("<h2>Validation</h2>" + _validation_html(validation) + _table(summary))
    sections.append(f"<h2>Leaderboard: {html.escape(config.game)}</h2>" + _table(leaderboard))
    sections.append("<h2>Trials</h2>" + _table(trials, ["number", "state", "value", "games", "params"]))
    return write_text_whole(out, PAGE.format(title=html.escape(f"Study {config.name}"), body="\n".join(sections)))


def _validation_html(validation: tuning.Validation | None) -> str:
    if validation is None:
        return "<p>Not validated yet: <code>harness tune --validate STUDY</code>.</p>"
    rows = [{"": label, "mean": interval.mean, "95% low": interval.low, "95% high": interval.high}
            for label, interval in (("defaults", validation.defaults),
                                    (f"tuned (trial {validation.best_trial})", validation.tuned),
                                    ("tuned - defaults (paired)", validation.difference))]
    return (f"<p>{validation.games} paired games on the validation seeds. Tuned vs defaults: "
            f"<b>{html.escape(validation.verdict.upper())}</b> "
            f"({html.escape(tuning.VERDICTS[validation.verdict])}).</p>" + _table(rows))


def tuning_opponent(db: Any, config: tuning.StudyFile) -> str:
    """The study's opponent as the results database records it (named players resolved)."""
    from players import load as load_player
    return load_player(db.resolve_spec(config.opponent)).spec
