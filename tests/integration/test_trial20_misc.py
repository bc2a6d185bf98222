# SPDX-License-Identifier: LGPL-2.1-or-later
"""Trial 20 (fresh eyes), miscellaneous: with --root the files of other tools are named under
the root, as layouts are; a drain given up says what starts it again."""

import json
import subprocess

from conftest import PF_IFACE, pf_path
from test_daemon_k8s import (E810_A, E810_LAYOUT, e810_node, env,  # noqa: F401
                             k8s_notify_bin, operation, replace_layout)

NM_DIR = "etc/NetworkManager/system-connections"
LINK_DIR = "etc/systemd/network"
CONF_DIR = "etc/sriov-persist/conf.d"


def test_other_tools_files_are_named_under_the_root(make_host, tmp_path):
    """sriovctl --root R names R/etc/NetworkManager/... as it names R/etc/sriov-persist/...:
    the path printed is the file to change, not the running host's."""
    h = make_host("e810.json")
    root = tmp_path / "node"
    (root / CONF_DIR).mkdir(parents=True)
    (root / CONF_DIR / "50-e810.conf").write_text(
        "[Match]\nDriver=ice\n[PhysicalFunction]\nVirtualFunctions=4\n")
    (root / NM_DIR).mkdir(parents=True)
    keyfile = root / NM_DIR / "sriov.nmconnection"
    keyfile.write_text("[connection]\nid=sriov\ntype=ethernet\ninterface-name=ens1f0\n\n"
                       "[sriov]\ntotal-vfs=4\n")
    keyfile.chmod(0o600)
    (root / LINK_DIR).mkdir(parents=True)
    (root / LINK_DIR / "10-sriov.link").write_text(
        "[Match]\nPermanentMACAddress=40:a6:b7:84:ef:ed\n\n[Link]\nSR-IOVVirtualFunctions=8\n")
    for cmd in ("check", "status", "plan"):
        r = subprocess.run([h.binary, "--no-color", "--root", str(root), "--host", str(h.path),
                            cmd], capture_output=True, text=True, timeout=60)
        out = r.stdout + r.stderr
        assert f"{root}/{NM_DIR}/sriov.nmconnection:7: NetworkManager also configures ens1f0" \
            in out, (cmd, out)
        assert f"{root}/{LINK_DIR}/10-sriov.link:5: systemd .link also configures ens1f1" \
            in out, (cmd, out)
        assert f" /{NM_DIR}" not in out and f" /{LINK_DIR}" not in out, (cmd, out)
        assert not out.startswith(f"/{NM_DIR}") and f"\n/{NM_DIR}" not in out, (cmd, out)
        assert f"\n/{LINK_DIR}" not in out, (cmd, out)
    # the JSON status too
    r = subprocess.run([h.binary, "--root", str(root), "--host", str(h.path), "status",
                        "--json"], capture_output=True, text=True, timeout=60)
    assert f"{root}/{NM_DIR}/sriov.nmconnection:7" in r.stdout, r.stdout


def test_a_drain_given_up_says_what_starts_it_again(env):
    """A drain that a PodDisruptionBudget refuses for good (k8s-notify "retryable":false)
    is not started again on its own (sriov-persistd(8)): the PF's reason says so, and what
    starts it again, in LastError, the status record and sriovctl status."""
    srv, c = env.srv, env.c
    h, _ = e810_node(env, DrainTimeoutSec=1, EvictionFallback="fail")
    srv.add_pdb("default", "trainer", {"app": "trainer"}, min_available=1)
    env.start(h)
    env.settle()
    replace_layout(h, "50-e810.conf", E810_LAYOUT.format(pci=E810_A, n=8, vlan=10))
    c.wait(lambda: c.get("State", pf_path(E810_A), PF_IFACE) == "deferred"
           and operation(c) is None, timeout=60, what="the drain given up")
    tail = ("; not started again on its own: sriovctl apply starts it again once the cause is "
            "fixed")
    last_error = c.get("LastError", pf_path(E810_A), PF_IFACE)
    assert last_error.startswith("drain failed: ") and last_error.endswith(tail), last_error
    rec = json.loads((h.dir / "host.json.run" / "pf" / f"{E810_A}.json").read_text())
    assert rec["error"] == last_error, rec
    r = h.run("status", E810_A, env={"DBUS_SYSTEM_BUS_ADDRESS": env.bus.address})
    assert tail in r.stdout, r.stdout + r.stderr


def test_a_rate_error_of_several_pfs_names_them(make_host):
    """The same rate error on two PFs (the same link speed) is one line that names both, as
    sriovctl(8) says of an error that holds several PFs in the same words."""
    h = make_host("bnxt.json")
    f = h.layout("50-bnxt.conf", "[Match]\nDriver=bnxt_en\n[PhysicalFunction]\n"
                 "VirtualFunctions=4\n[VirtualFunction]\nMaxTxRateMbps=30000\n")
    r = h.run("check")
    assert r.returncode == 1, r.stdout + r.stderr
    assert r.stderr == (f"{f}:6: MaxTxRateMbps=30000: the bnxt_en driver refuses a VF rate above "
                        "the link speed of the PF, 25000 Mb/s (on 0000:31:00.0 (eno12399np0), "
                        "0000:31:00.1 (eno12409np1))\n"), r.stderr
    r = h.run("plan")
    assert ("held: " + f"{f}:6: MaxTxRateMbps=30000: the bnxt_en driver refuses a VF rate above "
            "the link speed of 0000:31:00.1 (eno12409np1), 25000 Mb/s") in r.stdout, r.stdout


def test_help_says_which_verbs_run_k8s_notify(sriovctl_bin):
    """--k8s-notify: check, apply and reset run it (sriovctl(8)), and --help says the same."""
    r = subprocess.run([sriovctl_bin, "--help"], capture_output=True, text=True, timeout=60)
    line = next(ln for ln in r.stdout.splitlines() if "--k8s-notify" in ln)
    assert "check, apply, reset: the Kubernetes client" in line, line


def test_import_errors_in_line_order_and_at_the_key(sriovctl_bin, tmp_path):
    """sriovctl import says a file's problems top to bottom, as check does, and an error about
    a field cites the line of its key (bridge:, not the ovs: under it)."""
    from conftest import ROOT
    src = ROOT / "tests" / "fixtures" / "operator" / "unsupported.yaml"
    r = subprocess.run([sriovctl_bin, "--no-color", "import", "--output-dir", str(tmp_path),
                        str(src)], capture_output=True, text=True, timeout=60)
    assert r.returncode == 1, r.stdout + r.stderr
    lines = [ln for ln in r.stderr.splitlines() if ln.startswith(f"{src}:")]
    numbers = [int(ln[len(str(src)) + 1:].split(":", 1)[0]) for ln in lines]
    assert numbers == sorted(numbers), lines
    assert f"{src}:31: policy bridged: bridge: sriov-persist configures no Open vSwitch " \
        "bridge" in r.stderr, r.stderr
    text = src.read_text().splitlines()
    assert text[30].strip() == "bridge:", text[30]


def test_an_unset_guid_reads_alike_in_the_row_and_its_layout_column(make_host):
    """An InfiniBand VF whose node GUID was never set: its NODE GUID column says "-" (never
    set), and its LAYOUT column says the host's value the same way."""
    h = make_host("cx7-ib.json")
    h.layout("50-ib.conf", "[Match]\nPCIAddress=0000:1a:00.0\n[PhysicalFunction]\n"
             "VirtualFunctions=2\nLinkType=infiniband\n[VirtualFunction]\nIBNodeGUID=stable\n")
    r = h.run("status", "0000:1a:00.0")
    assert "differs: node_guid - (wanted " in r.stdout, r.stdout
    assert "node_guid 00:00:00:00:00:00:00:00" not in r.stdout, r.stdout
