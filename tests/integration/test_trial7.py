# SPDX-License-Identifier: LGPL-2.1-or-later
"""Issue 32, trial 7: VFs that were there before sriov-persist stay someone else's."""

import re

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
    kept = ("2 VF(s) exist, as many as before sriov-persist set switchdev (an administrator "
            "or another tool made them; sriov-persist removed them to change the eswitch mode and "
            "made as many again, not VFs of its own); left as they are, and with them the eswitch "
            "in switchdev that sriov-persist set: ice changes the eswitch mode only while the PF "
            "has no VFs")
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


def test_externally_managed_vfs_hold_an_ice_eswitch_change(make_host):
    """ice changes the eswitch only without VFs, and ExternallyManaged=yes never removes them:
    check, plan and apply said nothing, and apply failed in the driver."""
    h = make_host("mixed.json")
    path = h.layout("50-ice.conf", f"[Match]\nPCIAddress={ICE}\n[PhysicalFunction]\n"
                                   "ExternallyManaged=yes\nVirtualFunctions=2\nESwitchMode=switchdev\n")
    before = h.path.read_bytes()
    msg = (f"{path}:6: ESwitchMode=switchdev: ice changes the eswitch mode only while the PF has "
           "no VFs, and its 2 VFs are another tool's (ExternallyManaged=yes), which "
           "sriov-persist never removes: remove them first")
    c = h.run("check", "--host", str(h.path))
    assert c.returncode == 1 and msg in c.stderr and "1 error(s)" in c.stdout, c.stdout + c.stderr
    p = h.run("plan")
    assert p.returncode == 1 and f"held: {msg}" in p.stdout, p.stdout + p.stderr
    assert "set eswitch mode" not in p.stdout
    a = h.run("apply")
    assert a.returncode == 1 and f"held (nothing applied): {msg}" in a.stdout, a.stdout
    assert h.path.read_bytes() == before
    s = h.run("status")
    # (the test's own directory, named after it, may show in a file's path)
    assert "representor" not in re.sub(r"/\S+", "", s.stdout), s.stdout


def test_no_representor_difference_before_switchdev(make_host):
    """In legacy mode no representors exist: the rows said "differs: representor down"."""
    h = make_host("mixed.json")
    mlx = "0000:5e:00.0"
    path = h.layout("60-mlx.conf", f"[Match]\nPCIAddress={mlx}\n[PhysicalFunction]\n"
                                   "VirtualFunctions=2\n")
    assert h.run("apply").returncode == 0
    path.write_text(path.read_text() + "ESwitchMode=switchdev\n")
    s = h.run("status", mlx)
    assert "differs: set eswitch mode switchdev (now legacy)" in s.stdout, s.stdout
    # (the test's own directory, named after it, may show in a file's path)
    assert "representor" not in re.sub(r"/\S+", "", s.stdout), s.stdout


def test_a_literal_mac_a_host_vf_has_is_an_error(make_host):
    """VF 0 has 02:00:00:00:00:01 (no layout sets it) and a layout gives VF 1 the same: check
    said 0 errors, apply applied, and status showed both VFs with it ok."""
    h = make_host("mixed.json")
    h.edit(lambda s: h.pf_of(s, ICE)["vfs"][0].update(mac="02:00:00:00:00:01"))
    path = h.layout("50-ice.conf", f"[Match]\nPCIAddress={ICE}\n[VirtualFunction 1]\n"
                                   "MACAddress=02:00:00:00:00:01\n")
    before = h.path.read_bytes()
    msg = (f"{path}:4: MACAddress=02:00:00:00:00:01: VF 0 of {ICE} has this address now, and "
           f"no layout sets another: VF 1 of {ICE} would have the same")
    c = h.run("check", "--host", str(h.path))
    assert c.returncode == 1 and msg in c.stderr and "1 error(s)" in c.stdout, c.stdout + c.stderr
    p = h.run("plan")
    assert p.returncode == 1 and f"held: {msg}" in p.stdout, p.stdout
    a = h.run("apply")
    assert a.returncode == 1 and f"held (nothing applied): {msg}" in a.stdout, a.stdout
    assert h.path.read_bytes() == before
    s = h.run("status")
    assert s.returncode == 1 and msg in s.stdout and " held " in s.stdout, s.stdout


def test_a_literal_mac_the_layout_moves_is_no_error(make_host):
    """VF 0's address set by the layout to another one frees it for VF 1."""
    h = make_host("mixed.json")
    h.edit(lambda s: h.pf_of(s, ICE)["vfs"][0].update(mac="02:00:00:00:00:01"))
    h.layout("50-ice.conf", f"[Match]\nPCIAddress={ICE}\n[VirtualFunction 0]\n"
                            "MACAddress=02:00:00:00:00:02\n[VirtualFunction 1]\n"
                            "MACAddress=02:00:00:00:00:01\n")
    a = h.run("apply")
    assert a.returncode == 0, a.stdout + a.stderr
    assert [v["mac"] for v in h.pf(ICE)["vfs"]] == ["02:00:00:00:00:02", "02:00:00:00:00:01"]
