"""The hot paths compiled without reference counting: numba honours the switch, and none returns an array.

What they compute is the searches' and engines' own tests' business (their golden node
counts and perft figures were taken with reference counting and still hold).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

import numpy as np
from numba import njit, types

from harness.games.compiled import HOT_PATHS, hot_path


def _views(board: np.ndarray, rows: np.ndarray) -> int:
    return int(rows[1].sum() + board[2])


def test_a_hot_path_counts_no_references():
    """The switch is numba's private ``_nrt`` option: were it dropped or ignored, the counting
    would come back silently, so the compiled code is read for it (compiled afresh with the hot
    path's options but the cache: code loaded from the cache has no text to read)."""
    compiled = hot_path(_views)
    HOT_PATHS.remove(compiled)
    options = {key: value for key, value in compiled.targetoptions.items() if key not in ("cache", "nopython")}
    assert options.get("_nrt") is False
    signature = (types.int64[::1], types.int64[:, ::1])
    board, rows = np.arange(8), np.ones((3, 4), dtype=np.int64)
    fresh = njit(signature, **options)(_views)
    assert fresh(board, rows) == compiled(board, rows) == 6
    llvm = fresh.inspect_llvm(fresh.signatures[0])
    assert "NRT_incref" not in llvm and "NRT_decref" not in llvm
    assert "NRT_decref" in njit(signature)(_views).inspect_llvm(signature)  # what the check would see


# In a fresh interpreter with an empty cache, so that every hot path a search or perft reaches is
# compiled and typed (code loaded from the cache leaves the callees' dispatchers untyped).
EVERY_RETURN_TYPE = """
import json
import numpy as np
from harness.games import load
from harness.games.compiled import HOT_PATHS
from harness.games.xiangqi import _core, search
from players.features import weight_vector
rules = load("xiangqi")
state = rules.initial_state()
search.search(rules, state, weight_vector("xiangqi"), depth=3, seed=0)
_core.perft(*rules.position(state), 2, np.empty((4, _core.MAX_MOVES), dtype=np.int64), 0)
print(json.dumps({f"{f.py_func.__module__}.{f.py_func.__name__}": [str(s.return_type) for s in f.nopython_signatures]
                  for f in HOT_PATHS}))
"""


def test_no_hot_path_returns_an_array(tmp_path):
    """A view returned without a reference would be released by its caller while its array lives on."""
    done = subprocess.run([sys.executable, "-c", EVERY_RETURN_TYPE], capture_output=True, text=True, timeout=300,
                          env=os.environ | {"NUMBA_CACHE_DIR": str(tmp_path)})
    assert done.returncode == 0, done.stderr
    returns = json.loads(done.stdout)
    assert {"harness.games.xiangqi.search.negamax", "harness.games.xiangqi.search.quiesce",
            "harness.games.xiangqi._core.perft"} <= set(returns)
    assert all(returns.values()), [name for name, kinds in returns.items() if not kinds]  # each one typed
    arrays = {name: kinds for name, kinds in returns.items() if any("array" in kind for kind in kinds)}
    assert not arrays
