# SPDX-License-Identifier: LGPL-2.1-or-later
"""After the reboot a firmware LinkType= change waited for, sriovctl status, wait and metrics
without a daemon call the PF pending, the rest of its apply, as the daemon does and as they do of
a firmware VF limit that took effect: not drifted."""

import json

from test_daemon import NO_BUS
from test_trial31_link_type import IB

LAYOUT = (f"[Match]\nPCIAddress={IB}\n[PhysicalFunction]\nVirtualFunctions=4\nLinkType=ethernet\n"
          "MTUBytes=9000\n[VirtualFunction]\nMACAddress=stable\nMTUBytes=9000\n")


def test_the_link_type_that_took_effect_is_pending_not_drifted(make_host):
    h = make_host("cx7-ib.json")
    h.main.write_text("[Disruption]\nPolicy=immediate\n")
    h.layout("50-eth.conf", LAYOUT)
    a = h.run("apply", env=NO_BUS)
    assert a.returncode == 0, a.stdout + a.stderr

    # the reboot: the port comes up Ethernet, without VFs; the run dir's records stay
    def change(s):
        pf = h.pf_of(s, IB)
        pf.update(link_type="ethernet", firmware_link_type="ethernet", name="enp26s0np0",
                  permanent_mac="b8:3f:d2:11:22:33", mtu=1500, num_vfs=0, vfs=[])
    h.edit(change)

    opts = f" --host {h.path} --config-dir {h.confdir} --main-config {h.main}"
    why = ("the link type ethernet took effect after its apply; the rest of that apply is not "
           f"applied yet; sriovctl{opts} apply {IB} applies it")
    r = h.run("status", "--json", env=NO_BUS)
    pf = next(p for p in json.loads(r.stdout)["pfs"] if p["pci"] == IB)
    assert pf["state"] == "pending", pf
    assert pf["reason"] == why, pf
    out = h.run("status", env=NO_BUS).stdout
    assert "drifted" not in out and why in " ".join(out.split()), out

    w = h.run("wait", "--timeout", "0", env=NO_BUS)
    assert "drifted" not in w.stdout + w.stderr, w.stdout + w.stderr
    assert "link type ethernet took effect" in " ".join((w.stdout + w.stderr).split()), \
        w.stdout + w.stderr

    m = h.run("metrics", env=NO_BUS).stdout
    on = [line.split("{", 1)[1] for line in m.splitlines()
          if line.startswith("sriov_persist_pf_state{") and f'pf_pci="{IB}"' in line
          and line.endswith("} 1")]
    assert len(on) == 1 and 'state="pending"' in on[0], m

    # the rest of the apply applies it
    a = h.run("apply", env=NO_BUS)
    assert a.returncode == 0, a.stdout + a.stderr
    assert h.pf(IB)["num_vfs"] == 4 and h.pf(IB)["mtu"] == 9000
    r = h.run("status", "--json", env=NO_BUS)
    assert next(p for p in json.loads(r.stdout)["pfs"] if p["pci"] == IB)["state"] == "applied"
