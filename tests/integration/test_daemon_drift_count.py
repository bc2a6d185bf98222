# SPDX-License-Identifier: LGPL-2.1-or-later
"""sriov-persistd's drift log says what drifted. VFs removed behind the daemon's back change the
count, which makes every VF anew: the log names the count (wanted, present) and the VFs it makes
again, not each VF's settings that the host already has (the plan sets them again after the
count change); a VF whose values differ as well is still named."""

import re

from test_daemon import E810_A, apply_all, configured_host, drift


def drift_lines(d, skip=0):
    """The drift lines of d's journal, less the first skip."""
    return [line for line in d.log_text().splitlines() if "drifted from its layout" in line][skip:]


def remove_vfs(h, pci, keep):
    def change(s):
        pf = h.pf_of(s, pci)
        pf["num_vfs"] = keep
        pf["vfs"] = pf["vfs"][:keep]
    return h.edit(change)


def test_count_drift_names_the_count_not_the_vfs_it_makes_again(make_host, start_daemon,
                                                                 bus_client):
    c = bus_client
    h = configured_host(make_host, "e810.json", {E810_A: (8, 42)}, mode="report")
    d = start_daemon(h)
    apply_all(c, [E810_A])
    before = len(drift_lines(d))
    m = c.mark()
    remove_vfs(h, E810_A, 4)
    c.wait_signal("DriftDetected", m, pci=E810_A)
    lines = drift_lines(d, before)
    print("\n" + "\n".join(lines))
    assert len(lines) == 1, lines
    what = lines[0].split("drifted from its layout: ", 1)[1]
    assert what == "8 VFs wanted, 4 present (a repair makes VFs 0-3 again with it)", lines
    assert not re.search(r"VF \d: ", what), lines

    # VF 1's VLAN changed as well: that VF is named, with what it has now
    m = c.mark()
    drift(h, E810_A, vf=1, vlan=99)
    c.wait_signal("DriftDetected", m, pci=E810_A)
    lines = drift_lines(d)
    print(lines[-1])
    what = lines[-1].split("drifted from its layout: ", 1)[1]
    assert what.startswith("8 VFs wanted, 4 present (a repair makes VFs 0-3 again with "
                           "it); VF 1: "), what
    assert "vlan 42" in what and "(now " in what and "vlan 99" in what, what
    assert len(re.findall(r"VF \d: ", what)) == 1, what
