# SPDX-License-Identifier: LGPL-2.1-or-later
"""Pieces of the Kubernetes API test server; tests use the facade in tests/k8s/apiserver.py."""
