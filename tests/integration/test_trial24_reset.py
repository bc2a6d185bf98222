# SPDX-License-Identifier: LGPL-2.1-or-later
"""Trial 24: sriovctl reset of every PF through sriov-persistd says a PF that keeps the switchdev
sriov-persist set, held by an administrator's VFs, as a reset of that PF does, and as a local
reset of every PF does, not that nothing of sriov-persist's is left."""

import os
import subprocess

from test_reset_switchdev import ICE, REMADE, WAITS, switched_with_the_admins_vfs


def ctl(h, system_bus, *args):
    env = dict(os.environ, DBUS_SYSTEM_BUS_ADDRESS=system_bus.address)
    return subprocess.run([h.binary, "--no-color", *args], capture_output=True, text=True,
                          timeout=120, env=env)


def test_reset_of_every_pf_through_the_daemon_names_the_kept_switchdev(make_host, start_daemon,
                                                                         system_bus):
    h = switched_with_the_admins_vfs(make_host)
    local = h.run("reset")
    start_daemon(h)
    one = ctl(h, system_bus, "reset", ICE)
    assert one.returncode == 0 and one.stdout == \
        f"{ICE} (ens1f0): nothing reset: {REMADE}; {WAITS}\n", one
    r = ctl(h, system_bus, "reset")
    assert r.returncode == one.returncode, r
    assert r.stdout == local.stdout == (
        f"{ICE} (ens1f0): nothing reset: {REMADE}; {WAITS}\n"
        "Nothing to reset: the switchdev mode that sriov-persist set stays on the PFs above "
        "until their VFs are removed; then a reset sets it back to legacy\n"), (r, local)
    assert h.pf(ICE)["eswitch_mode"] == "switchdev"
