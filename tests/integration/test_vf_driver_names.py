# SPDX-License-Identifier: LGPL-2.1-or-later
"""Driver= as a user writes it: the module's spelling binds the driver the kernel names, and a
driver that cannot drive the PF's VFs is refused before anything is touched."""

import json


def _layout(h, pci, vfs, text):
    h.layout("50.conf", f"[Match]\nPCIAddress={pci}\n[PhysicalFunction]\nVirtualFunctions={vfs}\n"
                        + text)


def test_module_spelling_binds_the_kernels_driver_name(make_host):
    """Driver=vfio_pci (modprobe's spelling) binds vfio-pci, the name driver_override takes;
    a VF on vfio-pci then needs nothing, in plan as in status."""
    h = make_host("e810.json")
    pci = h.pfs_by_driver("ice")[0]["pci"]
    _layout(h, pci, 2, "[VirtualFunction]\nDriver=vfio_pci\n")
    p = h.run("plan", pci)
    assert p.returncode == 10, p.stdout + p.stderr
    assert "VF 0: bind vfio-pci" in p.stdout and "vfio_pci" not in p.stdout, p.stdout
    a = h.run("apply", pci)
    assert a.returncode == 0, a.stdout + a.stderr
    assert [v["driver"] for v in h.pf(pci)["vfs"]] == ["vfio-pci", "vfio-pci"]
    p = h.run("plan", pci)
    assert p.returncode == 0 and "nothing to do" in p.stdout, p.stdout
    s = json.loads(h.run("status", "--json").stdout)
    pf = next(x for x in s["pfs"] if x["pci"] == pci)
    assert [v["layout"] for v in pf["vfs"]] == ["ok", "ok"]


def test_driver_spelled_either_way_on_the_host_is_not_rebound(make_host):
    """A VF the host reports on vfio-pci matches Driver=vfio_pci and the reverse: plan and
    status agree that nothing is to do."""
    h = make_host("e810.json")
    pci = h.pfs_by_driver("ice")[0]["pci"]
    _layout(h, pci, 2, "[VirtualFunction]\nDriver=vfio-pci\n")
    assert h.run("apply", pci).returncode == 0
    s = h.state()
    for v in h.pf_of(s, pci)["vfs"]:
        v["driver"] = "vfio_pci"
    h.save(s)
    p = h.run("plan", pci)
    assert p.returncode == 0 and "nothing to do" in p.stdout, p.stdout


def test_another_vendors_vf_driver_holds_the_pf(make_host):
    """mlx5_core never binds an E810 VF: check --host, plan and apply hold the PF and touch
    nothing; the generic drivers stay allowed."""
    h = make_host("e810.json")
    pci = h.pfs_by_driver("ice")[0]["pci"]
    _layout(h, pci, 2, "[VirtualFunction 1]\nDriver=mlx5_core\n")
    why = ("50.conf:6: Driver=mlx5_core: does not drive the VFs of ice (its VFs take iavf, "
           "or a generic driver such as vfio-pci)")
    c = h.run("check", "--host", str(h.path))
    assert c.returncode == 1 and "1 error(s)" in c.stdout and why in c.stderr, c.stdout + c.stderr
    p = h.run("plan", pci)
    assert p.returncode == 1 and "held: " in p.stdout and why in p.stdout, p.stdout
    before = h.path.read_bytes()
    a = h.run("apply", pci)
    assert a.returncode == 1 and why in a.stdout, a.stdout
    assert h.path.read_bytes() == before
    for ok in ("iavf", "vfio-pci", "pci-stub", "uio_pci_generic"):
        _layout(h, pci, 2, f"[VirtualFunction 1]\nDriver={ok}\n")
        c = h.run("check", "--host", str(h.path))
        assert c.returncode == 0 and "0 error(s)" in c.stdout, (ok, c.stdout + c.stderr)


def test_a_named_driver_is_loaded_before_any_vf_is_created(make_host):
    """Driver=pci-stub (not loaded) is loaded first, as vfio-pci is; a driver with no module
    (the simulated host knows which exist) holds the PF before a VF exists."""
    h = make_host("e810.json")
    pci = h.pfs_by_driver("ice")[0]["pci"]
    _layout(h, pci, 2, "[VirtualFunction 1]\nDriver=pci-stub\n")
    p = h.run("plan", pci)
    assert p.returncode == 10 and "live       load module pci-stub" in p.stdout, p.stdout
    assert p.stdout.index("load module pci-stub") < p.stdout.index("set 2 VFs"), p.stdout
    a = h.run("apply", pci)
    assert a.returncode == 0, a.stdout + a.stderr
    assert [v["driver"] for v in h.pf(pci)["vfs"]] == ["iavf", "pci-stub"]
    assert h.run("plan", pci).returncode == 0

    h = make_host("e810.json")
    _layout(h, pci, 2, "[VirtualFunction 1]\nDriver=igb_uio\n")
    a = h.run("apply", pci)
    assert a.returncode == 1, a.stdout + a.stderr
    assert "Driver=igb_uio: no module of that name on this host" in a.stdout, a.stdout
    assert h.pf(pci)["num_vfs"] == 0


def test_messages_quote_driver_as_the_file_writes_it(make_host):
    """Driver=mlx5-core binds mlx5_core, but a message quotes the value the file has, where the
    user finds it; so does the note of another file's Driver= (vfio_pci, vfio-pci's module)."""
    h = make_host("e810.json")
    a, b = (p["pci"] for p in h.pfs_by_driver("ice")[:2])
    _layout(h, a, 2, "[VirtualFunction 1]\nDriver=mlx5-core\n")
    h.layout("60.conf", f"[Match]\nPCIAddress={b}\n[PhysicalFunction]\nVirtualFunctions=2\n"
                        "[VirtualFunction 0]\nDriver=vfio_pci\n")
    h.layout("70.conf", f"[Match]\nPCIAddress={b}\n[VirtualFunction 0]\nMTUBytes=9000\n")
    c = h.run("check", "--host", str(h.path))
    assert c.returncode == 1, c.stdout + c.stderr
    assert c.stderr.splitlines() == [
        f"{h.confdir}/50.conf:6: Driver=mlx5-core: does not drive the VFs of ice (its VFs take "
        "iavf, or a generic driver such as vfio-pci)",
        f"{h.confdir}/70.conf:4: MTUBytes=9000: a VF bound to vfio-pci has no network interface "
        f"(Driver=vfio_pci at {h.confdir}/60.conf:6)"], c.stderr
