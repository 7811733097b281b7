"""A missing package or program skips its tests on a developer's machine and fails them in CI."""

from __future__ import annotations

import pytest

from tests.requirements import import_or_unavailable

MISSING = "harness_no_such_package"


def test_a_package_that_fails_to_import_fails_the_test_in_ci(monkeypatch):
    monkeypatch.setenv("HARNESS_CI", "1")
    with pytest.raises(pytest.fail.Exception, match=f"CI must run this test: {MISSING} cannot be imported"):
        import_or_unavailable(MISSING, "it")


def test_a_package_that_fails_to_import_skips_the_test_elsewhere(monkeypatch):
    monkeypatch.delenv("HARNESS_CI", raising=False)
    with pytest.raises(pytest.skip.Exception, match=f"{MISSING} cannot be imported"):
        import_or_unavailable(MISSING, "it")


def test_an_installed_package_is_returned():
    assert import_or_unavailable("json", "it").dumps([]) == "[]"
