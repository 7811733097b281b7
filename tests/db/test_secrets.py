"""Database passwords never appear in messages, reprs, logs or CLI output."""

from __future__ import annotations

import logging
import os
import socket

import pytest
from sqlalchemy.engine import make_url

from harness.cli import main
from harness.db import mask_url, open_database
from harness.errors import DatabaseError, InvalidInput

SECRET = "s3cr3t-Pa55word"


def closed_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@pytest.mark.parametrize("url", [
    f"postgresql+psycopg://harness:{SECRET}@db.example:5432/results",
    f"postgresql://harness:{SECRET}@127.0.0.1/results?sslmode=require",
    f"postgresql+psycopg://harness:{SECRET}@",  # malformed
    f"postgresql://harness:{SECRET}@x@127.0.0.1/results",  # an unquoted @ in the password
])
def test_mask_url_hides_the_password(url):
    masked = mask_url(url)
    assert SECRET not in masked and "***" in masked and "harness" in masked


def test_an_unreachable_server_fails_in_one_line_without_the_password(caplog):
    caplog.set_level(logging.DEBUG)
    url = f"postgresql+psycopg://harness:{SECRET}@127.0.0.1:{closed_port()}/results?connect_timeout=5"
    with pytest.raises(DatabaseError) as failure:
        open_database(url)
    message = str(failure.value)
    assert SECRET not in message and "***" in message and "\n" not in message
    assert SECRET not in caplog.text


@pytest.mark.parametrize("url", [f"nosuchdb://harness:{SECRET}@host/db", f"mysql://harness:{SECRET}@host/db",
                                 f"harness:{SECRET}@host", f"postgresql://harness:{SECRET}@x@host/db"])
def test_a_bad_url_is_bad_input_without_the_password(url):
    with pytest.raises(InvalidInput, match="valid") as failure:
        open_database(url)
    assert SECRET not in str(failure.value)


def test_the_database_repr_hides_the_password(tmp_path):
    with open_database(f"sqlite:///{tmp_path / 'x.db'}") as db:
        assert "sqlite" in repr(db)
    url = f"postgresql+psycopg://harness:{SECRET}@127.0.0.1:{closed_port()}/results"
    from harness.db import Database
    assert SECRET not in repr(Database(url))


@pytest.mark.skipif(not os.environ.get("HARNESS_TEST_PG"), reason="needs HARNESS_TEST_PG (set by .ci/run)")
def test_a_wrong_password_on_a_real_server_is_one_masked_line_in_the_cli(capsys, caplog):
    caplog.set_level(logging.DEBUG)
    url = make_url(os.environ["HARNESS_TEST_PG"]).set(password=SECRET).render_as_string(hide_password=False)
    code = main(["db", "upgrade", "--db", url])
    out, err = capsys.readouterr()
    assert code == 1
    assert err.startswith("harness: error: database postgresql+psycopg://harness:***@") and err.count("\n") == 1
    assert "password authentication failed" in err
    assert SECRET not in out + err + caplog.text
