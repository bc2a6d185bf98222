# SPDX-License-Identifier: LGPL-2.1-or-later
"""Issue 32, fresh-eyes trial 13: the switchdev mode sriov-persist set on ice stays on its record
while VFs that are not its own keep it there, so that a reset once they are gone sets legacy. A
reset dropped the whole record, and the switchdev could never be undone; the status blamed
"another tool" for VFs an administrator made before and sriov-persist made again, and its hint
said that reset "removes them" of an eswitch mode."""

import json
import os
import subprocess

ICE = "0000:3b:00.0"
SWITCHDEV = f"[Match]\nPCIAddress={ICE}\n[PhysicalFunction]\nESwitchMode=switchdev\n"
KEPT = ("left as they are, and with them the eswitch in switchdev that sriov-persist set: ice "
        "changes the eswitch mode only while the PF has no VFs")
REMADE = ("2 VF(s) exist, as many as before sriov-persist set switchdev (an administrator or "
          "another tool made them; sriov-persist removed them to change the eswitch mode and "
          f"made as many again, not VFs of its own); {KEPT}")
WAITS = ("the eswitch stays in switchdev until the VFs are removed; then a reset sets it back to "
         "legacy")


def hint(h, does):
    return (f'    no layout selects it; "sriovctl --host {h.path} --config-dir {h.confdir} '
            f'--main-config {h.main} reset {ICE}" {does}\n')


def status(h):
    r = h.run("status", ICE)
    assert r.returncode == 0, r
    return r.stdout


def remove_vfs(h):
    s = h.state()
    pf = h.pf_of(s, ICE)
    pf["num_vfs"], pf["vfs"] = 0, []
    h.save(s)


def record(h):
    path = h.dir / "host.json.lib" / "pf" / f"{ICE}.json"
    return json.loads(path.read_text()) if path.exists() else None


def switched_with_the_admins_vfs(make_host, text=SWITCHDEV):
    h = make_host("mixed.json")
    assert h.pf(ICE)["num_vfs"] == 2 and h.pf(ICE)["eswitch_mode"] == "legacy"
    path = h.layout("50-ice.conf", text)
    a = h.run("apply", ICE)
    assert a.returncode == 0, a
    path.unlink()
    return h


def test_reset_keeps_the_switchdev_it_set_until_the_vfs_are_gone(make_host):
    h = switched_with_the_admins_vfs(make_host)
    assert h.pf(ICE)["num_vfs"] == 2 and h.pf(ICE)["eswitch_mode"] == "switchdev"
    out = status(h)
    assert f"\n    {REMADE}\n" in out, out
    assert hint(h, f"changes nothing while the VFs are there ({WAITS})") in out, out

    r = h.run("reset", ICE)
    assert r.returncode == 0 and r.stdout == \
        f"{ICE} (ens1f0): nothing reset: {REMADE}; {WAITS}\n", r
    assert h.pf(ICE)["num_vfs"] == 2 and h.pf(ICE)["eswitch_mode"] == "switchdev"
    assert record(h)["eswitch_switchdev"] is True, record(h)

    # a reset of every PF says the same, and not that nothing of sriov-persist's is left
    r = h.run("reset")
    assert r.returncode == 0 and r.stdout == (
        f"{ICE} (ens1f0): nothing reset: {REMADE}; {WAITS}\n"
        "Nothing to reset: the switchdev mode that sriov-persist set stays on the PFs above "
        "until their VFs are removed; then a reset sets it back to legacy\n"), r

    # the administrator removes their VFs: what is left is sriov-persist's, and reset undoes it
    remove_vfs(h)
    out = status(h)
    assert "\n    eswitch left in switchdev from a removed layout\n" in out, out
    assert hint(h, "sets the eswitch back to legacy") in out, out
    r = h.run("reset", ICE)
    assert r.returncode == 0 and "done set eswitch mode legacy" in r.stdout, r
    assert f"{ICE} (ens1f0): reset, 1 action(s); 0 VFs\n" in r.stdout, r
    assert h.pf(ICE)["eswitch_mode"] == "legacy" and record(h) is None


def test_a_count_changed_since_drops_only_the_record_of_the_vfs(make_host):
    """sriov-persist made 4 VFs in switchdev, someone set 2: the record of the 4 goes with a
    reset, the switchdev stays on it. The status said "none on sriov-persist's record" of them."""
    h = switched_with_the_admins_vfs(
        make_host, SWITCHDEV + "VirtualFunctions=4\n")
    s = h.state()
    pf = h.pf_of(s, ICE)
    pf["num_vfs"], pf["vfs"] = 2, pf["vfs"][:2]
    h.save(s)
    changed = ("2 VF(s) exist, but not the 4 sriov-persist created (the count was changed "
               f"outside sriov-persist since its last apply); {KEPT}")
    out = status(h)
    assert f"\n    {changed}\n" in out, out
    assert hint(h, f"drops sriov-persist's record of the VFs it created; {WAITS}") in out, out

    r = h.run("reset", ICE)
    assert r.returncode == 0 and r.stdout == (
        f"{ICE} (ens1f0): nothing reset: {changed}; sriov-persist's record of the VFs it "
        f"created is dropped, and {WAITS}\n"), r
    assert record(h)["num_vfs"] == 0 and record(h)["eswitch_switchdev"] is True, record(h)
    out = status(h)
    assert ("2 VF(s) exist, none on sriov-persist's record (another tool or an administrator "
            "made them, or an earlier reset dropped the record); " + KEPT) in out, out
    assert hint(h, f"changes nothing while the VFs are there ({WAITS})") in out, out

    remove_vfs(h)
    r = h.run("reset", ICE)
    assert r.returncode == 0 and "done set eswitch mode legacy" in r.stdout, r
    assert h.pf(ICE)["eswitch_mode"] == "legacy" and record(h) is None


def test_through_the_daemon_the_same(make_host, start_daemon, bus_client, system_bus):
    """sriovctl reset PF through sriov-persistd: the same words, and the switchdev stays on the
    record until the VFs are gone."""
    h = switched_with_the_admins_vfs(make_host)
    start_daemon(h)
    env = dict(os.environ, DBUS_SYSTEM_BUS_ADDRESS=system_bus.address)

    def reset():
        return subprocess.run([h.binary, "--no-color", "reset", ICE], capture_output=True,
                              text=True, timeout=120, env=env)

    r = reset()
    assert r.returncode == 0 and r.stdout == \
        f"{ICE} (ens1f0): nothing reset: {REMADE}; {WAITS}\n", r
    assert h.pf(ICE)["eswitch_mode"] == "switchdev" and record(h)["eswitch_switchdev"] is True

    def gone(s):
        pf = h.pf_of(s, ICE)
        pf["num_vfs"], pf["vfs"] = 0, []
    h.edit(gone)
    bus_client.call("GetStatus")
    r = reset()
    assert r.returncode == 0, r
    assert h.pf(ICE)["eswitch_mode"] == "legacy" and record(h) is None, r
