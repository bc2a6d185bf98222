# SPDX-License-Identifier: LGPL-2.1-or-later
"""[Reboot] FirmwareReset=yes: a pending reboot for a ConnectX firmware VF limit met by a firmware
reset of the card (the simulated host's firmware_reset action) instead of a reboot, under the
same Lease, cordon and drain; the fallback to the reboot when the card offers no reset or the
reset fails; no second reset and no reboot when the firmware kept its old limit; nothing with
Policy=never; the reboot, without a reset, when kernel arguments wait for it too. The world
(bus, stand-in logind, API test server) is test_daemon_k8s.py's."""

import time

from conftest import PF_IFACE, pf_path
from test_daemon_k8s import (CX6_A, CX6_NODE, SLOT_PREFIX, cx6_node, cx6_reboot_host,  # noqa: F401
                             env, k8s_notify_bin, lease_holder, node_flags, operation)

CX6_B = "0000:ca:00.1"
RESET_LOG = "firmware reset of its card, instead of a reboot"


def with_firmware_reset(h, b_vfs=2):
    """FirmwareReset=yes in [Reboot], and a layout for the card's other port (VFs it has before
    the reset and must have again after it)."""
    h.main.write_text(h.main.read_text().replace("[Reboot]\n", "[Reboot]\nFirmwareReset=yes\n"))
    h.layout("60-cx6-b.conf", f"[Match]\nPCIAddress={CX6_B}\n[PhysicalFunction]\n"
                              f"VirtualFunctions={b_vfs}\n")


def pause(c, seconds=2):
    deadline = time.monotonic() + seconds
    c.wait(lambda: time.monotonic() > deadline, timeout=seconds + 10, what=f"{seconds} s")


def test_reset_instead_of_coordinated_reboot(env):
    srv, c = env.srv, env.c
    h, op_file = cx6_reboot_host(env, "coordinated", ResourcePrefix="nvidia.com")
    with_firmware_reset(h)
    cx6_node(srv)
    env.start(h)
    c.wait(lambda: h.pf(CX6_A)["num_vfs"] == 16, timeout=90, what="16 VFs after the reset")
    env.settle()
    c.wait(lambda: not op_file.exists() and lease_holder(srv) is None
           and node_flags(srv, CX6_NODE) == (False, None), timeout=60,
           what="uncordon, release and operation.json removed after the reset")
    log = env.log()
    assert env.logind.calls() == [], "rebooted although the reset did it"
    assert log.count(RESET_LOG) == 1, log
    a, b = h.pf(CX6_A), h.pf(CX6_B)
    # the limit is one setting of the card: the reset brings it to both ports
    assert a["total_vfs"] == 16 and b["total_vfs"] == 16, (a, b)
    assert b["num_vfs"] == 2, b  # removed by the reset, made again
    assert c.get("PendingReboot") is False and c.get("PendingRebootReasons") == []
    assert c.get("State", pf_path(CX6_A), PF_IFACE) == "applied"
    assert c.get("State", pf_path(CX6_B), PF_IFACE) == "applied"
    # the same drain as for the reboot: the pod using the VFs evicted, one slot
    assert srv.get("pod", "default", "vm-launcher-0") is None
    assert srv.leases_held_max(SLOT_PREFIX) == 1
    assert operation(c) is None
    assert c.get("State") == "idle", log


def test_reset_without_kubernetes_says_what_happens(env):
    """[Reboot] Policy=immediate without Kubernetes: the journal says a reboot without
    Kubernetes (no drain) starts and that a firmware reset stood in for it, never a Kubernetes
    reboot."""
    c = env.c
    h, op_file = cx6_reboot_host(env, "immediate", Enabled="no")
    with_firmware_reset(h)
    env.start(h)
    c.wait(lambda: h.pf(CX6_A)["num_vfs"] == 16, timeout=90, what="16 VFs after the reset")
    c.wait(lambda: not op_file.exists(), timeout=60, what="operation.json removed")
    env.settle()
    log = env.log()
    assert env.logind.calls() == [], "rebooted although the reset did it"
    assert "Kubernetes" not in log.replace("without Kubernetes", ""), log
    assert ("Reboot for the pending reboot reasons: starting, without Kubernetes (not enabled: "
            "no slot, cordon or drain)") in log, log
    assert log.count(RESET_LOG) == 1, log
    assert "Reboot for the pending reboot reasons done: a firmware reset stood in for it" in log, log


def fallback(env, fault, why):
    c = env.c
    h, op_file = cx6_reboot_host(env, "immediate", Enabled="no")
    with_firmware_reset(h)
    h.add_fault(op="firmware_reset", errno=fault)
    env.start(h)
    c.wait(lambda: env.logind.calls(), timeout=30, what="Reboot() on logind")
    log = env.log()
    assert [x["method"] for x in env.logind.calls()] == ["Reboot"]
    assert f"Firmware reset of {CX6_A} failed, rebooting instead: {why}" in log, log
    assert h.pf(CX6_A)["total_vfs"] == 8
    assert h.pf(CX6_B)["num_vfs"] == 2, "the failed reset took VFs"


def test_fallback_to_reboot_when_the_card_has_no_reset(env):
    fallback(env, "EOPNOTSUPP", "Operation not supported: injected EOPNOTSUPP on firmware_reset")


def test_fallback_to_reboot_when_the_reset_fails(env):
    fallback(env, "EIO", "Input/output error: injected EIO on firmware_reset")


def test_reset_that_did_not_take_is_not_repeated(env):
    """The tool says it reset the card, the firmware still runs with a limit of 8: the PF fails
    saying so, and neither a second reset nor a reboot follows."""
    c = env.c
    h, op_file = cx6_reboot_host(env, "immediate", Enabled="no")
    with_firmware_reset(h)
    h.add_fault(op="firmware_reset", no_effect=True)
    env.start(h)
    c.wait(lambda: c.get("State", pf_path(CX6_A), PF_IFACE) == "failed", timeout=30,
           what="the PF failed after the reset")
    env.settle()
    pause(c)
    log = env.log()
    assert log.count(RESET_LOG) == 1, log
    assert env.logind.calls() == [], "rebooted for a change a firmware reset did not make"
    err = c.get("LastError", pf_path(CX6_A), PF_IFACE)
    assert err == ("a firmware reset of the card ran, but the firmware still has a VF limit of "
                   "8 (NUM_OF_VFS 16 set for the next boot); not reset or rebooted for again"), err
    assert c.get("PendingReboot") is True
    assert h.pf(CX6_B)["num_vfs"] == 2, "the other port was not applied again"
    r = h.run("status")
    assert "not reset or rebooted for again" in r.stdout, r.stdout


def test_policy_never_makes_no_reset(env):
    c = env.c
    h, _ = cx6_reboot_host(env, "never", Enabled="no")
    with_firmware_reset(h)
    env.start(h)
    c.wait(lambda: h.pf(CX6_B)["num_vfs"] == 2, timeout=30, what="the other port applied")
    env.settle()
    pause(c)
    assert RESET_LOG not in env.log()
    assert h.pf(CX6_A)["total_vfs"] == 8
    assert c.get("PendingReboot") is True
    assert env.logind.calls() == []


def test_kernel_arguments_waiting_mean_the_reboot(env):
    """Kernel arguments added for the next boot (IOMMU off until then): only a reboot meets
    them, and it brings the firmware setting too; no reset first."""
    c = env.c
    h, _ = cx6_reboot_host(env, "immediate", Enabled="no")
    with_firmware_reset(h)

    def added(s):
        s["kernel_arguments_added"], s["iommu"], s["boot_loader"] = \
            ["intel_iommu=on", "iommu=pt"], False, "grub"
    h.edit(added)
    env.start(h)
    c.wait(lambda: env.logind.calls(), timeout=30, what="Reboot() on logind")
    assert RESET_LOG not in env.log()
    assert h.pf(CX6_A)["total_vfs"] == 8
