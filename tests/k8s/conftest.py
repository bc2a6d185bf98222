# SPDX-License-Identifier: LGPL-2.1-or-later
"""Fixtures for the Kubernetes tests: one in-process API test server per test."""

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

from apiserver import ApiServer  # noqa: E402
from fakeapi.client import Client  # noqa: E402


@pytest.fixture
def apiserver(tmp_path):
    srv = ApiServer(tmp_path / "apiserver").start()
    yield srv
    srv.stop()
    assert not srv.errors, "\n".join(srv.errors)


@pytest.fixture
def admin(apiserver):
    """A client with a token of system:masters."""
    apiserver.add_token("admin-token", "admin", ["system:masters"])
    return Client(apiserver, token="admin-token")


@pytest.fixture
def tool(apiserver, tmp_path):
    """k8s-notify with a main config and kubeconfig in tmp_path (test_k8s_notify.Tool)."""
    from test_k8s_notify import make_tool
    return make_tool(apiserver, tmp_path)
