"""``harness fit``: a game's evaluation weights regressed on labelled positions from recorded games.

Texel-style tuning, as engine developers get most of their evaluation gains:

* ``positions``: the positions of recorded matches (the results database, or
  ``harness export`` files), replayed from the stored actions, deduplicated,
  both sides to move, sampled with a seed; each with the games' mean result
  from its side to move.
* ``labels``: what a position is worth, by a labeller: the game's result,
  a deeper search (``search:<player spec>``), or an exact solver; searches run
  on the Ray pool and every label is stored, so a refit or a resumed
  labelling costs no search twice.
* ``fit``: the weights whose evaluation best predicts the labels (logistic
  loss on ``sigmoid(eval / scale)``, SciPy's L-BFGS-B within each feature's
  range), the loss on held-out positions before and after, and the result
  saved as the named player ``fitted:<name>``.
"""
