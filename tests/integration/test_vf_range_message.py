# SPDX-License-Identifier: LGPL-2.1-or-later
"""A [VirtualFunction A-B] section that runs past the VF count names the part that is out,
not only its last VF."""

E810 = "0000:3b:00.0"  # sriov_totalvfs 128


def layout(count, section):
    return (f"[Match]\nPCIAddress={E810}\n[PhysicalFunction]\nVirtualFunctions={count}\n"
            f"[VirtualFunction {section}]\nTrust=yes\n")


def test_a_range_past_the_pfs_limit_names_the_vfs_beyond_it(make_host):
    h = make_host("e810.json")
    path = h.layout("50-big.conf", layout("max", "100-200"))
    r = h.run("check")
    assert r.returncode == 1, r.stdout + r.stderr
    assert f"{path}:5: [VirtualFunction 100-200]: VFs 128-200 are beyond " \
        "VirtualFunctions=max (128)\n" in r.stderr, r.stderr
    r = h.run("plan", E810)
    assert "held: " in r.stdout and "VFs 128-200 are beyond" in r.stdout, r.stdout


def test_a_range_wholly_past_the_count_names_all_of_it(make_host):
    h = make_host("e810.json")
    path = h.layout("50-big.conf", layout(8, "10-12"))
    r = h.run("check")
    assert r.returncode == 1, r.stdout + r.stderr
    assert f"{path}:5: [VirtualFunction 10-12]: VFs 10-12 are beyond VirtualFunctions=8\n" \
        in r.stderr, r.stderr


def test_one_vf_past_the_count_is_one_vf(make_host):
    h = make_host("e810.json")
    path = h.layout("50-big.conf", layout(8, "4-8"))
    r = h.run("check")
    assert f"{path}:5: [VirtualFunction 4-8]: VF 8 is beyond VirtualFunctions=8\n" in r.stderr, \
        r.stderr
