# SPDX-License-Identifier: LGPL-2.1-or-later
"""Tests against a real kube-apiserver (a package so that its conftest does not shadow
other conftest modules)."""
