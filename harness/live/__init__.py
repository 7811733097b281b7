"""Live play: the Gameboard client, the seat-protocol client, state tracking, the emulator.

This package is the only place that imports httpx. Its modules:

- :mod:`harness.live.http`: the one request choke point (rate limit, retries,
  backoff honouring ``Retry-After``, error mapping).
- :mod:`harness.live.gameboard`: the Gameboard Agent API's stateless loop.
- :mod:`harness.live.tracking`: candidate positions consistent with the server; play under ambiguity.
- :mod:`harness.live.observation`: learning how an unpublished observation lays out the board.
- :mod:`harness.live.board`: the seat protocol's 90-square board.
- :mod:`harness.live.environment`: a live Gameboard game as an Environment over the tracker.
- :mod:`harness.live.session`: one live Gameboard game, its checkpoints and resume.
- :mod:`harness.live.seat`: the Chinese chess seat protocol.
- :mod:`harness.live.runner`: many live games as a recorded run, on the Ray pool.
- :mod:`harness.live.emulator`: a local server of both protocols.
"""
