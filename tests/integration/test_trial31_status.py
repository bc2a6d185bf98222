# SPDX-License-Identifier: LGPL-2.1-or-later
"""Trial 31 (fresh eyes), status: a VF someone unbound, whose layout leaves Driver= unset but
needs a network interface, has in its settings the driver its "differs:" compares against,
and a VF's ResourceName= (no host value) does not read as drift (1); the reset hint of VFs left
from a removed layout names them, and the line saying what is left shows as soon as the layout is
gone, also after an apply, as the README says (2); a VF a port becoming InfiniBand gets now says
that its GUIDs wait for the reboot (3)."""

import json
import re
from pathlib import Path

from test_daemon import NO_BUS
from test_trial17_hints import E810, never, pf_lines, removed_with_vfs_left

REPO = Path(__file__).resolve().parents[2]
CX7 = "0000:1a:00.0"
VPI = "0000:41:00.0"
CX7_IB = """[Match]
Vendor=0x15b3
Device=0x1021

[PhysicalFunction]
VirtualFunctions=8
LinkType=infiniband

[VirtualFunction]
IBNodeGUID=stable
IBPortGUID=stable
RDMA=yes
ResourceName=cx7_ib
"""


def flat(text):
    return re.sub(r"\\f[BIRP]", "", text).replace("\\-", "-").replace("\n", " ")


# --- 1: the settings agree with "differs:"; a resource name is no drift -------------------------

def unbound_cx7(make_host):
    h = make_host("cx7-ib.json")
    f = h.layout("65-cx7-infiniband.conf", CX7_IB)
    r = h.run("apply", CX7)
    assert r.returncode == 0, r.stdout + r.stderr
    s = h.state()
    h.pf_of(s, CX7)["vfs"][3].update(driver=None, name=None, mtu=0, rdma=False)
    h.save(s)
    return h, f


def test_an_unbound_vf_wants_the_driver_its_differs_line_names(make_host):
    h, f = unbound_cx7(make_host)
    r = h.run("status", "--json", CX7)
    vf = json.loads(r.stdout)["pfs"][0]["vfs"][3]
    assert vf["layout"] == "differs: no driver bound (wanted mlx5_core)", vf["layout"]
    # it said wanted null: the layout leaves Driver= unset, yet the plan binds mlx5_core
    assert vf["settings"]["Driver"] == {"now": None, "wanted": "mlx5_core",
                                        "source": f"{f}:12"}, vf["settings"]["Driver"]
    # a VF on its driver: Driver= unset leaves it as it is
    assert json.loads(r.stdout)["pfs"][0]["vfs"][2]["settings"]["Driver"] == {
        "now": "mlx5_core", "wanted": None, "source": None}


def test_a_resource_name_is_no_drift(make_host):
    h, f = unbound_cx7(make_host)
    vfs = json.loads(h.run("status", "--json", CX7).stdout)["pfs"][0]["vfs"]
    for vf in vfs:
        # it said {"now": null, "wanted": "cx7_ib"} for every VF, which reads as drift
        assert vf["settings"]["ResourceName"] == {"now": "cx7_ib", "wanted": "cx7_ib",
                                                  "source": f"{f}:13"}, vf
    # the text is as before: the pool, no "(wanted ...)"
    r = h.run("status", CX7)
    assert "        rdma yes, resource_name cx7_ib\n" in r.stdout, r.stdout
    assert "resource_name - (wanted" not in r.stdout, r.stdout


def test_a_vf_not_there_yet_is_in_no_pool(make_host):
    h = make_host("cx7-ib.json")
    h.layout("65-cx7-infiniband.conf", CX7_IB)
    vfs = json.loads(h.run("status", "--json", CX7).stdout)["pfs"][0]["vfs"]
    assert vfs[1]["pci"] and vfs[1]["settings"]["ResourceName"]["now"] == "cx7_ib"
    assert vfs[5]["pci"] is None and vfs[5]["settings"]["ResourceName"]["now"] is None, vfs[5]


def test_driver_default_is_wanted_as_the_driver_it_binds(make_host):
    """Driver=default of the repository's E810 example, applied: the VFs are on iavf, and the
    settings want iavf (the kernel's VF driver it binds) from the layout's line, as a stable MAC
    is shown derived."""
    h = make_host("e810.json")
    text = (REPO / "conf.d" / "50-e810-rdma.conf").read_text()
    f = h.layout("50-e810-rdma.conf", text)
    line = text.splitlines().index("Driver=default") + 1
    r = h.run("apply")
    assert r.returncode == 0, r.stdout + r.stderr
    r = h.run("status", "--json", E810)
    pf = json.loads(r.stdout)["pfs"][0]
    assert pf["state"] == "applied", pf["state"]
    for vf in pf["vfs"][8:16]:
        assert vf["layout"] == "ok", vf["layout"]
        # it said {"now": "iavf", "wanted": "default"}: a difference where there is none
        assert vf["settings"]["Driver"] == {"now": "iavf", "wanted": "iavf",
                                            "source": f"{f}:{line}"}, vf["settings"]["Driver"]
        assert vf["settings"]["MACAddress"]["wanted"] == vf["settings"]["MACAddress"]["now"]


def test_the_manual_says_both():
    m = flat((REPO / "man" / "org.sriovpersist1.5").read_text())
    assert "ResourceName is no value of the host but the device plugin pool the VF is in" in m
    assert "now is wanted for a VF the host has, null for one it does not have yet" in m
    assert ("the plan binds the kernel's VF driver to it, and wanted is that driver, with the "
            "source of the key that needs it") in m
    assert "and Driver=default as the kernel's VF driver it binds" in m
    assert ("Driver=default as the kernel's VF driver it binds"
            in flat((REPO / "man" / "sriovctl.8").read_text()))


# --- 2: the reset hint names what it removes, under the line that says what is left ------------

def test_the_reset_hint_names_the_vfs_it_removes_from_the_removal_on(make_host):
    h, _ = removed_with_vfs_left(make_host)
    cmd = f"sriovctl --host {h.path} --config-dir {h.confdir} --main-config {h.main} reset {E810}"
    want = ["    2 VFs left from a removed layout",
            f"    no layout selects it; \"{cmd}\" removes the VFs left from its removed layout, "
            f"but is deferred now: {never(h)}"]
    for apply_args in ((), ("apply",), ("apply", E810)):
        if apply_args:
            r = h.run(*apply_args, env=NO_BUS)
            assert r.returncode == 0, r
        r = h.run("status", env=NO_BUS)
        _, rest = pf_lines(r.stdout, E810)
        # it said "removes them", them being nothing on a line of its own
        assert rest == want, (apply_args, r.stdout)
        r = h.run("status", E810, env=NO_BUS)
        assert pf_lines(r.stdout, E810)[1] == want, (apply_args, r.stdout)


# --- 3: a VF created before the link type change says its GUIDs wait for the reboot -------------

VPI_LAYOUT = f"""[Match]
PCIAddress={VPI}

[PhysicalFunction]
VirtualFunctions=4
LinkType=infiniband

[VirtualFunction]
IBNodeGUID=stable
IBPortGUID=stable
"""


def test_a_vf_to_be_created_on_a_port_becoming_infiniband_says_its_guids_wait(make_host):
    h = make_host("cx6-vpi.json")
    h.layout("70-vpi.conf", VPI_LAYOUT)
    r = h.run("status", VPI)
    rows = [line for line in r.stdout.splitlines() if re.match(r"    [0-3] ", line)]
    assert len(rows) == 4, r.stdout
    for row in rows:
        # it said "to be created" alone, and the GUIDs below it as if set with it
        assert re.fullmatch(r"    \d   to be created; after a reboot: node_guid [0-9a-f:]{23}, "
                            r"port_guid [0-9a-f:]{23} \(LinkType=infiniband takes effect after "
                            r"a reboot\)", row), row
    vf = json.loads(h.run("status", "--json", VPI).stdout)["pfs"][0]["vfs"][0]
    assert vf["layout"].startswith("to be created; after a reboot: node_guid "), vf
    # once the VFs exist, their rows say the same
    assert h.run("apply", VPI).returncode == 0
    r = h.run("status", VPI)
    assert re.search(r"^    0   0000:41:00\.2 .* after a reboot: node_guid [0-9a-f:]{23}, port_guid "
                     r"[0-9a-f:]{23} \(LinkType=infiniband takes effect after a reboot\)$",
                     r.stdout, re.M), r.stdout
    # a port already InfiniBand creates them with their GUIDs: "to be created" alone
    h2 = make_host("cx7-ib.json")
    h2.layout("65.conf", CX7_IB)
    vfs = json.loads(h2.run("status", "--json", CX7).stdout)["pfs"][0]["vfs"]
    assert vfs[5]["layout"] == "to be created", vfs[5]
