"""What ``harness tune`` shows: bars and lines on stderr from the library's events, the summary.

The CLI side of tuning (rich lives here, never in ``harness.tuning``): a
tuning bar (trials, best value, games/s) and then a validation bar (games,
games/s, ETA), one line per ended trial and per pool resize, all on stderr so
stdout holds only the summary (or, with ``--json``, one JSON line).
"""

from __future__ import annotations

import json
import math
from typing import Any

from rich.console import Console, Group
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn
from rich.table import Table
from rich.text import Text

from harness.console import LoggedProgress, rate_text
from harness.tuning import Outcome, PoolResized, StageProgress, TrialEnded, TuneSummary, TuningProgress

SUMMARY_FORMAT = "harness.tune/2"
OUTCOME_FORMAT = "harness.outcome/1"


class TuneView:
    """The ``on_event`` callback of ``harness tune``: draws on ``console`` (stderr)."""

    def __init__(self, console: Console) -> None:
        self.console = console
        self.progress: Progress | None = None
        self.tuning_task: Any = None
        self.stage_tasks: dict[str, Any] = {}

    def _start(self) -> Progress:
        if self.progress is None:
            self.progress = LoggedProgress(TextColumn("[bold]{task.description}"), BarColumn(), MofNCompleteColumn(),
                                     TextColumn("{task.fields[detail]}"), TimeElapsedColumn(),
                                     TimeRemainingColumn(), console=self.console)
            self.progress.start()
        return self.progress

    def __call__(self, event: Any) -> None:
        progress = self._start()
        if isinstance(event, TuningProgress):
            best = "-" if event.best_value is None else f"{event.best_value:+.2f} (#{event.best_trial})"
            rate = event.games / event.seconds if event.seconds > 0 else 0.0
            detail = (f"trials  best gain {best}  {rate_text(rate)}  {event.trials_in_flight} in flight "
                      f"on {event.workers} workers")
            if self.tuning_task is None:
                self.tuning_task = progress.add_task("tuning", total=event.trials_target, detail=detail)
            progress.update(self.tuning_task, completed=event.trials_done, total=event.trials_target, detail=detail)
        elif isinstance(event, StageProgress):
            rate = event.games_done / event.seconds if event.seconds > 0 else 0.0
            detail = f"games  {rate_text(rate)}"
            if event.stage not in self.stage_tasks:
                self.stage_tasks[event.stage] = progress.add_task(event.stage, total=event.games_total, detail=detail)
            progress.update(self.stage_tasks[event.stage], completed=event.games_done, detail=detail)
        elif isinstance(event, TrialEnded):
            gain = "" if event.gain is None else f", gain {event.gain:+.2f}"
            progress.console.print(f"trial {event.number} {event.how} after {event.games} games{gain}")
        elif isinstance(event, PoolResized):
            change = "shrank" if event.workers < event.previous else "grew"
            cause = "(workers or a node were lost; their work runs again on the rest)" \
                if event.workers < event.previous else "(a node joined)"
            progress.console.print(f"the pool {change} from {event.previous} to {event.workers} workers {cause}")

    def close(self) -> None:
        """Stop the live display (idempotent)."""
        if self.progress is not None:
            self.progress.stop()
            self.progress = None


def summary_lines(summary: TuneSummary) -> list[str]:
    """The plain-text summary: tuning and validation games and times on lines of their own."""
    best = "-" if summary.best_value is None else f"{summary.best_value:+.3f} (trial {summary.best_trial})"
    rate = summary.games / summary.seconds if summary.seconds > 0 else 0.0
    lines = [f"study {summary.study}: {summary.trials_complete} complete, {summary.trials_pruned} pruned; "
             f"best in-study gain over the incumbent {best}",
             f"tuning: {summary.games} games played ({summary.reused_games} reused from the database) in "
             f"{summary.seconds:.0f}s, {rate_text(rate)} on {summary.workers} workers"]
    if summary.outcome is not None:
        lines.append(f"race and confirmation: {summary.selection_games} games played in "
                     f"{summary.selection_seconds:.0f}s")
    return lines


def summary_json(summary: TuneSummary) -> str:
    """The one-line machine-readable summary of ``harness tune --json``."""
    return _json_line(SUMMARY_FORMAT, summary.to_dict())


def outcome_json(outcome: Outcome) -> str:
    """The one-line machine-readable result of ``harness tune --validate --json``."""
    return _json_line(OUTCOME_FORMAT, outcome.to_dict())


def _json_line(format_name: str, data: dict[str, Any]) -> str:
    """One strict JSON line tagged with its format (no NaN or infinity: see ``_finite``)."""
    return json.dumps(_finite({"format": format_name, **data}), allow_nan=False, default=str)


def _finite(value: Any) -> Any:
    """JSON data with infinite or NaN floats (an interval of one game) as null."""
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return {key: _finite(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [_finite(item) for item in value]
    return value


def outcome_table(outcome: Outcome) -> Any:
    """A rich renderable of a study's outcome: the in-study gain, the race and the confirmation side by side
    (every gain over the incumbent, paired by opening, with its 95% interval), then the verdict and the specs."""
    measure = "score" if outcome.objective == "mean_score" else outcome.objective
    settings = ", ".join(f"{key}={value:,}" if isinstance(value, int) else f"{key}={value}"
                         for key, value in outcome.settings.items())
    table = Table(title=f"{outcome.study}: gain in {measure} over the incumbent, paired by opening "
                        f"({outcome.game})")
    for column in ("player", "in study", "race", "confirmation"):
        table.add_column(column, no_wrap=True)
    for row in outcome.rows():
        table.add_row(*(row[column] for column in ("player", "in study", "race", "confirmation")))
    parts: list[Any] = [table]
    c = outcome.confirmation
    if c is not None:
        parts.append(Text(
            f"confirmation: {c.openings} openings x {len(outcome.opponents)} opponents"
            + (f" at {settings}" if settings else "")
            + f"; sized from the race's spread {c.sd:.2f} to find a gain of {c.smallest_gain:g} "
            f"(finds {c.detectable:.2f} with the stated power); W/D/L {'/'.join(map(str, c.tuned_wdl))} "
            f"against the incumbent's {'/'.join(map(str, c.incumbent_wdl))}"))
    parts.append(Text.assemble(("verdict: ", "bold"), (outcome.verdict.upper(), "bold"), f" ({outcome.reason})"))
    specs = f"incumbent: {outcome.incumbent_spec}"
    if outcome.winner_spec is not None:
        specs += f"\nwinner (trial {outcome.winner}): {outcome.winner_spec}, saved as {outcome.named_player}"
    parts.append(Text(specs))
    return Group(*parts)
