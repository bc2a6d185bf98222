# SPDX-License-Identifier: LGPL-2.1-or-later
"""Issue 32, trial 7: VFs that were there before sriov-persist stay someone else's."""

ICE = "0000:3b:00.0"
SWITCHDEV_NO_COUNT = (f"[Match]\nPCIAddress={ICE}\n[PhysicalFunction]\nESwitchMode=switchdev\n"
                      "HardwareTCOffload=yes\n[VirtualFunction]\nTrust=yes\n")


def test_vfs_made_again_for_switchdev_stay_the_admins(make_host):
    """ice changes the eswitch only without VFs: apply removes the admin's 2 VFs and makes 2
    again. They were recorded as sriov-persist's, and a reset after the layout went destroyed
    them."""
    h = make_host("mixed.json")
    assert h.pf(ICE)["num_vfs"] == 2
    path = h.layout("50-ice.conf", SWITCHDEV_NO_COUNT)
    a = h.run("apply")
    assert a.returncode == 0, a.stdout + a.stderr
    assert h.pf(ICE)["num_vfs"] == 2 and h.pf(ICE)["eswitch_mode"] == "switchdev"
    path.unlink()

    s = h.run("status")
    kept = ("2 VF(s) exist, none on sriov-persist's record (another tool or an administrator "
            "made them); left as they are, and with them the eswitch in switchdev that "
            "sriov-persist set: ice changes the eswitch mode only while the PF has no VFs")
    assert kept in s.stdout and "left from a removed layout" not in s.stdout, s.stdout
    r = h.run("reset", ICE)
    assert r.returncode == 0, r.stdout + r.stderr
    assert f"nothing reset: {kept}" in r.stdout and "remove all VFs" not in r.stdout, r.stdout
    assert h.pf(ICE)["num_vfs"] == 2 and h.pf(ICE)["eswitch_mode"] == "switchdev"


def test_vfs_sriov_persist_made_still_go_with_reset(make_host):
    """The VFs it made itself (a count the PF did not have) still go, and the eswitch back."""
    h = make_host("mixed.json")
    path = h.layout("50-ice.conf", SWITCHDEV_NO_COUNT.replace(
        "[VirtualFunction]", "VirtualFunctions=4\n[VirtualFunction]"))
    a = h.run("apply")
    assert a.returncode == 0 and h.pf(ICE)["num_vfs"] == 4, a.stdout + a.stderr
    path.unlink()
    s = h.run("status")
    assert "4 VFs left from a removed layout, eswitch in switchdev" in s.stdout, s.stdout
    r = h.run("reset", ICE)
    assert r.returncode == 0 and "reset, 2 action(s); 0 VFs" in r.stdout, r.stdout + r.stderr
    assert h.pf(ICE)["num_vfs"] == 0 and h.pf(ICE)["eswitch_mode"] == "legacy"
