"""A distributed tournament and tuning harness for board-game bots."""

from importlib.metadata import PackageNotFoundError, version

try:
    __version__ = version("boardgame-harness")
except PackageNotFoundError:  # running from a source tree that is not installed
    __version__ = "0.0.0"
