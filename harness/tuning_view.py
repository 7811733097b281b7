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
from harness.tuning import (VERDICTS, PoolResized, TrialEnded, TuneSummary, TuningProgress, Validation,
                            ValidationProgress)

SUMMARY_FORMAT = "harness.tune/1"
VALIDATION_FORMAT = "harness.validate/1"


class TuneView:
    """The ``on_event`` callback of ``harness tune``: draws on ``console`` (stderr)."""

    def __init__(self, console: Console) -> None:
        self.console = console
        self.progress: Progress | None = None
        self.tuning_task: Any = None
        self.validation_task: Any = None

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
            best = "-" if event.best_value is None else f"{event.best_value:.2f} (#{event.best_trial})"
            rate = event.games / event.seconds if event.seconds > 0 else 0.0
            detail = (f"trials  best {best}  {rate_text(rate)}  {event.trials_in_flight} in flight "
                      f"on {event.workers} workers")
            if self.tuning_task is None:
                self.tuning_task = progress.add_task("tuning", total=event.trials_target, detail=detail)
            progress.update(self.tuning_task, completed=event.trials_done, total=event.trials_target, detail=detail)
        elif isinstance(event, ValidationProgress):
            rate = event.games_done / event.seconds if event.seconds > 0 else 0.0
            detail = f"games  {rate_text(rate)}"
            if self.validation_task is None:
                self.validation_task = progress.add_task("validation", total=event.games_total, detail=detail)
            progress.update(self.validation_task, completed=event.games_done, detail=detail)
        elif isinstance(event, TrialEnded):
            mean = "" if event.mean is None else f", mean {event.mean:.2f}"
            progress.console.print(f"trial {event.number} {event.how} after {event.games} games{mean}")
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
    best = "-" if summary.best_value is None else f"{summary.best_value:.3f} (trial {summary.best_trial})"
    rate = summary.games / summary.seconds if summary.seconds > 0 else 0.0
    lines = [f"study {summary.study}: {summary.trials_complete} complete, {summary.trials_pruned} pruned, "
             f"{summary.trials_failed} failed; best {best}",
             f"tuning: {summary.games} games played ({summary.reused_games} reused from the database) in "
             f"{summary.seconds:.0f}s, {rate_text(rate)} on {summary.workers} workers"]
    if summary.validation is not None:
        lines.append(f"validation: {summary.validation_games} games played in {summary.validation_seconds:.0f}s")
    return lines


def summary_json(summary: TuneSummary) -> str:
    """The one-line machine-readable summary of ``harness tune --json``."""
    return _json_line(SUMMARY_FORMAT, summary.to_dict())


def validation_json(validation: Validation) -> str:
    """The one-line machine-readable result of ``harness tune --validate --json``."""
    return _json_line(VALIDATION_FORMAT, validation.to_dict())


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


def validation_table(validation: Validation) -> Any:
    """A rich renderable of the validation: both means with 95% intervals, the paired difference,
    the verdict, and the two players' specs."""
    measure = "score" if validation.objective in ("mean_score", "lcb") else validation.objective
    settings = ", ".join(f"{key}={value:,}" if isinstance(value, int) else f"{key}={value}"
                         for key, value in validation.settings.items())
    table = Table(title=f"validation of {validation.study}: {validation.games} paired games on "
                        f"{validation.game} vs {validation.opponent}"
                        + (f" (both players at {settings}, not the trials' settings)" if settings else ""))
    for column in ("", f"mean {measure}", "95% interval"):
        table.add_column(column, no_wrap=True)
    tuned = f"tuned (trial {validation.best_trial})"
    rows = [("defaults", validation.defaults), (tuned, validation.tuned),
            ("tuned - defaults (paired)", validation.difference)]
    rows += [(f"  vs {part.opponent} ({part.games} games)", part.difference) for part in validation.by_opponent]
    rows += [(f"  in {part.game} ({part.games} games)", part.difference) for part in validation.by_game]
    for label, interval in rows:
        table.add_row(label, f"{interval.mean:.2f}", f"[{interval.low:.2f}, {interval.high:.2f}]")
    verdict = Text.assemble(("tuned vs defaults: ", "bold"), (validation.verdict.upper(), "bold"),
                            f" ({VERDICTS[validation.verdict]})")
    specs = Text(f"defaults: {validation.defaults_spec}\n{tuned}: {validation.tuned_spec}, "
                 f"saved as {validation.named_player}")
    return Group(table, verdict, specs)
