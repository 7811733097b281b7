"""The live, arena and emulate commands, end to end over loopback."""

from __future__ import annotations

import os
import subprocess
import sys

from harness.cli import main


def test_live_plays_records_and_summarises_games_against_the_emulator(emulator, tmp_path, capsys):
    db = f"sqlite:///{tmp_path / 'cli.db'}"
    code = main(["live", "totality", "--level", "easy", "--player", "random", "--games", "2", "--workers", "1", "--seed-start", "5",
                 "--base-url", emulator.url, "--rate", "200", "--db", db])
    out = capsys.readouterr().out
    assert code == 0 and "2 recorded" in out and "0 server/local score mismatch" in out
    assert [e.path for e in emulator.log if e.path.endswith("/init")] == ["/api/games/totality/init"] * 2


def test_live_without_a_game_or_with_a_non_gameboard_game_is_a_usage_error(tmp_path, capsys):
    db = f"sqlite:///{tmp_path / 'cli.db'}"
    assert main(["live", "--db", db]) == 2
    assert "GAME" in capsys.readouterr().err
    assert main(["live", "xiangqi", "--db", db]) == 2
    assert "arena" in capsys.readouterr().err
    assert main(["live", "--resume", "99", "--db", db]) == 2
    assert "no live game with id 99" in capsys.readouterr().err


def test_arena_creates_a_match_on_the_emulator_and_plays_a_seat(emulator, tmp_path, capsys):
    db = f"sqlite:///{tmp_path / 'cli.db'}"
    code = main(["arena", "xiangqi", "--url", f"{emulator.url}/arena/xiangqi/matches", "--seat", "black",
                 "--player", "random", "--rate", "500", "--db", db])
    out = capsys.readouterr().out
    assert code == 0 and "xiangqi:seat=black random" in out and "ranks [" in out and "MISMATCH" not in out


def test_emulate_serves_on_loopback_until_stopped_and_keeps_its_key_in_a_file(tmp_path):
    env = dict(os.environ, PYTHONUNBUFFERED="1")
    process = subprocess.Popen([sys.executable, "-m", "harness.cli", "emulate", "--port", "0", "--opponent", "random"],
                               stdout=subprocess.PIPE, text=True, env=env, cwd=tmp_path)
    try:
        line = process.stdout.readline()
        assert line.startswith("serving on http://127.0.0.1:")
        import httpx
        url = line.split()[2]
        assert httpx.get(f"{url}/api/games").json()["games"][0]["slug"] == "ravenward"
    finally:
        process.terminate()
        process.wait(timeout=10)
    assert (tmp_path / "harness-emulator.key").stat().st_mode & 0o777 == 0o600
