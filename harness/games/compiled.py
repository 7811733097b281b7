"""How an engine's hot path is compiled: numba, cached, and without reference counting.

numba's runtime (NRT) counts references to every array a compiled function
holds: each call increments and decrements the count of each array argument
and of each view it takes, with atomic operations in calls numba does not
inline. A search node passes a dozen arrays (board, piece lists, tables,
buffers) through several calls, so in Chinese chess's search the counting
was a quarter of the profile (``perf`` over a 1,250,000-node search) and
kept LLVM from optimising across the calls; compiled without it the same
search visits the same nodes, to the last value, at about 45% more nodes a
second (``docs/players.md``, Speed).

A function compiled this way must not allocate (numba refuses to compile
it) and must not return an array or a view (numba would not catch that: the
caller would release a reference it was never given). ``HOT_PATHS`` lists
every such function, so a test checks what each returns.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from numba import njit

HOT_PATHS: list[Any] = []


def hot_path(function: Callable) -> Any:
    """Compile ``function`` with numba (``cache=True``) without reference counting."""
    # _nrt is numba's own switch for its runtime (a private option, used by numba's tests and advised by
    # its maintainers for this cost, numba issue 2345); a test fails if a numba release drops or ignores it.
    compiled = njit(cache=True, _nrt=False)(function)
    HOT_PATHS.append(compiled)
    return compiled
