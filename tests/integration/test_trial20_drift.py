# SPDX-License-Identifier: LGPL-2.1-or-later
"""Trial 20: drift on a deferred PF whose deferred apply changes the VF count. The repository's
conf.d/50-e810-rdma.conf applied (16 VFs, 0-7 vfio-pci, 8-15 iavf with RDMA), then Policy=never
and the layout edited to 12 VFs: both PFs deferred, and the count change would make every VF
again. A change by hand to any VF after that is drift, as on an applied PF: its driver and
spoofchk too, not only what the deferred apply's VF lines happen to name."""

from pathlib import Path

from test_daemon import (E810_A, E810_B, PF_IFACE, apply_all, drift, main_config, pf_path,
                         replace_layout, sync)

ROOT = Path(__file__).resolve().parents[2]
EBUSY = 16


def deferred_rdma(make_host, start_daemon, c):
    h = make_host("e810.json")
    main_config(h, policy="immediate")
    text = (ROOT / "conf.d" / "50-e810-rdma.conf").read_text()
    h.layout("50-e810-rdma.conf", text)
    start_daemon(h)
    apply_all(c, [E810_A, E810_B])
    assert h.pf(E810_A)["num_vfs"] == 16
    main_config(h, policy="never")
    c.call("Reload")
    sync(c)
    m = c.mark()
    edited = text.replace("VirtualFunctions=16", "VirtualFunctions=12") \
        .replace("[VirtualFunction 8-15]", "[VirtualFunction 8-11]")
    replace_layout(h, "50-e810-rdma.conf", edited)
    assert c.wait_applied(E810_A, m) == -EBUSY
    sync(c)
    for pci in (E810_A, E810_B):
        c.wait(lambda pci=pci: c.get("State", pf_path(pci), PF_IFACE) == "deferred",
               what=f"{pci} deferred")
    assert c.get("Drifted") is False, "the deferral itself is no drift"
    return h


def changed(c, h, m, vf, **attrs):
    drift(h, E810_A, vf=vf, **attrs)
    return c.wait_signal("DriftDetected", m, pci=E810_A).args[1]


def test_every_change_on_a_deferred_pf_is_drift(make_host, start_daemon, bus_client):
    c = bus_client
    h = deferred_rdma(make_host, start_daemon, c)
    before = h.pf(E810_A)["vfs"]
    assert before[4]["driver"] == "vfio-pci" and before[5]["spoofchk"] is True
    for vf, attrs, word in ((3, {"mac": "02:00:00:00:00:33"}, "02:00:00:00:00:33"),
                            (4, {"driver": "iavf"}, "iavf"),
                            (5, {"spoofchk": False}, "spoofchk off"),
                            (10, {"trust": False}, "trust off"),
                            (1, {"trust": True}, "trust on")):
        m = c.mark()
        what = changed(c, h, m, vf, **attrs)
        line = [w for w in what if w.startswith(f"VF {vf}:")]
        assert line and word in line[0], (vf, what)
        sync(c)
        assert c.get("Drifted") is True
        assert c.get("State", pf_path(E810_A), PF_IFACE) == "deferred"
    # fail safe: nothing was applied, the count stays
    assert h.pf(E810_A)["num_vfs"] == 16
    assert h.pf(E810_A)["vfs"][4]["driver"] == "iavf"


LAYOUT13 = "[Match]\nPCIAddress=0000:3b:00.0\n[PhysicalFunction]\nVirtualFunctions=4\n" \
    "[VirtualFunction]\nVLANId={vlan}\n"


def status_of(h):
    import json
    r = h.run("status", "--json")
    return {p["pci"]: p for p in json.loads(r.stdout)["pfs"]}[E810_A]


def test_status_says_the_layout_changed_since_its_apply(make_host):
    """Item 13: drifted because the layout was edited (VLANId 3 -> 4, not applied yet): the reason
    says the layout changed since the last apply; a change on the host alone does not say so."""
    h = make_host("e810.json")
    h.layout("50-a.conf", LAYOUT13.format(vlan=3))
    r = h.run("apply")
    assert r.returncode == 0, r.stdout + r.stderr
    drift(h, E810_A, vf=1, vlan=9)
    pf = status_of(h)
    assert pf["state"] == "drifted"
    assert "layout changed" not in (pf.get("reason") or ""), pf
    drift(h, E810_A, vf=1, vlan=3)
    replace_layout(h, "50-a.conf", LAYOUT13.format(vlan=4))
    pf = status_of(h)
    assert pf["state"] == "drifted", pf
    assert pf["reason"].startswith("the layout changed since its last apply (") and \
        "50-a.conf modified after it" in pf["reason"] and \
        pf["reason"].endswith(f"sriovctl --host {h.path} --config-dir {h.confdir} --main-config "
                              f"{h.main} apply {E810_A} applies it"), pf
    text = h.run("status").stdout
    assert "the layout changed since its last apply" in text, text
