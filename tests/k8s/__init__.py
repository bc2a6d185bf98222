# SPDX-License-Identifier: LGPL-2.1-or-later
"""Kubernetes API tests (a package so that its conftest does not shadow other conftest modules)."""
