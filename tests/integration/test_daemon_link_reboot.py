# SPDX-License-Identifier: LGPL-2.1-or-later
"""The daemon started on a host rebooted into the link type an apply set in firmware: the reboot
its apply waited for took effect, which is the rest of that apply, not drift."""

import time

from test_trial31_link_type import IB

LAYOUT = (f"[Match]\nPCIAddress={IB}\n[PhysicalFunction]\nVirtualFunctions=2\nMTUBytes=4000\n"
          "LinkType=ethernet\n")


def test_a_link_type_that_took_effect_at_start_is_no_drift(make_host, start_daemon, bus_client):
    c = bus_client
    h = make_host("cx7-ib.json")
    h.main.write_text("[Disruption]\nPolicy=immediate\n[Reboot]\nPolicy=never\n")
    h.layout("50-eth.conf", LAYOUT)
    a = h.run("apply")
    assert a.returncode == 0, a.stdout + a.stderr
    # the reboot: the port comes up Ethernet, without VFs; the records of before stay (the
    # daemon started without the apply units finds them)
    def change(s):
        s["boot_id"] = "2" * 32
        pf = h.pf_of(s, IB)
        pf.update(link_type="ethernet", permanent_mac="b8:ce:f6:1d:52:40", name="ens26f0np0",
                  mtu=1500, num_vfs=0, vfs=[])
    h.edit(change)
    d = start_daemon(h)
    c.wait(lambda: "applied after" in d.log_text(), what="the apply")
    time.sleep(0.3)
    log = d.log_text()
    assert h.pf(IB)["num_vfs"] == 2 and h.pf(IB)["mtu"] == 4000, log
    assert "drifted from its layout" not in log, log
    assert (f"{IB} (ens26f0np0): the link type ethernet it waited for took effect; its apply "
            "goes on") in log, log
