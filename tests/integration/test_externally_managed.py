# SPDX-License-Identifier: LGPL-2.1-or-later
"""ExternallyManaged=yes before the other tool made its VFs: plan, apply, status and wait say that
the PF waits for them (pending), never that it is applied; once the VFs appear, they are
configured and the PF is applied."""

import json
import os
import subprocess

from conftest import PF_IFACE, ROOT, pf_path, place_card_vfs

HELPER = os.environ.get("SRIOV_UDEV_HELPER") or str(ROOT / "build/asan/udev-helper")

E810 = "0000:3b:00.0"  # e810.json: ice, 0 of 128 VFs
WAITING = "waiting for another tool to create VFs: {k} of {n} exist (ExternallyManaged=yes)"
NOT_YET = "VFs that another tool created are not configured yet"
LAYOUT = f"[Match]\nPCIAddress={E810}\n[PhysicalFunction]\nVirtualFunctions={{n}}\n" \
         "ExternallyManaged=yes\n[VirtualFunction 0-{last}]\nVLANId=100\nTrust=yes\n"
NO_BUS = {"DBUS_SYSTEM_BUS_ADDRESS": "unix:path=/nonexistent/sriov-persist-test-bus"}


def external_host(make_host, n=8):
    h = make_host("e810.json")
    h.layout("50-e810.conf", LAYOUT.format(n=n, last=n - 1))
    return h


def other_tool(h, n):
    """Another tool writes sriov_numvfs: sriovctl with a layout, records and locks of its own, on
    the same simulated host, whose kernel makes the VFs."""
    d = h.dir / "other"
    (d / "conf.d").mkdir(parents=True, exist_ok=True)
    (d / "conf.d" / "50.conf").write_text(
        f"[Match]\nPCIAddress={E810}\n[PhysicalFunction]\nVirtualFunctions={n}\n")
    r = subprocess.run([h.binary, "--no-color", "--host", str(h.path), "--config-dir",
                        str(d / "conf.d"), "--main-config", str(h.main), "--runtime-dir",
                        str(d / "run"), "--state-dir", str(d / "lib"), "apply"],
                       capture_output=True, text=True, timeout=60, env=dict(os.environ, **NO_BUS))
    assert r.returncode == 0, r
    assert h.pf(E810)["num_vfs"] == n


def status_pf(h):
    r = h.run("status", "--json", env=NO_BUS)
    assert r.returncode == 0, r
    return next(p for p in json.loads(r.stdout)["pfs"] if p["pci"] == E810)


def pf_line(out):
    return next(ln for ln in out.splitlines() if ln.startswith(E810))


def test_no_vfs_yet_is_pending_everywhere(make_host):
    h = external_host(make_host)
    why = WAITING.format(k=0, n=8)

    r = h.run("plan", env=NO_BUS)
    assert r.returncode == 0, r  # apply would change nothing
    assert f"{E810} (ens1f0): {why}\n" in r.stdout, r.stdout
    assert "nothing to do" not in pf_line(r.stdout), r.stdout
    plan = json.loads(h.run("plan", "--json", env=NO_BUS).stdout)
    pf = next(p for p in plan["pfs"] if p["pci"] == E810)
    assert pf["actions"] == [] and pf["waiting"] == [why] and pf["reboot_reasons"] == []

    # not applied yet, and what it will wait for once it is
    r = h.run("wait", "--timeout", "0", env=NO_BUS)
    assert r.returncode == 1 and f"Not applied yet: {E810} ({why})\n" in r.stdout, r

    r = h.run("apply", env=NO_BUS)
    assert r.returncode == 0, r
    assert r.stdout == f"{E810} (ens1f0): pending: {why}\n", r.stdout
    assert h.pf(E810)["num_vfs"] == 0  # never created by us

    r = h.run("status", env=NO_BUS)
    assert r.returncode == 0, r
    assert " pending " in pf_line(r.stdout) and " applied " not in pf_line(r.stdout), r.stdout
    assert f"\n    {why}\n" in r.stdout, r.stdout
    pf = status_pf(h)
    assert (pf["state"], pf["reason"], pf["waiting"]) == ("pending", why, [why])
    assert pf["num_vfs"] == 0 and pf["desired_num_vfs"] == 8

    r = h.run("wait", "--timeout", "0", env=NO_BUS)
    assert r.returncode == 1, r
    assert r.stdout == f"Timed out after 0s; not applied yet:\nNot applied yet: {E810} ({why})\n", \
        r.stdout


def test_some_vfs_are_configured_the_rest_waited_for(make_host):
    h = external_host(make_host)
    h.run("apply", env=NO_BUS)
    other_tool(h, 4)
    why = WAITING.format(k=4, n=8)

    r = h.run("plan", env=NO_BUS)
    assert r.returncode == 10, r
    assert f"{E810} (ens1f0): 4 action(s), all live\n" in r.stdout, r.stdout
    assert f"\n  {why}\n" in r.stdout, r.stdout

    r = h.run("apply", env=NO_BUS)
    assert r.returncode == 0, r
    assert f"{E810} (ens1f0): pending after 4 action(s): {why}\n" in r.stdout, r.stdout
    assert all(v["vlan"] == 100 and v["trust"] for v in h.pf(E810)["vfs"])
    assert h.pf(E810)["num_vfs"] == 4

    pf = status_pf(h)
    assert (pf["state"], pf["reason"]) == ("pending", why)
    # the four that exist are as the layout says; the other four are the other tool's to make
    later = "not created yet (ExternallyManaged=yes: another tool makes the VFs)"
    assert [v["layout"] for v in pf["vfs"]] == ["ok"] * 4 + [later] * 4
    assert [v["pci"] for v in pf["vfs"][4:]] == [None] * 4
    r = h.run("wait", "--timeout", "0", env=NO_BUS)
    assert r.returncode == 1 and f"{E810} ({why})" in r.stdout, r


def test_vfs_that_appear_are_configured_then_applied(make_host):
    h = external_host(make_host)
    h.run("apply", env=NO_BUS)
    other_tool(h, 8)

    # all there, not configured yet: still not applied, and wait does not let kubelet start
    pf = status_pf(h)
    assert (pf["state"], pf["reason"]) == ("pending", NOT_YET), pf
    r = h.run("wait", "--timeout", "0", env=NO_BUS)
    assert r.returncode == 1 and f"{E810} ({NOT_YET})" in r.stdout, r

    r = h.run("apply", env=NO_BUS)
    assert r.returncode == 0, r
    assert f"{E810} (ens1f0): applied, 8 action(s) in " in r.stdout, r.stdout
    pf = status_pf(h)
    assert (pf["state"], pf["reason"], pf["waiting"]) == ("applied", None, [])
    r = h.run("wait", "--timeout", "0", env=NO_BUS)
    assert r.returncode == 0, r
    assert r.stdout == "1 configured PF(s): 1 applied, 0 not (see sriovctl status)\n"
    assert h.run("plan", env=NO_BUS).returncode == 0


def test_the_apply_unit_succeeds_and_the_gate_waits(make_host):
    """At boot the apply unit (udev-helper apply) configures what exists and succeeds: waiting for
    another tool is no failure. The gate does not let kubelet start on its record."""
    h = external_host(make_host)
    r = subprocess.run([HELPER, "--host", str(h.path), "--config-dir", str(h.confdir),
                        "--main-config", str(h.main), "apply", E810],
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r
    rec = json.loads((h.dir / "host.json.run" / "pf" / f"{E810}.json").read_text())
    why = WAITING.format(k=0, n=8)
    assert (rec["state"], rec["waiting"]) == ("applied", [why])
    assert status_pf(h)["state"] == "pending"
    r = h.run("wait", "--timeout", "0", env=NO_BUS)
    assert r.returncode == 1 and f"{E810} ({why})" in r.stdout, r


def test_vfs_that_appear_need_no_change_are_applied(make_host):
    """A layout that sets nothing the new VFs lack: nothing to apply, and nothing waits."""
    h = make_host("e810.json")
    h.layout("50.conf", f"[Match]\nPCIAddress={E810}\n[PhysicalFunction]\nVirtualFunctions=2\n"
             "ExternallyManaged=yes\n")
    assert h.run("apply", env=NO_BUS).stdout == \
        f"{E810} (ens1f0): pending: {WAITING.format(k=0, n=2)}\n"
    other_tool(h, 2)
    assert status_pf(h)["state"] == "applied"
    assert h.run("wait", "--timeout", "0", env=NO_BUS).returncode == 0


def test_the_daemon_says_pending_and_configures_the_vfs_when_they_appear(make_host, start_daemon,
                                                                         bus_client, system_bus):
    c = bus_client
    h = external_host(make_host, n=4)
    h.main.write_text("[Apply]\nSysfsWriteTimeoutSec=1\n[Drift]\nMode=repair\n"
                      "[Disruption]\nPolicy=immediate\n[Reboot]\nPolicy=never\n")
    start_daemon(h)
    why = WAITING.format(k=0, n=4)
    path = pf_path(E810)
    c.wait_property("State", "pending", path, PF_IFACE)
    assert c.get("LastError", path, PF_IFACE) == why
    assert c.get("VirtualFunctions", path, PF_IFACE) == 0
    assert c.get("DesiredVirtualFunctions", path, PF_IFACE) == 4
    assert c.get("State") == "idle"

    c.call("Apply", E810)  # nothing failed: no error
    env = dict(os.environ, DBUS_SYSTEM_BUS_ADDRESS=system_bus.address)
    r = subprocess.run([h.binary, "--no-color", "apply"], capture_output=True, text=True,
                       timeout=120, env=env)
    assert r.returncode == 0, r
    assert f"{E810} (ens1f0): pending: {why}\n" in r.stdout, r.stdout
    assert c.get("State", path, PF_IFACE) == "pending"
    r = subprocess.run([h.binary, "--no-color", "status", "--json"], capture_output=True,
                       text=True, timeout=120, env=env)
    assert r.returncode == 0, r
    pf = next(p for p in json.loads(r.stdout)["pfs"] if p["pci"] == E810)
    assert (pf["state"], pf["reason"], pf["waiting"]) == ("pending", why, [why])

    m = c.mark()
    other_tool(h, 4)
    assert c.wait_applied(E810, m) == 0
    c.wait_property("State", "applied", path, PF_IFACE)
    assert all(v["vlan"] == 100 and v["trust"] for v in h.pf(E810)["vfs"])
    assert c.get("LastError", path, PF_IFACE) == ""


CX6DX = "0000:ca:00.0"  # cx6dx.json: mlx5_core, sriov_totalvfs 8, firmware limit 8


def test_more_vfs_than_the_pf_has_is_an_error_as_the_limit_is_not_raised(make_host):
    """With ExternallyManaged=yes the firmware VF limit is never raised: 16 VFs on a port that
    has 8 can never exist, and saying "waiting" would hold the boot gate at every boot."""
    h = make_host("cx6dx.json")
    path = h.layout("50-cx6.conf", f"[Match]\nPCIAddress={CX6DX}\n[PhysicalFunction]\n"
                    "VirtualFunctions=16\nExternallyManaged=yes\n")
    err = (f"{path}:4: VirtualFunctions=16: the PF supports at most 8 VFs (sriov_totalvfs), "
           "and with ExternallyManaged=yes (line 5) the firmware limit is not raised")

    r = h.run("check", env=NO_BUS)
    assert r.returncode != 0 and err in r.stdout + r.stderr, r
    r = h.run("plan", env=NO_BUS)
    assert "waiting for another tool" not in r.stdout, r.stdout
    assert err in r.stdout + r.stderr, r
    r = h.run("apply", env=NO_BUS)
    assert r.returncode != 0 and h.pf(CX6DX)["firmware_total_vfs"] == 8, r
    pf = next(p for p in json.loads(h.run("status", "--json", env=NO_BUS).stdout)["pfs"]
              if p["pci"] == CX6DX)
    assert pf["state"] == "held" and err in pf["reason"], pf


def test_held_until_the_reboot_of_a_raise_through_the_other_port(make_host):
    """The other port of the card raises its one firmware VF limit to 20: the ExternallyManaged
    port that wants 16 is held until that reboot, and says so (not "the limit is not raised");
    after the reboot the hold is gone and the PF waits for the other tool's VFs."""
    h = make_host("cx6dx.json")
    path = h.layout("50-cx6.conf", f"[Match]\nPCIAddress={CX6DX}\n[PhysicalFunction]\n"
                    "VirtualFunctions=16\nExternallyManaged=yes\n")
    h.layout("60-b.conf", "[Match]\nPCIAddress=0000:ca:00.1\n[PhysicalFunction]\n"
             "VirtualFunctions=20\n")
    assert h.run("apply", "0000:ca:00.1", env=NO_BUS).returncode == 0
    assert h.pf(CX6DX)["firmware_total_vfs"] == 20 and h.pf(CX6DX)["total_vfs"] == 8
    err = (f"{path}:4: VirtualFunctions=16: the PF supports at most 8 VFs (sriov_totalvfs) until "
           "the next reboot, which brings the firmware VF limit of 20 raised already: the PF is "
           "held until then (with ExternallyManaged=yes (line 5) nothing is raised for it)")
    r = h.run("check", env=NO_BUS)
    assert r.returncode == 1 and r.stderr.splitlines() == [err], r
    assert err in h.run("plan", CX6DX, env=NO_BUS).stdout
    r = h.run("apply", CX6DX, env=NO_BUS)
    assert r.returncode == 1 and f"held (nothing applied): {err}" in r.stdout, r.stdout
    pf = next(p for p in json.loads(h.run("status", "--json", env=NO_BUS).stdout)["pfs"]
              if p["pci"] == CX6DX)
    assert pf["state"] == "held" and pf["reason"] == err, pf

    # the reboot: the raised limit is in force, and the hold is gone
    s = h.state()
    for p in s["pfs"]:
        p["total_vfs"] = p["firmware_total_vfs"]
    h.save(place_card_vfs(s))
    subprocess.run(["rm", "-rf", "--", f"{h.path}.run"], check=True)
    r = h.run("check", env=NO_BUS)
    assert r.returncode == 0 and r.stderr == "", r
    pf = status_pf_at(h, CX6DX)
    assert pf["state"] == "pending" and pf["reason"] == WAITING.format(k=0, n=16), pf


def status_pf_at(h, pci):
    r = h.run("status", "--json", env=NO_BUS)
    assert r.returncode == 0, r
    return next(p for p in json.loads(r.stdout)["pfs"] if p["pci"] == pci)


def test_vfs_beyond_the_expected_count_are_left_and_said(make_host):
    """The other tool made 10 VFs where the layout expects 8: the eight it covers are configured,
    VFs 8 and 9 are left as they are (never destroyed), and plan, apply and status say so."""
    h = make_host("e810.json")
    path = h.layout("50-e810.conf", f"[Match]\nPCIAddress={E810}\n[PhysicalFunction]\n"
                    "VirtualFunctions=8\nExternallyManaged=yes\n[VirtualFunction]\nTrust=yes\n")
    other_tool(h, 10)
    why = "another tool made 10 VFs, 8 expected (ExternallyManaged=yes)"
    warn = f"{path}:4: warning: VirtualFunctions=8: {why}: VFs 8-9 are left as they are\n"

    r = h.run("plan", env=NO_BUS)
    assert r.returncode == 10 and warn in r.stderr, r
    assert f"{E810} (ens1f0): 8 action(s), all live\n" in r.stdout, r.stdout
    assert "VF 8:" not in r.stdout and "VF 9:" not in r.stdout, r.stdout

    r = h.run("apply", env=NO_BUS)
    assert r.returncode == 0 and warn in r.stderr, r
    assert f"{E810} (ens1f0): applied, 8 action(s) in " in r.stdout, r.stdout
    vfs = h.pf(E810)["vfs"]
    assert len(vfs) == 10 and [v["trust"] for v in vfs] == [True] * 8 + [False] * 2

    r = h.run("status", env=NO_BUS)
    assert f"\n    {why}\n" in r.stdout, r.stdout
    pf = status_pf(h)
    assert (pf["state"], pf["reason"]) == ("applied", why), pf
    left = "left as it is: beyond VirtualFunctions=8, another tool made it (ExternallyManaged=yes)"
    assert [v["layout"] for v in pf["vfs"]] == ["ok"] * 8 + [left] * 2
    assert h.run("plan", env=NO_BUS).returncode == 0
    r = h.run("wait", "--timeout", "0", env=NO_BUS)
    assert r.returncode == 0, r


def test_vfs_sriov_persist_made_are_not_blamed_on_another_tool(make_host):
    """sriov-persist made 4 VFs, then the layout says VirtualFunctions=2 and ExternallyManaged=yes:
    its record says the VFs are its own, so plan, apply and status say so, not that another tool
    made them; VFs 2-3 are left as they are."""
    h = make_host("e810.json")
    path = h.layout("50-e810.conf", f"[Match]\nPCIAddress={E810}\n[PhysicalFunction]\n"
                    "VirtualFunctions=4\n")
    assert h.run("apply", env=NO_BUS).returncode == 0
    h.layout("50-e810.conf", f"[Match]\nPCIAddress={E810}\n[PhysicalFunction]\n"
             "VirtualFunctions=2\nExternallyManaged=yes\n")
    why = ("4 VFs exist, 2 expected; sriov-persist created them before ExternallyManaged=yes "
           "(its record)")
    warn = (f"{path}:4: warning: VirtualFunctions=2: {why}: VFs 2-3 are left as they are "
            "(ExternallyManaged=yes never destroys VFs; sriovctl reset after removing the layout "
            "does)\n")

    for verb in ("plan", "apply"):
        r = h.run(verb, env=NO_BUS)
        assert warn in r.stderr and "another tool made" not in r.stderr + r.stdout, r
    assert h.pf(E810)["num_vfs"] == 4
    r = h.run("status", env=NO_BUS)
    assert f"\n    {why}\n" in r.stdout and "another tool made" not in r.stdout, r.stdout
    pf = status_pf(h)
    assert (pf["state"], pf["reason"]) == ("applied", why), pf
    left = ("left as it is: beyond VirtualFunctions=2, sriov-persist created it before "
            "ExternallyManaged=yes (its record)")
    assert [v["layout"] for v in pf["vfs"]] == ["ok"] * 2 + [left] * 2, pf


def test_vfs_the_other_tool_makes_anew_are_pending_and_waited_for(make_host):
    """Applied, then the other tool replaces its VFs with fresh ones (the same count, every
    setting back to the kernel's default): status says pending with why, not a bare drifted, and
    wait does not count the PF as applied until an apply configures them again."""
    h = external_host(make_host, n=4)
    other_tool(h, 4)
    assert h.run("apply", env=NO_BUS).returncode == 0
    assert h.run("wait", "--timeout", "0", env=NO_BUS).returncode == 0
    s = h.state()
    for vf in h.pf_of(s, E810)["vfs"]:
        vf.update(vlan=0, trust=False)
    h.save(s)
    anew = "VFs that another tool made (anew, or changed) since the last apply are not " \
           "configured yet"

    pf = status_pf(h)
    assert (pf["state"], pf["reason"]) == ("pending", anew), pf
    r = h.run("wait", "--timeout", "0", env=NO_BUS)
    assert r.returncode == 1 and f"{E810} ({anew})" in r.stdout, r

    assert h.run("apply", env=NO_BUS).returncode == 0
    assert status_pf(h)["state"] == "applied"
    r = h.run("wait", "--timeout", "0", env=NO_BUS)
    assert r.returncode == 0, r


def test_vfs_not_created_yet_show_what_the_layout_wants(make_host):
    """A VF the other tool has yet to make lists every key its layouts set, as a VF sriov-persist
    is to create does: the table's line below it, and the wanted values in the JSON."""
    h = external_host(make_host, n=4)
    other_tool(h, 2)
    out = h.run("status", E810, env=NO_BUS).stdout
    for i in (2, 3):
        assert f"    {i}   not created yet (ExternallyManaged=yes: another tool makes the VFs)\n" \
               "        vlan 100, trust yes\n" in out, out
    vfs = status_pf(h)["vfs"]
    assert [v["pci"] is None for v in vfs] == [False, False, True, True], vfs
    for v in vfs[2:]:
        assert v["settings"]["VLANId"] == {"now": None, "wanted": "100",
                                           "source": f"{h.confdir}/50-e810.conf:7"}, v
        assert v["settings"]["Trust"]["wanted"] == "yes", v
