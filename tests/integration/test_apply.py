# SPDX-License-Identifier: LGPL-2.1-or-later
"""apply, plan and status against simulated hosts: idempotence, untouched PFs, faults."""

import json
import re
import time
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]

E810_LAYOUT = """[Match]
PCIAddress={pci}

[PhysicalFunction]
VirtualFunctions=8
MTUBytes=9000

[VirtualFunction 0-3]
Driver=vfio-pci
MACAddress=stable
VLANId=100
QualityOfService=3
Trust=yes
MACSpoofCheck=no

[VirtualFunction 4-7]
MACAddress=stable
VLANId=200
MTUBytes=9000
RDMA=yes
MaxTxRateMbps=10000
"""

LAYOUTS = {
    "e810.json": ("ice", E810_LAYOUT),
    "x710.json": ("i40e", "[Match]\nPCIAddress={pci}\n[PhysicalFunction]\nVirtualFunctions=4\n"
                          "[VirtualFunction]\nMACAddress=stable\nVLANId=42\nTrust=yes\n"),
    "cx6dx.json": ("mlx5_core", "[Match]\nPCIAddress={pci}\n[PhysicalFunction]\nVirtualFunctions=4\n"
                                "ESwitchMode=switchdev\n[VirtualFunction]\nMACAddress=stable\n"),
    "igb-82576.json": ("igb", "[Match]\nPCIAddress={pci}\n[PhysicalFunction]\nVirtualFunctions=7\n"
                              "[VirtualFunction]\nMACAddress=stable\nVLANId=7\nQualityOfService=1\n"),
    "bnxt.json": ("bnxt_en", "[Match]\nPCIAddress={pci}\n[PhysicalFunction]\nVirtualFunctions=4\n"
                             "[VirtualFunction 1]\nMACAddress=02:00:00:00:00:11\nVLANId=5\n"),
    "cx7-ib.json": ("mlx5_core", "[Match]\nPCIAddress={pci}\n[PhysicalFunction]\nVirtualFunctions=4\n"
                                 "LinkType=infiniband\n[VirtualFunction]\nIBNodeGUID=stable\n"
                                 "IBPortGUID=stable\nLinkState=auto\nRDMA=yes\n"),
}


@pytest.mark.parametrize("fixture", sorted(LAYOUTS))
def test_apply_then_plan_is_empty(make_host, fixture):
    driver, layout = LAYOUTS[fixture]
    h = make_host(fixture)
    pci = h.pfs_by_driver(driver)[0]["pci"]
    h.layout("50-test.conf", layout.format(pci=pci))

    plan = h.run("plan")
    assert plan.returncode == 10, plan.stdout + plan.stderr
    r = h.run("apply")
    assert r.returncode == 0, r.stdout + r.stderr
    assert "applied" in r.stdout
    r = h.run("plan")
    assert r.returncode == 0, r.stdout + r.stderr
    assert "nothing to do" in r.stdout

    before = h.path.read_bytes()
    r = h.run("apply")
    assert r.returncode == 0
    assert "already applied" in r.stdout
    assert h.path.read_bytes() == before, "a second apply changed the host"


def test_e810_layout_is_on_the_host(make_host):
    h = make_host("e810.json")
    pci = h.pfs_by_driver("ice")[0]["pci"]
    h.layout("50-e810.conf", E810_LAYOUT.format(pci=pci))
    r = h.run("apply")
    assert r.returncode == 0, r.stdout + r.stderr
    pf = h.pf(pci)
    assert pf["num_vfs"] == 8 and pf["mtu"] == 9000
    macs = set()
    for vf in pf["vfs"]:
        mac = vf["mac"]
        assert int(mac[:2], 16) & 0x03 == 0x02, "stable MACs are locally administered unicast"
        macs.add(mac)
        if vf["index"] < 4:
            assert vf["driver"] == "vfio-pci" and vf["name"] is None
            assert (vf["vlan"], vf["qos"], vf["trust"], vf["spoofchk"]) == (100, 3, True, False)
        else:
            assert vf["driver"] == "iavf" and vf["mtu"] == 9000 and vf["rdma"] is True
            assert vf["vlan"] == 200 and vf["max_tx_rate"] == 10000
    assert len(macs) == 8
    for m in ("iavf", "irdma", "vfio-pci"):
        assert m in h.state()["modules"]


def test_stable_macs_survive_a_reset(make_host):
    h = make_host("e810.json")
    pci = h.pfs_by_driver("ice")[0]["pci"]
    h.layout("50-e810.conf", E810_LAYOUT.format(pci=pci))
    assert h.run("apply").returncode == 0
    first = [vf["mac"] for vf in h.pf(pci)["vfs"]]
    # the kernel forgets VFs (a reboot, a driver reload)
    s = h.state()
    for pf in s["pfs"]:
        if pf["pci"] == pci:
            pf["num_vfs"], pf["vfs"] = 0, []
    h.save(s)
    assert h.run("apply").returncode == 0
    assert [vf["mac"] for vf in h.pf(pci)["vfs"]] == first


def test_unconfigured_pf_is_never_touched(make_host):
    h = make_host("mixed.json")
    pfs = h.state()["pfs"]
    target, others = pfs[0], pfs[1:]
    h.layout("50-one.conf", f"[Match]\nPCIAddress={target['pci']}\n[PhysicalFunction]\n"
                            "VirtualFunctions=2\n")
    # a fault on every other PF would fire if anything touched them
    for o in others:
        h.add_fault(op="any", pci=o["pci"], errno="EIO")
    r = h.run("apply")
    assert r.returncode == 0, r.stdout + r.stderr
    after = h.state()["pfs"]
    for o in others:
        assert next(p for p in after if p["pci"] == o["pci"]) == o
    assert not (h.dir / "host.json.run" / "pf" / f"{others[0]['pci']}.json").exists()
    plan = h.run("plan")
    assert "unconfigured (no layout selects it)" in plan.stdout


def test_count_change_writes_zero_first(make_host):
    h = make_host("e810.json")
    pci = h.pfs_by_driver("ice")[0]["pci"]
    h.layout("50.conf", f"[Match]\nPCIAddress={pci}\n[PhysicalFunction]\nVirtualFunctions=4\n")
    assert h.run("apply").returncode == 0
    h.layout("50.conf", f"[Match]\nPCIAddress={pci}\n[PhysicalFunction]\nVirtualFunctions=6\n")
    plan = h.run("plan", pci)
    assert plan.returncode == 10
    lines = [l for l in plan.stdout.splitlines() if l.startswith("  disruptive")]
    assert len(lines) == 2 and "remove all VFs" in lines[0] and "6 VFs" in lines[1], plan.stdout
    assert h.run("apply").returncode == 0
    assert h.pf(pci)["num_vfs"] == 6


def test_disruption_policy_never_defers(make_host):
    h = make_host("e810.json")
    pci = h.pfs_by_driver("ice")[0]["pci"]
    h.layout("50.conf", f"[Match]\nPCIAddress={pci}\n[PhysicalFunction]\nVirtualFunctions=2\n")
    # creating VFs where there are none destroys nothing: live, applied under any policy
    h.main.write_text("[Disruption]\nPolicy=never\n")
    assert h.run("apply").returncode == 0
    h.layout("50.conf", f"[Match]\nPCIAddress={pci}\n[PhysicalFunction]\nVirtualFunctions=4\n")
    before = h.path.read_bytes()
    r = h.run("apply")
    assert r.returncode == 1
    assert "deferred" in r.stdout and "Policy=never" in r.stdout
    assert h.path.read_bytes() == before


@pytest.mark.parametrize("errno_name,op", [("EBUSY", "set_num_vfs"), ("ENOSPC", "set_num_vfs"),
                                           ("EIO", "set_vf")])
def test_injected_errno_fails_that_pf_only(make_host, errno_name, op):
    h = make_host("mixed.json")
    pfs = h.state()["pfs"]
    bad, good = pfs[0]["pci"], pfs[1]["pci"]
    for pci in (bad, good):
        h.layout(f"50-{pci}.conf", f"[Match]\nPCIAddress={pci}\n[PhysicalFunction]\n"
                                   "VirtualFunctions=3\n[VirtualFunction]\nVLANId=10\n")
    h.add_fault(op=op, pci=bad, errno=errno_name)
    r = h.run("apply")
    assert r.returncode == 1
    msg = {"EBUSY": "Device or resource busy", "ENOSPC": "No space left on device",
           "EIO": "Input/output error"}[errno_name]
    assert re.search(rf"{re.escape(bad)}.*failed.*{msg}", r.stdout), r.stdout
    assert h.pf(good)["num_vfs"] == 3 and all(v["vlan"] == 10 for v in h.pf(good)["vfs"])
    st = json.loads(h.run("status", "--json").stdout)
    states = {p["pci"]: p for p in st["pfs"]}
    assert states[bad]["last_apply"]["state"] == "failed"
    assert msg in states[bad]["last_apply"]["error"]
    assert states[good]["state"] == "applied"


def test_hang_is_bounded_by_sysfs_write_timeout(make_host):
    h = make_host("mixed.json")
    pfs = h.state()["pfs"]
    bad, good = pfs[0]["pci"], pfs[1]["pci"]
    for pci in (bad, good):
        h.layout(f"50-{pci}.conf", f"[Match]\nPCIAddress={pci}\n[PhysicalFunction]\n"
                                   "VirtualFunctions=3\n")
    h.add_fault(op="set_num_vfs", pci=bad, hang=True)
    r = h.run("apply", timeout=30)
    assert r.returncode == 1
    assert "timed out" in r.stdout or "Timer expired" in r.stdout, r.stdout
    assert h.pf(good)["num_vfs"] == 3


def test_crash_mid_apply_then_recovery(make_host):
    h = make_host("e810.json")
    pci = h.pfs_by_driver("ice")[0]["pci"]
    h.layout("50-e810.conf", E810_LAYOUT.format(pci=pci))
    h.add_fault(op="any", crash_after=3)
    r = h.run("apply")
    assert r.returncode == -9, (r.returncode, r.stdout, r.stderr)
    assert "crash_after" not in h.path.read_text()
    assert h.run("plan").returncode == 10
    r = h.run("apply")
    assert r.returncode == 0, r.stdout + r.stderr
    assert h.run("plan").returncode == 0


def test_drift_shows_in_status_and_plan_repairs_it(make_host):
    h = make_host("e810.json")
    pci = h.pfs_by_driver("ice")[0]["pci"]
    h.layout("50-e810.conf", E810_LAYOUT.format(pci=pci))
    assert h.run("apply").returncode == 0
    s = h.state()
    pf = next(p for p in s["pfs"] if p["pci"] == pci)
    pf["vfs"][5]["vlan"] = 0  # someone ran ip link set ... vf 5 vlan 0
    h.save(s)
    st = json.loads(h.run("status", "--json", pci).stdout)["pfs"][0]
    assert st["state"] == "drifted"
    assert st["vfs"][5]["layout"].startswith("differs")
    plan = h.run("plan", pci)
    assert plan.returncode == 10 and "VF 5" in plan.stdout and "live" in plan.stdout
    assert h.run("apply", pci).returncode == 0
    assert h.pf(pci)["vfs"][5]["vlan"] == 200


def test_vfio_without_iommu_is_degraded_not_a_reboot(make_host):
    """A reboot would change nothing until someone adds the kernel arguments: the PF is degraded
    and says which to add; the VF is not "ok" while it is not on vfio-pci."""
    h = make_host("igb-82576.json")
    pci = h.pfs_by_driver("igb")[0]["pci"]
    h.layout("50.conf", f"[Match]\nPCIAddress={pci}\n[PhysicalFunction]\nVirtualFunctions=2\n"
                        "[VirtualFunction 0]\nDriver=vfio-pci\n")
    r = h.run("apply")
    assert r.returncode == 1, r.stdout + r.stderr
    # an Intel host: the argument for its IOMMU
    assert "degraded after 2 action(s): VF 0 wants vfio-pci but the IOMMU is off: add " \
           "intel_iommu=on iommu=pt to the kernel command line and reboot" in r.stdout, r.stdout
    assert "reboot needed" not in r.stdout
    assert h.pf(pci)["num_vfs"] == 2 and h.pf(pci)["vfs"][0]["driver"] == "igbvf"
    s = h.run("status", "--json")
    assert s.returncode == 1
    pf = next(p for p in json.loads(s.stdout)["pfs"] if p["pci"] == pci)
    assert pf["state"] == "degraded" and "intel_iommu=on" in pf["reason"]
    assert pf["pending_reboot_reasons"] == []
    assert pf["vfs"][0]["layout"] == "differs: driver igbvf (wanted vfio-pci)"
    assert pf["vfs"][1]["layout"] == "ok"
    p = h.run("plan")
    assert p.returncode == 1 and "cannot: VF 0 wants vfio-pci" in p.stdout, p.stdout
    # applying again changes nothing and says the same
    before = h.path.read_bytes()
    assert h.run("apply").returncode == 1
    assert h.path.read_bytes() == before


def test_rdma_vf_without_an_rdma_device_is_degraded(make_host):
    """RDMA=yes is checked after the apply: a VF that has no RDMA device once nothing is left to do
    leaves the PF degraded, and status says which VF; it is applied once the device is there."""
    h = make_host("cx6dx.json")
    pci = h.pfs_by_driver("mlx5_core")[0]["pci"]
    h.layout("50.conf", f"[Match]\nPCIAddress={pci}\n[PhysicalFunction]\nVirtualFunctions=2\n"
                        "[VirtualFunction]\nRDMA=yes\n")
    r = h.run("apply")
    assert r.returncode == 0, r.stdout + r.stderr
    assert [v["rdma"] for v in h.pf(pci)["vfs"]] == [True, True]
    # the device turns RDMA off for VF 1 (as devlink's port function roce does)
    s = h.state()
    h.pf_of(s, pci)["vfs"][1]["rdma"] = False
    h.save(s)
    st = h.run("status", "--json")
    assert st.returncode == 1
    pf = next(p for p in json.loads(st.stdout)["pfs"] if p["pci"] == pci)
    assert pf["state"] == "degraded", pf
    assert pf["reason"].startswith("VF 1 has no RDMA device (RDMA=yes) with mlx5_ib loaded"), pf
    assert [v["layout"] for v in pf["vfs"]] == ["ok", "differs: no RDMA device"]
    r = h.run("apply")
    assert r.returncode == 1 and "VF 1 has no RDMA device" in r.stdout, r.stdout
    s = h.state()
    h.pf_of(s, pci)["vfs"][1]["rdma"] = True
    h.save(s)
    st = h.run("status", "--json")
    assert st.returncode == 0, st.stdout
    assert h.run("apply").returncode == 0


def test_plan_says_cannot_for_an_rdma_device_nothing_planned_brings(make_host):
    """Where the plan has other things to do, a VF with RDMA=yes and no RDMA device that no
    planned action may bring (no module load, no VF created, no bind of that VF) is a "cannot:"
    line and exit 1, as the apply that follows ends degraded; a VF the plan binds may get its
    device, so plan does not say cannot for it."""
    h = make_host("e810.json")
    h.layout("50-e810-rdma.conf", (REPO / "conf.d" / "50-e810-rdma.conf").read_text())
    assert h.run("apply").returncode == 0
    pci = "0000:3b:00.0"
    s = h.state()
    vfs = h.pf_of(s, pci)["vfs"]
    vfs[10]["rdma"] = False  # RDMA turned off for VF 10 in the device
    vfs[11]["trust"] = False
    h.save(s)
    cannot = ("  cannot: VF 10 has no RDMA device (RDMA=yes) with irdma loaded: RDMA may be turned "
              "off for the VFs in the device (devlink port function, firmware)\n")
    r = h.run("plan", pci)
    assert r.returncode == 1 and "live       VF 11: trust on\n" in r.stdout, r.stdout
    assert r.stdout.endswith(cannot), r.stdout
    r = h.run("apply", pci)
    assert r.returncode == 1 and "degraded after 1 action(s): VF 10 has no RDMA device" in r.stdout, \
        r.stdout
    # unbound, VF 10 is bound again by the plan, and the bind may bring the device
    s = h.state()
    h.pf_of(s, pci)["vfs"][10]["driver"] = None
    h.save(s)
    r = h.run("plan", pci)
    assert r.returncode == 10 and "cannot:" not in r.stdout, r.stdout
    r = h.run("apply", pci)
    assert r.returncode == 0, r.stdout
    assert h.pf(pci)["vfs"][10]["rdma"] is True


def test_firmware_vf_limit_is_a_pending_reboot(make_host):
    h = make_host("cx6dx.json")
    pci = h.pfs_by_driver("mlx5_core")[0]["pci"]
    h.layout("50.conf", f"[Match]\nPCIAddress={pci}\n[PhysicalFunction]\nVirtualFunctions=16\n")
    r = h.run("apply")
    assert r.returncode == 0, r.stdout + r.stderr
    assert "reboot needed: firmware VF limit 8 -> 16" in r.stdout
    st = json.loads(h.run("status", "--json").stdout)
    pf = next(p for p in st["pfs"] if p["pci"] == pci)
    assert pf["pending_reboot_reasons"] == ["firmware VF limit raised to 16, waiting for a reboot"]


def test_port_waiting_for_the_cards_firmware_raise_is_pending_not_applied(make_host):
    """One layout for both ports of a ConnectX-6 Dx wants more VFs than the firmware allows: the
    raise is done for port 0, and port 1, which nothing was done to, says it is pending a reboot,
    never "already applied"; so does a second apply for both."""
    h = make_host("cx6dx.json")
    h.layout("50.conf", "[Match]\nPCIAddress=0000:ca:00.*\n[PhysicalFunction]\n"
             "VirtualFunctions=16\n")
    pending = "(ens3f1np1): pending: nothing to do until a reboot\n  reboot needed: firmware VF"
    r = h.run("apply")
    assert r.returncode == 0 and f"0000:ca:00.1 {pending}" in r.stdout, r.stdout
    assert "already applied" not in r.stdout, r.stdout
    r = h.run("apply")
    assert r.returncode == 0 and f"0000:ca:00.1 {pending}" in r.stdout, r.stdout
    assert "0000:ca:00.0 (ens3f0np0): pending: nothing to do until a reboot\n" in r.stdout, r.stdout
    assert "already applied" not in r.stdout, r.stdout


def test_one_port_raises_the_cards_firmware_limit_as_far_as_all_its_layouts_need(make_host):
    """Port 0 wants 16 VFs, port 1 wants 12, the firmware allows 8: plan and apply of port 1 alone
    raise the card's one limit to 16, not 12, so the whole-host apply after it writes the firmware
    no second time."""
    h = make_host("cx6dx.json")
    h.layout("50.conf", "[Match]\nPCIAddress=0000:ca:00.0\n[PhysicalFunction]\n"
             "VirtualFunctions=16\n")
    h.layout("51.conf", "[Match]\nPCIAddress=0000:ca:00.1\n[PhysicalFunction]\n"
             "VirtualFunctions=12\n")
    why = ("firmware VF limit 8 -> 16 (as far as the layouts of 0000:ca:00.0 need "
           "too, one setting of this card) takes effect after a reboot\n")
    # plan: only an apply would write it; apply: written, the reboot is needed
    for verb, rc, said in (("plan", 10, "reboot needed after its apply: "),
                           ("apply", 0, "reboot needed: ")):
        r = h.run(verb, "ens3f1np1")
        assert r.returncode == rc and "raise firmware VF limit to 16 (reboot)" in r.stdout, r.stdout
        assert said + why in r.stdout, r.stdout
    assert [p["firmware_total_vfs"] for p in h.state()["pfs"]] == [16, 16]
    r = h.run("apply")
    assert r.returncode == 0 and "raise firmware" not in r.stdout, r.stdout


def test_status_table_and_json(make_host):
    h = make_host("mixed.json")
    pci = h.state()["pfs"][0]["pci"]
    h.layout("50.conf", f"[Match]\nPCIAddress={pci}\n[PhysicalFunction]\nVirtualFunctions=3\n")
    r = h.run("status")
    assert r.returncode == 0 and "pending" in r.stdout
    assert h.run("apply").returncode == 0
    r = h.run("status")
    assert re.search(rf"^{re.escape(pci)} .* applied ", r.stdout, re.M), r.stdout
    st = json.loads(h.run("status", "--json").stdout)
    pf = next(p for p in st["pfs"] if p["pci"] == pci)
    assert pf["num_vfs"] == 3 and pf["desired_num_vfs"] == 3 and pf["last_apply"]["actions"] >= 1


def test_apply_names_a_missing_pf(make_host):
    h = make_host("mixed.json")
    r = h.run("apply", "0000:ff:1f.7")
    assert r.returncode == 1 and "No PF" in r.stderr


def test_usage_errors_exit_2(make_host):
    h = make_host("mixed.json")
    assert h.run("frobnicate").returncode == 2
    assert h.run("plan", "a", "b").returncode == 2
    assert h.run("--bogus", "plan").returncode == 2


def test_valgrind_apply_has_no_leaks(make_host, sriovctl_plain_bin):
    h = make_host("e810.json")
    pci = h.pfs_by_driver("ice")[0]["pci"]
    h.layout("50-e810.conf", E810_LAYOUT.format(pci=pci))
    h.layout("60-broken.conf", "[Match]\nPCIAddress=0000:00:00.0\n[PhysicalFunction]\nMTUBytes=x\n")
    import subprocess
    cmd = ["valgrind", "--quiet", "--leak-check=full", "--show-leak-kinds=definite,indirect,possible",
           "--errors-for-leak-kinds=definite,indirect,possible", "--error-exitcode=99",
           sriovctl_plain_bin, "--no-color", "--host", str(h.path), "--config-dir", str(h.confdir),
           "--main-config", str(h.main), "apply"]
    for args in (cmd, cmd[:-1] + ["plan"], cmd[:-1] + ["status", "--json"]):
        r = subprocess.run(args, capture_output=True, text=True, timeout=300)
        assert r.returncode in (0, 1, 10), r.stderr
        assert "definitely lost" not in r.stderr and r.returncode != 99, r.stderr


def test_wait_returns_when_records_appear(make_host):
    import subprocess
    import time
    h = make_host("mixed.json")
    pfs = h.state()["pfs"]
    for p in pfs[:2]:
        h.layout(f"50-{p['pci']}.conf", f"[Match]\nPCIAddress={p['pci']}\n[PhysicalFunction]\n"
                                        "VirtualFunctions=3\n")
    r = h.run("wait", "--timeout", "1")
    assert r.returncode == 1 and "not applied yet" in r.stdout
    assert pfs[0]["pci"] in r.stdout and pfs[1]["pci"] in r.stdout
    assert pfs[2]["pci"] not in r.stdout  # unconfigured: not waited for

    cmd = [h.binary, "--no-color", "--host", str(h.path), "--config-dir", str(h.confdir),
           "--main-config", str(h.main), "wait", "--timeout", "60"]
    waiter = subprocess.Popen(cmd, stdout=subprocess.PIPE, text=True)
    time.sleep(0.5)
    assert waiter.poll() is None, "wait returned before anything was applied"
    assert h.run("apply").returncode == 0
    out, _ = waiter.communicate(timeout=30)
    assert waiter.returncode == 0, out
    assert "2 configured PF(s): 2 applied" in out


def test_wait_timeout_of_any_length_the_parser_takes(make_host):
    """--timeout up to UINT32_MAX seconds waits (a poll() of that many milliseconds would
    overflow past 24 days and return at once); one more is a usage error naming the limit."""
    import subprocess
    import time
    h = make_host("mixed.json")
    pci = h.state()["pfs"][0]["pci"]
    h.layout("50.conf", f"[Match]\nPCIAddress={pci}\n[PhysicalFunction]\nVirtualFunctions=3\n")
    for sec in ("2147484", "2592000", "4294967295"):  # 24.9 days, 30 days, the limit
        cmd = [h.binary, "--no-color", "--host", str(h.path), "--config-dir", str(h.confdir),
               "--main-config", str(h.main), "wait", "--timeout", sec]
        waiter = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        time.sleep(1)
        assert waiter.poll() is None, (sec, waiter.communicate())
        assert h.run("apply").returncode == 0
        out, err = waiter.communicate(timeout=30)
        assert waiter.returncode == 0 and "1 configured PF(s): 1 applied" in out, (sec, out, err)
        # the next round waits for a record of its own
        (h.dir / "host.json.run" / "pf" / f"{pci}.json").unlink()
    for sec, msg in (("4294967296", "--timeout=4294967296: at most 4294967295 seconds\n"),
                     ("99999999999999999999", "--timeout=99999999999999999999: at most "
                                              "4294967295 seconds\n"),
                     ("-1", "--timeout=-1: must be a number of seconds\n"),
                     ("1h", "--timeout=1h: must be a number of seconds\n")):
        r = h.run("wait", "--timeout", sec)
        assert (r.returncode, r.stderr) == (2, msg), (sec, r)


def test_wait_fails_for_a_held_pf(make_host):
    h = make_host("mixed.json")
    pci = h.state()["pfs"][0]["pci"]
    h.layout("50.conf", f"[Match]\nPCIAddress={pci}\n[VirtualFunction]\nVLANId=9999\n")
    assert h.run("apply").returncode == 1
    r = h.run("wait", "--timeout", "5")
    assert r.returncode == 1 and "1 not" in r.stdout


def test_wait_says_held_by_the_files_as_they_are_now(make_host):
    """The records say applied, and a layout broken since holds the PFs: the gate says held, with
    why, at once (nothing changes them before the files are edited), as status and plan do."""
    h = make_host("e810.json")
    h.layout("50-e810.conf", "[Match]\nDriver=ice\n[PhysicalFunction]\nVirtualFunctions=4\n"
                             "[VirtualFunction]\nVLANId=1000\n")
    assert h.run("apply").returncode == 0
    h.layout("50-e810.conf", "[Match]\nDriver=ice\n[PhysicalFunction]\nVirtualFunctions=4\n"
                             "[VirtualFunction]\nVLANId=1000O\n")
    why = f"{h.confdir}/50-e810.conf:6: VLANId=1000O: must be 0..4095"
    assert h.run("status").returncode == 1 and h.run("plan").returncode == 1
    t0 = time.monotonic()
    r = h.run("wait", "--timeout", "30")
    assert time.monotonic() - t0 < 10, "wait waited for PFs that nothing will apply"
    assert r.returncode == 1, r
    assert r.stdout == ("2 configured PF(s): 0 applied, 2 not (see sriovctl status)\n"
                        f"Not applied: 0000:3b:00.0 (ens1f0): held: {why}\n"
                        f"Not applied: 0000:3b:00.1 (ens1f1): held: {why}\n"), r.stdout
    # a refused file ([match]) holds both ports, also the one an earlier apply recorded
    h.layout("50-e810.conf", "[match]\nDriver=ice\n[PhysicalFunction]\nVirtualFunctions=4\n")
    r = h.run("wait", "--timeout", "0")
    assert r.returncode == 1 and "0 applied, 2 not" in r.stdout, r.stdout
    lines = r.stdout.splitlines()[1:]
    assert [ln.split(": held: ")[0] for ln in lines] == ["Not applied: 0000:3b:00.0 (ens1f0)",
                                                         "Not applied: 0000:3b:00.1 (ens1f1)"]
    assert all("unknown section [match]" in ln for ln in lines), lines


def test_wait_names_why_each_pf_is_not_applied(make_host):
    """A record of this boot that says held (the files fixed since, not applied yet) is done, not
    applied, and said as it is now: pending, not held for the record's reason; a PF with no record
    of this boot is waited for, and said so."""
    h = make_host("mixed.json")
    a, b = (p["pci"] for p in h.state()["pfs"][:2])
    h.layout("50.conf", f"[Match]\nPCIAddress={a}\n[VirtualFunction]\nVLANId=9999\n")
    assert h.run("apply").returncode == 1
    h.layout("50.conf", f"[Match]\nPCIAddress={a}\n[PhysicalFunction]\nVirtualFunctions=2\n")
    h.layout("60.conf", f"[Match]\nPCIAddress={b}\n[PhysicalFunction]\nVirtualFunctions=2\n")
    r = h.run("wait", "--timeout", "0")
    assert r.returncode == 1, r
    lines = r.stdout.splitlines()
    assert lines[0] == "Timed out after 0s; not applied yet:"
    assert lines[1] == f"Not applied yet: {b} (not applied in this boot yet)"
    opts = f"--host {h.path} --config-dir {h.confdir} --main-config {h.main}"
    assert re.fullmatch(rf"Not applied: {a} \(\S+\): pending: not applied since its last apply "
                        rf"held it, and what held it is fixed now \(sriovctl {re.escape(opts)} "
                        rf"apply {a} applies it\)", lines[2]), lines
    assert lines[3] == (f'    "sriovctl --host {h.path} --config-dir {h.confdir} --main-config '
                        f'{h.main} apply {a}" applies it now'), lines
    assert len(lines) == 4, lines


def test_snapshot_of_a_simulated_host_round_trips(make_host):
    h = make_host("mixed.json")
    r = h.run("snapshot")
    assert r.returncode == 0
    import json
    assert json.loads(r.stdout)["pfs"] == h.state()["pfs"]


def test_status_says_an_unplugged_pf_is_gone(make_host):
    h = make_host("mixed.json")
    pci = h.state()["pfs"][1]["pci"]
    h.layout("50.conf", f"[Match]\nPCIAddress={pci}\n[PhysicalFunction]\nVirtualFunctions=2\n")
    assert h.run("apply").returncode == 0
    s = h.state()
    s["pfs"] = [p for p in s["pfs"] if p["pci"] != pci]  # the NIC was hot-unplugged
    h.save(s)
    r = h.run("status")
    # LAST APPLY is that of its status record, not "-"
    assert re.search(rf"^{re.escape(pci)} .* gone +\d{{4}}-\d\d-\d\d \d\d:\d\d", r.stdout,
                     re.M), r.stdout
    st = json.loads(h.run("status", "--json").stdout)
    gone = next(p for p in st["pfs"] if p["pci"] == pci)
    assert gone["state"] == "gone" and gone["name"] == "ens2f0np0", gone
    assert gone["last_apply"]["state"] == "applied" and gone["last_apply"]["finished_usec"] > 0


def test_wait_holds_for_a_pf_whose_driver_is_not_bound_yet(make_host):
    # early in boot the PF exists but its driver is still probing: a layout that
    # matches on Driver= does not select it yet, and the gate must not open
    h = make_host("e810.json")
    s = h.state()
    pf = s["pfs"][0]
    pf["driver"], pf["name"], pf["num_vfs"], pf["vfs"] = None, None, 0, []
    h.save(s)
    h.layout("50.conf", "[Match]\nDriver=ice\nName=ens*\n[PhysicalFunction]\nVirtualFunctions=2\n")
    r = h.run("wait", "--timeout", "1")
    assert r.returncode == 1, r.stdout
    assert f"{pf['pci']} (no driver yet)" in r.stdout
    # a layout that cannot select it, whatever its driver, is not waited for
    h.layout("50.conf", "[Match]\nDevice=0x1572\n[PhysicalFunction]\nVirtualFunctions=2\n")
    r = h.run("wait", "--timeout", "1")
    assert r.returncode == 0 and "0 configured PF(s)" in r.stdout, r.stdout


def test_a_pf_on_no_driver_is_not_configured_and_says_why(make_host):
    """A layout that selects a PF by its address while no driver is bound: there is no
    sriov_numvfs to write. Plan and status say what the host lacks, apply tries nothing, and the
    gate waits for the driver (the apply unit runs when it binds)."""
    h = make_host("e810.json")
    s = h.state()
    pf = s["pfs"][0]
    pf["driver"], pf["name"], pf["num_vfs"], pf["vfs"] = None, None, 0, []
    h.save(s)
    h.layout("50.conf", f"[Match]\nPCIAddress={pf['pci']}\n[PhysicalFunction]\nVirtualFunctions=2\n")
    why = ("no driver is bound to the PF, and SR-IOV needs one: bind it (its layout is applied "
           "when the driver binds)")

    r = h.run("plan")
    assert r.returncode == 1, r
    assert (f"{pf['pci']}: nothing it can do now\n  files: 50.conf\n  cannot: {why}\n"
            in r.stdout), r.stdout
    # check says it too: no error of the files, a warning of the host
    r = h.run("check")
    assert r.returncode == 0, r
    assert r.stderr.splitlines() == [f"warning: {pf['pci']}: no driver is bound to the PF: its "
                                     "layout is applied when one binds"], r.stderr
    st = json.loads(h.run("status", "--json").stdout)["pfs"][0]
    assert (st["state"], st["reason"]) == ("degraded", why), st
    assert [v["layout"] for v in st["vfs"]] == ["not created (no driver is bound to the PF)"] * 2

    r = h.run("apply")
    assert r.returncode == 1, r
    assert r.stdout == f"{pf['pci']}: degraded after 0 action(s): {why}\n", r.stdout
    assert h.pf(pf["pci"])["num_vfs"] == 0
    r = h.run("wait", "--timeout", "0")
    assert r.returncode == 1 and f"{pf['pci']} (no driver yet)" in r.stdout, r.stdout


def test_shipped_infiniband_example(make_host):
    """conf.d/65-cx7-infiniband.conf on a ConnectX-7 in InfiniBand mode: stable GUIDs, applied
    once, and a second apply changes nothing."""
    h = make_host("cx7-ib.json")
    h.layout("65-cx7-infiniband.conf", (REPO / "conf.d" / "65-cx7-infiniband.conf").read_text())
    r = h.run("apply")
    assert r.returncode == 0, r.stdout + r.stderr
    pf = h.pfs_by_driver("mlx5_core")[0]
    assert pf["num_vfs"] == 8
    guids = [vf["ib_node_guid"] for vf in pf["vfs"]] + [vf["ib_port_guid"] for vf in pf["vfs"]]
    assert len(set(guids)) == 16 and all(int(g[:2], 16) & 0x03 == 0x02 for g in guids), guids
    assert all(vf["driver"] == "mlx5_core" and vf["rdma"] for vf in pf["vfs"]), pf["vfs"]
    r = h.run("apply")
    assert r.returncode == 0 and "already applied" in r.stdout, r.stdout

    # a GUID changed by hand: status names the GUID; the rebind that sets it is the means
    want = pf["vfs"][2]["ib_node_guid"]
    s = h.state()
    s["pfs"][0]["vfs"][2]["ib_node_guid"] = "02:00:00:00:00:00:00:99"
    h.save(s)
    st = json.loads(h.run("status", "--json").stdout)
    assert st["pfs"][0]["vfs"][2]["layout"] == f"differs: node_guid 02:00:00:00:00:00:00:99 (wanted {want})", st["pfs"][0]["vfs"][2]
    plan = h.run("plan").stdout
    assert "VF 2: unbind" in plan and "VF 2: bind mlx5_core" in plan, plan


def test_apply_says_when_no_layout_selects_what_it_was_given(make_host):
    """A named PF that no layout selects, and a host none of whose PFs a layout selects: apply
    says it applied nothing instead of printing nothing."""
    h = make_host("e810.json")
    h.layout("50-e810.conf", "[Match]\nPCIAddress=0000:3b:00.0\n[PhysicalFunction]\n"
             "VirtualFunctions=2\n")
    before = h.path.read_bytes()
    r = h.run("apply", "ens1f1")
    assert r.returncode == 0 and r.stdout == \
        "0000:3b:00.1 (ens1f1): unconfigured (no layout selects it): nothing to apply\n", r
    assert h.path.read_bytes() == before

    h.layout("50-e810.conf", "[Match]\nPCIAddress=0000:99:00.0\n[PhysicalFunction]\n"
             "VirtualFunctions=2\n")
    r = h.run("apply")
    assert r.returncode == 0 and r.stdout == \
        "No layout selects a PF on this host; nothing applied\n", r
    assert "selects no PF on this host" in r.stderr, r.stderr
    assert h.path.read_bytes() == before
