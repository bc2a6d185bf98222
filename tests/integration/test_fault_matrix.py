# SPDX-License-Identifier: LGPL-2.1-or-later
"""The fault matrix on the simulated host: each fault real drivers show fails only its PF, says what
happened, loses no record, and the next apply converges once the fault is gone."""

import json
import os
import subprocess
import threading
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
HELPER = os.environ.get("SRIOV_UDEV_HELPER") or str(ROOT / "build/asan/udev-helper")

LAYOUT = """[Match]
PCIAddress={pci}

[PhysicalFunction]
VirtualFunctions={n}

[VirtualFunction 0-{last}]
VLANId={vlan}
Trust=yes
"""

# every kind of action of a full apply: VFs, PF MTU, VF attributes, a driver change, VF MTU
FULL = """[Match]
PCIAddress={pci}

[PhysicalFunction]
VirtualFunctions=4
MTUBytes=9000

[VirtualFunction 0-1]
Driver=vfio-pci
MACAddress=stable
VLANId=100
Trust=yes

[VirtualFunction 2-3]
VLANId=200
MTUBytes=9000

[VirtualFunction 3]
MACAddress=02:00:00:00:10:03
"""


def two_pfs(make_host, fixture="e810.json", n=4, vlan=100):
    """A host whose first two PFs have a layout each; (host, faulted PF, other PF)."""
    h = make_host(fixture)
    pcis = [p["pci"] for p in h.state()["pfs"]][:2]
    for pci in pcis:
        h.layout(f"50-{pci}.conf", LAYOUT.format(pci=pci, n=n, last=n - 1, vlan=vlan))
    return h, pcis[0], pcis[1]


def status(h):
    return {p["pci"]: p for p in json.loads(h.run("status", "--json").stdout)["pfs"]}


def created(h, pci):
    """What the record of created things says (<state>/pf/<pci>.json), None when absent."""
    path = Path(str(h.path) + ".lib") / "pf" / f"{pci}.json"
    return json.loads(path.read_text()) if path.exists() else None


def assert_only_faulted_failed(h, r, bad, good, words):
    assert r.returncode == 1, r.stdout + r.stderr
    st = status(h)
    assert st[bad]["last_apply"]["state"] == "failed", st[bad]
    error = st[bad]["last_apply"]["error"]
    assert any(w in error for w in words), error
    assert st[good]["state"] == "applied", st[good]


def assert_converges(h, *pcis):
    r = h.run("apply")
    assert r.returncode == 0, r.stdout + r.stderr
    assert h.run("plan").returncode == 0
    st = status(h)
    for pci in pcis:
        assert st[pci]["state"] == "applied", st[pci]
    assert spent(h), h.state()["faults"]


def remove_layout_and_reset(h, name, pci, n, what=""):
    """The layout goes: an apply leaves the PF its n VFs, and reset, which knows they are ours,
    removes them."""
    (h.confdir / name).unlink()
    r = h.run("apply")
    assert r.returncode == 0 and h.pf(pci)["num_vfs"] == n, (what, r.stdout + r.stderr)
    r = h.run("reset", pci)
    assert r.returncode == 0, (what, r.stdout + r.stderr)
    assert h.pf(pci)["num_vfs"] == 0, what


def netdev_names(h, pci):
    return [v.get("name") for v in h.pf(pci)["vfs"]]


# --- VF netdevs ----------------------------------------------------------------------------------

def plan_actions(h, pci):
    """(action, vf) of the PF's plan."""
    doc = json.loads(h.run("plan", "--json", pci).stdout)
    pf = next(p for p in doc["pfs"] if p["pci"] == pci)
    return [(a["action"], a.get("vf")) for a in pf["actions"]]


def netdevs_appear(h, pci):
    """The VF driver finishes its probes: every VF gets its netdev, as the kernel names it."""
    def change(s):
        pf = h.pf_of(s, pci)
        for v in pf["vfs"]:
            v["name"] = v.get("name") or f"{pf['name']}v{v['index']}"
            v["mtu"] = v.get("mtu") or 1500
    h.edit(change)


def spent(h):
    return all(f.get("times") == 0 for f in h.state().get("faults", []))


def test_vf_netdevs_never_appear(make_host):
    h, bad, good = two_pfs(make_host)
    h.add_fault(op="set_num_vfs", pci=bad, netdevs=0, times=1)
    r = h.run("apply")
    assert_only_faulted_failed(h, r, bad, good, ["has no network device"])
    # the VFs exist, without netdevs, and what was created is on record for reset
    assert h.pf(bad)["num_vfs"] == 4 and netdev_names(h, bad) == [None] * 4
    assert created(h, bad)["num_vfs"] == 4
    # applying again sets what is left and never re-creates, unbinds or rebinds a VF whose
    # netdev this namespace does not show (a pod may hold it)
    acts = plan_actions(h, bad)
    assert acts and {a for a, _ in acts} == {"set_vf"}, acts
    r = h.run("apply")
    assert r.returncode == 0, r.stdout + r.stderr
    assert h.pf(bad)["num_vfs"] == 4 and all(v["vlan"] == 100 for v in h.pf(bad)["vfs"])
    remove_layout_and_reset(h, f"50-{bad}.conf", bad, 4)


def test_vf_netdevs_late_within_the_wait(make_host):
    h, bad, good = two_pfs(make_host)
    h.add_fault(op="set_num_vfs", pci=bad, netdevs=0, after_ms=400, times=1)
    t0 = time.monotonic()
    r = h.run("apply")
    assert r.returncode == 0, r.stdout + r.stderr
    assert time.monotonic() - t0 >= 0.4, "the apply did not wait for the netdevs"
    assert spent(h), h.state()["faults"]
    assert all(netdev_names(h, bad))
    assert h.run("plan").returncode == 0


def test_vf_netdevs_later_than_the_wait(make_host):
    h, bad, good = two_pfs(make_host)
    h.add_fault(op="set_num_vfs", pci=bad, netdevs=0, after_ms=5000, times=1)
    r = h.run("apply")
    assert_only_faulted_failed(h, r, bad, good, ["has no network device"])
    netdevs_appear(h, bad)
    assert {a for a, _ in plan_actions(h, bad)} == {"set_vf"}
    assert_converges(h, bad, good)


def test_vf_netdevs_partial(make_host):
    h, bad, good = two_pfs(make_host)
    h.add_fault(op="set_num_vfs", pci=bad, netdevs=2, times=1)
    r = h.run("apply")
    assert_only_faulted_failed(h, r, bad, good, ["VF 2 has no network device"])
    names = netdev_names(h, bad)
    assert names[:2] == ["ens1f0v0", "ens1f0v1"] and names[2:] == [None, None]
    assert {a for a, _ in plan_actions(h, bad)} == {"set_vf"}
    netdevs_appear(h, bad)
    assert_converges(h, bad, good)


# --- refused attributes, drivers and modules -----------------------------------------------------

@pytest.mark.parametrize("error,words", [
    ("EADDRNOTAVAIL", ["Cannot assign requested address"]),
    ("ENETDOWN", ["Network is down"]),
])
@pytest.mark.parametrize("fixture", ["e810.json", "igb-82576.json"])
def test_vf_mac_refused_while_pf_down(make_host, fixture, error, words):
    h = make_host(fixture)
    pcis = [p["pci"] for p in h.state()["pfs"]][:2]
    for i, pci in enumerate(pcis):
        h.layout(f"50-{pci}.conf", f"[Match]\nPCIAddress={pci}\n[PhysicalFunction]\n"
                                   f"VirtualFunctions=2\n[VirtualFunction 0]\n"
                                   f"MACAddress=02:00:00:00:0{i}:00\n[VirtualFunction 1]\n"
                                   f"MACAddress=02:00:00:00:0{i}:01\n")
    bad, good = pcis
    h.add_fault(op="set_vf", pci=bad, errno=error, times=1)
    r = h.run("apply")
    assert_only_faulted_failed(h, r, bad, good, words)
    assert_converges(h, bad, good)
    assert [v["mac"] for v in h.pf(bad)["vfs"]] == ["02:00:00:00:00:00", "02:00:00:00:00:01"]


def test_driver_bind_fails(make_host):
    h = make_host("e810.json")
    bad, good = [p["pci"] for p in h.state()["pfs"]][:2]
    for pci in (bad, good):
        h.layout(f"50-{pci}.conf", f"[Match]\nPCIAddress={pci}\n[PhysicalFunction]\n"
                                   "VirtualFunctions=2\n[VirtualFunction 0-1]\nDriver=vfio-pci\n")
    h.add_fault(op="bind_driver", pci=bad, errno="EINVAL", times=1)
    r = h.run("apply")
    assert_only_faulted_failed(h, r, bad, good, ["EINVAL", "Invalid argument"])
    assert_converges(h, bad, good)
    assert [v["driver"] for v in h.pf(bad)["vfs"]] == ["vfio-pci"] * 2


def test_vfs_for_vfio_never_touch_a_blacklisted_iavf(make_host):
    """Every VF wants vfio-pci and iavf cannot be loaded: the VFs are created with autoprobe off
    and each binds once, to vfio-pci; iavf is never asked for and the PF applies. Autoprobe is
    on again once they are bound."""
    h = make_host("e810.json")
    s = h.state()
    s["modules"] = ["ice", "vfio_pci"]
    s["faults"] = [{"op": "load_module", "errno": "EPERM"}]
    h.save(s)
    pci = h.pfs_by_driver("ice")[0]["pci"]
    h.layout("50-vfio.conf", f"[Match]\nPCIAddress={pci}\n[PhysicalFunction]\n"
                             "VirtualFunctions=4\n[VirtualFunction 0-3]\nDriver=vfio-pci\n")
    r = h.run("apply")
    assert r.returncode == 0, r.stdout + r.stderr
    assert "set VF driver autoprobe off" in r.stdout and "unbind" not in r.stdout, r.stdout
    assert r.stdout.rstrip().splitlines()[-2].endswith("set VF driver autoprobe on"), r.stdout
    assert r.stdout.count("bind vfio-pci") == 4, r.stdout
    s = h.state()
    assert s["faults"] == [{"op": "load_module", "errno": "EPERM"}], "a module load was tried"
    pf = h.pf(pci)
    assert [v["driver"] for v in pf["vfs"]] == ["vfio-pci"] * 4 and pf["drivers_autoprobe"]
    assert "drivers_autoprobe_off" not in created(h, pci)


def test_autoprobe_is_on_again_when_the_apply_stops_early(make_host):
    """A PF action after the VFs were created with autoprobe off fails (hw-tc-offload on a
    ConnectX after the switch to switchdev): the eswitch goes back, the VFs are put on a driver
    and autoprobe is on again; no record says otherwise."""
    h = make_host("cx6dx.json")
    pci = h.pfs_by_driver("mlx5_core")[0]["pci"]
    h.layout("50.conf", f"[Match]\nPCIAddress={pci}\n[PhysicalFunction]\nVirtualFunctions=2\n"
                        "ESwitchMode=switchdev\nHardwareTCOffload=yes\n"
                        "[VirtualFunction 1]\nDriver=vfio-pci\n")
    h.add_fault(op="set_hw_tc_offload", pci=pci, errno="EIO", times=1)
    r = h.run("apply")
    assert r.returncode == 1, r.stdout + r.stderr
    assert "VF driver autoprobe is on again" in r.stdout, r.stdout
    pf = h.pf(pci)
    assert pf["drivers_autoprobe"] and None not in [v["driver"] for v in pf["vfs"]], pf
    assert not (created(h, pci) or {}).get("drivers_autoprobe_off"), created(h, pci)
    r = h.run("apply")
    assert r.returncode == 0, r.stdout + r.stderr
    assert [v["driver"] for v in h.pf(pci)["vfs"]] == ["mlx5_core", "vfio-pci"]
    assert h.pf(pci)["drivers_autoprobe"]


@pytest.mark.parametrize("error,what", [("ENOENT", "missing"), ("EPERM", "blacklisted")])
def test_vf_driver_module_missing_or_blacklisted(make_host, error, what):
    """iavf cannot be loaded: the PFs whose VFs need it fail, the ConnectX PF goes on."""
    h = make_host("mixed.json")
    s = h.state()
    s["modules"] = [m for m in s["modules"] if m != "iavf"]
    h.save(s)
    pfs = {p["driver"]: p["pci"] for p in s["pfs"]}
    for pci in pfs.values():
        h.layout(f"50-{pci}.conf", LAYOUT.format(pci=pci, n=2, last=1, vlan=10))
    h.add_fault(op="load_module", errno=error, times=1)
    r = h.run("apply")
    assert r.returncode == 1, r.stdout + r.stderr
    st = status(h)
    failed = {pci for pci, p in st.items() if p["last_apply"]["state"] == "failed"}
    assert pfs["ice"] in failed and pfs["mlx5_core"] not in failed, st
    assert st[pfs["mlx5_core"]]["state"] == "applied"
    assert_converges(h, *pfs.values())


# --- writes that hang ----------------------------------------------------------------------------

def test_write_hangs_then_completes_after_the_timeout(make_host):
    h, bad, good = two_pfs(make_host)
    h.add_fault(op="set_num_vfs", pci=bad, hang=True, completes=True, times=1)
    r = h.run("apply", timeout=30)
    assert_only_faulted_failed(h, r, bad, good, ["did not return within", "timed out"])
    # the write landed after we gave up: the VFs are there, and on record as ours
    assert h.pf(bad)["num_vfs"] == 4
    assert created(h, bad)["num_vfs"] == 4
    assert_converges(h, bad, good)
    remove_layout_and_reset(h, f"50-{bad}.conf", bad, 4)


# --- a crash after every single operation --------------------------------------------------------

def actions_of_full_apply(make_host):
    h = make_host("e810.json")
    pci = h.pfs_by_driver("ice")[0]["pci"]
    h.layout("50-e810.conf", FULL.format(pci=pci))
    r = h.run("plan", "--json")
    assert r.returncode == 10, r.stdout + r.stderr
    pf = next(p for p in json.loads(r.stdout)["pfs"] if p["pci"] == pci)
    return pci, len(pf["actions"])


def test_crash_after_every_operation(make_host):
    pci, n = actions_of_full_apply(make_host)
    assert n >= 10, n
    for k in range(1, n + 1):
        h = make_host("e810.json")
        h.layout("50-e810.conf", FULL.format(pci=pci))
        h.add_fault(op="any", crash_after=k)
        r = h.run("apply")
        assert r.returncode == -9, (k, r.returncode, r.stdout, r.stderr)
        # what was created is on record before anything was done
        assert created(h, pci)["num_vfs"] == 4, k
        r = h.run("apply")
        assert r.returncode == 0, (k, r.stdout + r.stderr)
        assert h.run("plan").returncode == 0, k
        remove_layout_and_reset(h, "50-e810.conf", pci, 4, what=k)


# the layout of the igb VM tests: igb takes a VF's MAC only when igbvf binds after it is set, so
# VFs 0 and 2 are unbound, set and bound again, and VF 1 goes to vfio-pci
IGB = """[Match]
PCIAddress={pci}

[PhysicalFunction]
VirtualFunctions=3

[VirtualFunction 0]
MACAddress=02:00:00:00:01:00
VLANId=100
QualityOfService=2
Trust=yes
MACSpoofCheck=no

[VirtualFunction 1]
Driver=vfio-pci
MACAddress=02:00:00:00:01:01

[VirtualFunction 2]
MACAddress=02:00:00:00:01:02
VLANId=200
"""


def vf_drivers(h, pci):
    return [v.get("driver") for v in h.pf(pci)["vfs"]]


def igb_host(make_host):
    """The igb host, booted with the IOMMU on as the VM is."""
    h = make_host("igb-82576.json")
    s = h.state()
    s["iommu"] = True
    h.save(s)
    return h, h.pfs_by_driver("igb")[0]["pci"]


def igb_host_with_vfs(make_host):
    """The igb host whose three VFs the kernel probed on igbvf as it created them."""
    h, pci = igb_host(make_host)
    h.layout("50-igb.conf", f"[Match]\nPCIAddress={pci}\n[PhysicalFunction]\nVirtualFunctions=3\n")
    assert h.run("apply").returncode == 0
    assert vf_drivers(h, pci) == ["igbvf"] * 3
    h.layout("50-igb.conf", IGB.format(pci=pci))
    return h, pci


def crash_points(h, pci):
    """Each crash_after=k that kills the apply while a VF is on no driver: after an unbind, or
    after the VFs were created with autoprobe off, and before the bind of that VF."""
    r = h.run("plan", "--json", pci)
    plan = [(a["action"], a.get("vf")) for a in json.loads(r.stdout)["pfs"][0]["actions"]]
    points, unbound = [], set()
    for k, (action, vf) in enumerate(plan):
        if action == "set_num_vfs":
            unbound = {v for a, v in plan[k:] if a == "bind_vf"}
        elif action == "unbind_vf":
            unbound.add(vf)
        elif action == "bind_vf":
            unbound.discard(vf)
        if unbound:
            points.append(k + 1)
    return [a for a, _ in plan], points


@pytest.mark.parametrize("how", ["unbound", "created"])
def test_crash_between_unbind_and_bind(make_host, how):
    """An apply killed after it took a VF off igbvf (or created the VFs with autoprobe off, on
    no driver) and before it bound it: the VF is not left on no driver as if that were its
    layout, by the next apply or by a look at the plan."""
    setup = igb_host_with_vfs if how == "unbound" else lambda m: (igb_host(m)[0], None)
    h, pci = setup(make_host)
    pci = pci or h.pfs_by_driver("igb")[0]["pci"]
    h.layout("50-igb.conf", IGB.format(pci=pci))
    actions, crashes = crash_points(h, pci)
    if how == "unbound":
        assert actions.count("unbind_vf") == 3, actions
    else:
        assert "unbind_vf" not in actions and "set_drivers_autoprobe" in actions, actions
    assert len(crashes) >= 3, (actions, crashes)
    for k in crashes:
        h, pci = setup(make_host)
        pci = pci or h.pfs_by_driver("igb")[0]["pci"]
        h.layout("50-igb.conf", IGB.format(pci=pci))
        h.add_fault(op="any", crash_after=k)
        r = h.run("apply")
        assert r.returncode == -9, (k, r.returncode, r.stdout, r.stderr)
        assert None in vf_drivers(h, pci), (k, vf_drivers(h, pci))
        if how == "created":
            assert not h.pf(pci)["drivers_autoprobe"], k
            assert created(h, pci)["drivers_autoprobe_off"] is True, k
        # the record says where the VF goes back: the plan binds it, and status says so
        vf = vf_drivers(h, pci).index(None)
        assert ("bind_vf", vf) in plan_actions(h, pci), k
        layout = json.loads(h.run("status", "--json").stdout)["pfs"][0]["vfs"][vf]["layout"]
        want = ["igbvf", "vfio-pci", "igbvf"][vf]
        assert layout.startswith("differs: ") and layout.endswith(f"no driver bound (wanted {want})"), \
            (k, layout)
        r = h.run("apply")
        assert r.returncode == 0, (k, r.stdout + r.stderr)
        assert vf_drivers(h, pci) == ["igbvf", "vfio-pci", "igbvf"], k
        assert h.run("plan").returncode == 0, k
        # nothing is left on record to bind once every VF is bound
        assert not created(h, pci).get("rebind"), (k, created(h, pci))
        # autoprobe is off only while VFs are created and bound
        assert "drivers_autoprobe_off" not in created(h, pci), (k, created(h, pci))
        assert h.pf(pci)["drivers_autoprobe"], k


def test_daemon_binds_what_a_killed_apply_left_unbound(make_host, start_daemon):
    """The daemon (repair mode) that starts after an apply was killed between creating the VFs
    with autoprobe off and binding them binds each where the record says."""
    h, pci = igb_host(make_host)
    h.layout("50-igb.conf", IGB.format(pci=pci))
    h.main.write_text("[Disruption]\nPolicy=immediate\n[Drift]\nMode=repair\n")
    r = h.run("plan", "--json", pci)
    actions = [a["action"] for a in json.loads(r.stdout)["pfs"][0]["actions"]]
    h.add_fault(op="any", crash_after=actions.index("set_num_vfs") + 1)
    assert h.run("apply").returncode == -9
    assert vf_drivers(h, pci) == [None] * 3
    d = start_daemon(h)
    deadline = time.monotonic() + 20
    while vf_drivers(h, pci) != ["igbvf", "vfio-pci", "igbvf"] and time.monotonic() < deadline:
        time.sleep(0.1)
    assert vf_drivers(h, pci) == ["igbvf", "vfio-pci", "igbvf"], d.log_text()
    assert h.run("plan", pci).returncode == 0
    assert not created(h, pci).get("rebind"), created(h, pci)


def test_switchdev_step_fails_leaves_the_pf_as_it_was(make_host):
    """A step of the eswitch change that fails after the switch (hw-tc-offload here) switches the
    eswitch back to legacy and binds the VFs again: the PF is as it was, not half-way."""
    h = make_host("cx6dx.json")
    pci = h.pfs_by_driver("mlx5_core")[0]["pci"]
    h.layout("60.conf", f"[Match]\nPCIAddress={pci}\n[PhysicalFunction]\nVirtualFunctions=4\n"
                        "ESwitchMode=switchdev\nHardwareTCOffload=yes\n")
    h.add_fault(op="set_hw_tc_offload", pci=pci, errno="EIO", times=1)
    r = h.run("apply")
    assert r.returncode == 1, r.stdout + r.stderr
    assert "set hw-tc-offload on failed" in r.stdout, r.stdout
    assert "the eswitch is back in legacy mode" in r.stdout, r.stdout
    pf = h.pf(pci)
    assert pf["eswitch_mode"] == "legacy" and not pf["hw_tc_offload"], pf
    assert [v["driver"] for v in pf["vfs"]] == ["mlx5_core"] * 4, pf["vfs"]
    assert status(h)[pci]["last_apply"]["state"] == "failed"
    # the fault is spent: the next apply makes the whole change
    assert_converges(h, pci)
    pf = h.pf(pci)
    assert pf["eswitch_mode"] == "switchdev" and pf["hw_tc_offload"], pf


@pytest.mark.parametrize("times", [1, 2])
def test_vf_takes_a_random_mac_as_it_binds(make_host, times):
    """igb hands a VF that probes while the PF resets (its link coming up) a random MAC and keeps
    it: every step succeeded, yet the read back differs. What is left gets one more pass; a
    driver that does it again fails the PF with what still differs."""
    h, pci = igb_host(make_host)
    h.layout("50-igb.conf", IGB.format(pci=pci))
    assert h.run("apply").returncode == 0
    s = h.state()
    vf0 = h.pf_of(s, pci)["vfs"][0]["pci"]
    h.pf_of(s, pci)["vfs"][0]["mac"] = "02:99:99:99:99:99"
    h.save(s)
    h.add_fault(op="bind_driver", pci=vf0, random_mac=True, times=times)
    r = h.run("apply")
    if times == 1:
        assert r.returncode == 0, r.stdout + r.stderr
        assert r.stdout.count("VF 0: bind igbvf") == 2, r.stdout
        assert h.pf(pci)["vfs"][0]["mac"] == "02:00:00:00:01:00"
        assert status(h)[pci]["state"] == "applied"
    else:
        assert r.returncode == 1, r.stdout + r.stderr
        assert "read back differs from the layout: 3 action(s) still needed, first: VF 0: " \
               "unbind" in r.stdout, r.stdout
        assert h.pf(pci)["vfs"][0]["driver"] == "igbvf"
        assert_converges(h, pci)


# --- appliers racing on one PF -------------------------------------------------------------------

def helper(h, verb, pci):
    return subprocess.run([HELPER, "--host", str(h.path), "--config-dir", str(h.confdir),
                           "--main-config", str(h.main), verb, pci],
                          capture_output=True, text=True, timeout=120)


def test_udev_helper_on_a_simulated_host(make_host):
    h, bad, good = two_pfs(make_host)
    r = helper(h, "match", bad)
    assert r.returncode == 0 and f"SRIOV_PERSIST_PF={bad}" in r.stdout, r.stdout + r.stderr
    r = helper(h, "apply", bad)
    assert r.returncode == 0, r.stdout + r.stderr
    assert h.pf(bad)["num_vfs"] == 4 and h.pf(good)["num_vfs"] == 0
    assert status(h)[bad]["state"] == "applied"


def test_udev_helper_help_and_usage():
    for flag in ("--help", "-h"):
        r = subprocess.run([HELPER, flag], capture_output=True, text=True, timeout=60)
        assert r.returncode == 0 and r.stderr == "", r
        assert r.stdout.startswith(f"Usage: {HELPER} [OPTIONS] match|vf|apply PCI-ADDRESS\n"), r.stdout
        assert "kernel-arguments add|remove" in r.stdout and "--host FILE" in r.stdout, r.stdout
    for args, why in (([], "a command and its argument are needed\n"),
                      (["match"], "a command and its argument are needed\n"),
                      (["match", "0000:3b:00.0", "x"], "too many arguments\n"),
                      (["apply", "3b:00.0"], "apply: '3b:00.0' is not a PCI address "
                       "(domain included, as 0000:3b:00.0)\n"),
                      (["match", "0000:3B:00.0"], "match: '0000:3B:00.0': PCI addresses are "
                       "lower case, as the kernel writes them: 0000:3b:00.0\n"),
                      (["kernel-arguments", "on"], "kernel-arguments: 'on': expected add or "
                       "remove\n"),
                      (["--bogus", "match", "0000:3b:00.0"], "unrecognized option '--bogus'")):
        r = subprocess.run([HELPER, *args], capture_output=True, text=True, timeout=60)
        assert r.returncode == 2 and r.stdout == "", (args, r)
        assert why in r.stderr, (args, r)
        if why.endswith("\n"):  # what is wrong, then the usage
            assert r.stderr.startswith(why) and "Usage:" in r.stderr, (args, r)


def race(runs):
    results = [None] * len(runs)

    def go(i, f):
        results[i] = f()

    threads = [threading.Thread(target=go, args=(i, f)) for i, f in enumerate(runs)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return results


@pytest.mark.parametrize("round_", range(3))
def test_udev_helper_and_sriovctl_race(make_host, round_):
    h, pci, other = two_pfs(make_host)
    # the VF count is created slowly, so that the two overlap
    h.add_fault(op="set_num_vfs", pci=pci, netdevs=0, after_ms=300, times=1)
    results = race([lambda: helper(h, "apply", pci), lambda: h.run("apply", pci),
                    lambda: helper(h, "apply", pci)])
    for r in results:
        assert r.returncode == 0, r.stdout + r.stderr
    assert h.run("plan", pci).returncode == 0
    assert status(h)[pci]["state"] == "applied"
    assert created(h, pci)["num_vfs"] == 4


def test_daemon_races_the_udev_helper_and_sriovctl(make_host, start_daemon):
    """A layout edit applied at once by hand and by the udev helper while the daemon (repair mode)
    waits for its reload: the daemon never takes the new layout for drift and undoes it."""
    h, pci, other = two_pfs(make_host)
    h.main.write_text("[Apply]\nSysfsWriteTimeoutSec=1\n[Disruption]\nPolicy=immediate\n"
                      "[Drift]\nMode=repair\n")
    assert h.run("apply").returncode == 0
    d = start_daemon(h)
    for vlan in (300, 301, 302):
        (h.confdir / f"50-{pci}.conf").write_text(LAYOUT.format(pci=pci, n=4, last=3, vlan=vlan))
        results = race([lambda: helper(h, "apply", pci), lambda: h.run("apply", pci)])
        for r in results:
            assert r.returncode == 0, r.stdout + r.stderr
        assert all(v["vlan"] == vlan for v in h.pf(pci)["vfs"])
    # a VF count change applied by hand: the daemon must not put the old count back
    (h.confdir / f"50-{pci}.conf").write_text(LAYOUT.format(pci=pci, n=6, last=5, vlan=302))
    assert h.run("apply", pci).returncode == 0
    assert h.pf(pci)["num_vfs"] == 6
    deadline = time.monotonic() + 20
    while "Reloading the configuration" not in d.log_text() and time.monotonic() < deadline:
        time.sleep(0.1)
    assert "Reloading the configuration" in d.log_text()
    # someone changes a VF behind everyone's back while two appliers run
    s = h.state()
    h.pf_of(s, pci)["vfs"][1]["vlan"] = 7
    h.save_atomic(s)
    results = race([lambda: helper(h, "apply", pci), lambda: h.run("apply", pci)])
    for r in results:
        assert r.returncode == 0, r.stdout + r.stderr
    assert h.run("plan", pci).returncode == 0
    assert h.pf(pci)["num_vfs"] == 6 and all(v["vlan"] == 302 for v in h.pf(pci)["vfs"])
    assert "vlan 100" not in d.log_text() and "4 VFs" not in d.log_text(), d.log_text()
    assert d.running()
    assert status(h)[pci]["state"] == "applied"
