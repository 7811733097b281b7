"""Tuning studies: Optuna maximises a game's documented score over named evaluation weights.

A *study file* (TOML, ``studies/``) names a game, a weighted player, an
opponent, the weights to search and their ranges, an objective, a budget and
two disjoint seed ranges; ``tune`` runs it and ``validate`` checks the best
trial against the defaults on the validation seeds. The study lives in the
results database itself (Optuna's RDB storage on the same URL), so the same
command resumes it and several drivers on one PostgreSQL database cooperate.

One module per concern:

* ``studyfile``: the study file, pure parsing and validation (no Optuna);
* ``objectives``: per-game values and the objective over them;
* ``adapter``: every Optuna call, and the only import of ``optuna``;
* ``heartbeat``: the thread that keeps this driver's trials alive;
* ``driver``: trials in flight over the Ray pool, exactly-once games, faults;
* ``validation``: the best against the defaults, paired by seed;
* ``stored``: studies already in the database;
* ``events``: the progress values handed to the caller (the CLI renders them).
"""

from __future__ import annotations

from harness.tuning.adapter import BestTrial, Study, open_study
from harness.tuning.driver import GAMES_PER_WORKER, Driver, TuneSummary, should_start_trial, tune
from harness.tuning.events import PoolResized, TrialEnded, TuningProgress, ValidationProgress
from harness.tuning.objectives import OBJECTIVES, game_value, objective_value
from harness.tuning.stored import (database_url, load_stored_study, stored_study_file, study_figures,
                                   study_reference, study_trials)
from harness.tuning.studyfile import (PRUNERS, SAMPLERS, StudyFile, WeightRange, load_study_file, parse_study_file,
                                      spec_key)
from harness.tuning.validation import (VERDICTS, GameValidation, Interval, OpponentValidation, Validation,
                                       check_engines, recorded_validation, validate, validation_run_name)

__all__ = ["BestTrial", "Driver", "GAMES_PER_WORKER", "GameValidation", "Interval", "OBJECTIVES",
           "OpponentValidation", "PRUNERS", "PoolResized", "SAMPLERS",
           "Study", "StudyFile", "check_engines", "TrialEnded", "TuneSummary", "TuningProgress", "VERDICTS", "Validation",
           "ValidationProgress", "WeightRange", "database_url", "game_value", "load_stored_study",
           "load_study_file", "objective_value", "open_study", "parse_study_file", "recorded_validation",
           "should_start_trial", "spec_key", "stored_study_file", "study_figures", "study_reference", "study_trials", "tune",
           "validate", "validation_run_name"]
