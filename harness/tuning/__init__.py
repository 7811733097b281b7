"""Tuning studies: Optuna proposes evaluation weights, and a study keeps only a gain it can confirm.

A *study file* (TOML, ``studies/``) names a game, a weighted player, the
opponents, the weights to search and where they start (the incumbent), an
objective, a sampler, a budget and three disjoint parts of the game's opening
suite. ``tune`` runs the trials (each valued by its paired gain over the
incumbent), races the best few on fresh openings and confirms the winner at
the budget of use; the verdict is stored with ``tuned:<study>``. The study
lives in the results database itself (Optuna's RDB storage on the same URL),
so the same command resumes it, and its outcome does not depend on the number
of workers or on interruptions.

One module per concern:

* ``studyfile``: the study file, pure parsing and validation (no Optuna);
* ``objectives``: per-game values;
* ``gain``: paired gains, the pruning rule, sample sizes, the verdict;
* ``spsa``: the SPSA sampler's points, pure;
* ``adapter``: every Optuna call, and the only import of ``optuna``;
* ``heartbeat``: the thread that keeps this driver's lease on its study;
* ``driver``: trials over the pool in a fixed order, exactly-once games, faults;
* ``selection``: the race, the confirmation and the verdict;
* ``stored``: studies already in the database;
* ``events``: the progress values handed to the caller (the CLI renders them).
"""

from __future__ import annotations

from harness.tuning.adapter import BestTrial, Study, open_study
from harness.tuning.driver import Driver, TuneSummary, tune
from harness.tuning.events import PoolResized, StageProgress, TrialEnded, TuningProgress
from harness.tuning.gain import VERDICT_RULES, Interval
from harness.tuning.objectives import OBJECTIVES, game_value
from harness.tuning.selection import (ConfirmationResult, OpponentGain, Outcome, RaceEntry, check_engines,
                                      recorded_outcome, select, stage_run_name)
from harness.tuning.stored import (database_url, load_stored_study, stored_study_file, study_figures,
                                   study_reference, study_trials)
from harness.tuning.studyfile import (PRUNERS, SAMPLERS, StudyFile, WeightRange, load_study_file, parse_study_file,
                                      spec_key)

__all__ = ["BestTrial", "ConfirmationResult", "Driver", "Interval", "OBJECTIVES", "OpponentGain", "Outcome",
           "PRUNERS", "PoolResized", "RaceEntry", "SAMPLERS", "StageProgress", "Study", "StudyFile", "TrialEnded",
           "TuneSummary", "TuningProgress", "VERDICT_RULES", "WeightRange", "check_engines", "database_url",
           "game_value", "load_stored_study", "load_study_file", "open_study", "parse_study_file",
           "recorded_outcome", "select", "spec_key", "stage_run_name", "stored_study_file", "study_figures",
           "study_reference", "study_trials", "tune"]
