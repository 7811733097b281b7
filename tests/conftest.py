"""Fixtures shared by test modules of several areas."""

from __future__ import annotations

import pytest


@pytest.fixture(scope="session")
def ray_cluster():
    """One local Ray cluster with 2 CPUs for every test that uses Ray.

    Starting Ray takes seconds, so the whole test session shares it; a
    ``harness.cluster.Pool`` inside it joins this session instead of starting
    its own, and never shuts down a session it did not start.
    """
    from harness.cluster import ray_session
    with ray_session(num_cpus=2):
        yield
