# SPDX-License-Identifier: LGPL-2.1-or-later
"""What a newcomer who writes a key as another tool spells it is told (issue 32, a fresh-eyes trial
with only the README and the manuals): the key sriov-persist has for it, or that it has none."""

import subprocess

import pytest

E810 = "0000:3b:00.0"


def check(h, text):
    path = h.layout("50.conf", text)
    r = h.run("check")
    assert r.returncode == 1, r.stdout + r.stderr
    return path, r.stdout + r.stderr


@pytest.mark.parametrize("key,value,meant", [
    ("PCIAddress", f"{E810},0000:3b:00.1", f"{E810} 0000:3b:00.1"),
    ("Vendor", "0x8086,0x15b3", "0x8086 0x15b3"),
    ("Device", "0x159b, 0x1593", "0x159b 0x1593"),
    ("Driver", "ice,i40e", "ice i40e"),
    ("Host", "worker-7,worker-8", "worker-7 worker-8"),
])
def test_a_comma_list_in_match_is_told_that_globs_are_separated_by_spaces(make_host, key, value,
                                                                           meant):
    h = make_host("e810.json")
    path, out = check(h, f"[Match]\n{key}={value}\n[PhysicalFunction]\nVirtualFunctions=2\n")
    assert f"{path}:2: {key}={value}: must be " in out, out
    assert (f"; globs are separated by spaces, not commas: write '{key}={meant}'\n") in out, out


@pytest.mark.parametrize("section,key,meant", [
    ("Match", "Hostname", "Host"),
    ("Match", "InterfaceName", "Name"),
    ("Match", "DriverName", "Driver"),
    ("VirtualFunction 0", "vlan-qos", "QualityOfService"),
    ("VirtualFunction 0", "DriverOverride", "Driver"),
])
def test_a_key_named_as_another_tool_names_it_gets_a_suggestion(make_host, section, key, meant):
    h = make_host("e810.json")
    path, out = check(h, f"[Match]\nPCIAddress={E810}\n[PhysicalFunction]\nVirtualFunctions=2\n"
                         f"[{section}]\n{key}=x\n")
    assert f"{path}:6: unknown key '{key}' in [{section}]; did you mean '{meant}'?\n" in out, out


@pytest.mark.parametrize("key,says", [
    ("Path", "Path= is a [Match] key of systemd.link(5) files: sriov-persist's equivalent is "
             "PCIAddress= (the PCI address alone, 0000:3b:00.0 for pci-0000:3b:00.0)"),
    ("PermanentMACAddress", "PermanentMACAddress= is a [Match] key of systemd.link(5) files: "
                            "sriov-persist's [Match] has no equivalent"),
    ("MACAddress", "MACAddress= is a [Match] key of systemd.link(5) files: sriov-persist's "
                   "[Match] has no equivalent"),
])
def test_a_systemd_link_match_key_is_named_as_such(make_host, key, says):
    h = make_host("e810.json")
    path, out = check(h, f"[Match]\nPCIAddress={E810}\n{key}=x\n[PhysicalFunction]\n"
                         "VirtualFunctions=2\n")
    assert f"{path}:3: unknown key '{key}' in [Match]; {says}\n" in out, out


@pytest.mark.parametrize("driver", ["Driver=default\n", ""], ids=["default", "unset"])
def test_plan_names_the_driver_that_driver_default_binds(make_host, driver):
    """VFs created with autoprobe off (VF 0 goes to vfio-pci): VF 1 is bound to the kernel's VF
    driver, named as such whether Driver=default says so or Driver= is not set."""
    h = make_host("e810.json")
    h.layout("50.conf", f"[Match]\nPCIAddress={E810}\n[PhysicalFunction]\nVirtualFunctions=2\n"
                        f"[VirtualFunction 0]\nDriver=vfio-pci\n[VirtualFunction 1]\n{driver}"
                        "MTUBytes=1500\n")
    r = h.run("plan", E810)
    assert "  live       VF 1: bind iavf\n" in r.stdout, r.stdout + r.stderr
    assert "default driver" not in r.stdout, r.stdout
    r = h.run("apply", E810)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "done VF 1: bind iavf" in r.stdout, r.stdout
    assert [vf["driver"] for vf in h.pf(E810)["vfs"]] == ["vfio-pci", "iavf"]


def test_the_vf_table_is_as_wide_as_its_longest_name_and_driver(make_host):
    """eno12399np0v10 (14 characters) and uio_pci_generic (15) once pushed the columns after them
    out of line: every column starts where its header does."""
    h = make_host("e810.json")
    h.edit(lambda s: h.pf_of(s, E810).update(name="eno12399np0"))
    h.layout("50.conf", f"[Match]\nPCIAddress={E810}\n[PhysicalFunction]\nVirtualFunctions=12\n"
                        "[VirtualFunction 3]\nDriver=uio_pci_generic\n")
    assert h.run("apply").returncode == 0
    out = h.run("status", E810).stdout
    lines = out.splitlines()
    header = next(l for l in lines if l.startswith("    VF  PCI"))
    rows = [l for l in lines if l.startswith("    ") and l[4].isdigit()]
    assert len(rows) == 12, out
    assert "eno12399np0v10" in rows[10] and "uio_pci_generic" in rows[3], out
    for column in ("NAME", "DRIVER", "MAC", "LINK", "LAYOUT"):  # the left-aligned ones
        at = header.index(column)
        assert all(row[at - 1] == " " and row[at] != " " for row in rows), (column, out)


def run_import(binary, outdir, text):
    return subprocess.run([binary, "import", "--output-dir", str(outdir), "-"], input=text,
                          capture_output=True, text=True, timeout=60)


ONE = """apiVersion: sriovnetwork.openshift.io/v1
kind: SriovNetworkNodePolicy
metadata:
  name: b
spec:
  resourceName: rb
  numVfs: 4
  nicSelector:
    pfNames: ["ens1f0#2-5"]
  deviceType: netdevice
"""


def item(name, fields):
    return ("- apiVersion: sriovnetwork.openshift.io/v1\n  kind: SriovNetworkNodePolicy\n"
            f"  metadata:\n    name: {name}\n  spec:\n" +
            "".join(f"    {f}\n" for f in fields))


LIST = "apiVersion: v1\nkind: List\nitems:\n" + \
    item("a", ["resourceName: ra", "priority: 50", "numVfs: 8", "mtu: 9000", "nicSelector:",
               '  pfNames: ["ens1f0#0-3"]', "deviceType: netdevice"]) + \
    item("b", ["resourceName: rb", "priority: 50", "numVfs: 4", "nicSelector:",
               '  pfNames: ["ens1f0#2-3"]', "deviceType: vfio-pci"]) + \
    item("c", ["resourceName: rc", "numVfs: 0", "nicSelector:", '  pfNames: ["ens1f1"]'])


def test_import_names_the_line_of_the_field(tmp_path, sriovctl_bin):
    """As sriovctl(8) says: each diagnostic names the input line of its field, not the line
    where its policy starts (1, 4, 16 and 27 here)."""
    r = run_import(sriovctl_bin, tmp_path, ONE)
    assert r.stderr.splitlines()[0] == \
        "<stdin>:9: policy b: nicSelector.pfNames: VFs 2-5: beyond numVfs 4", r.stderr
    assert LIST.splitlines()[24] == '      pfNames: ["ens1f0#2-3"]'
    r = run_import(sriovctl_bin, tmp_path, LIST)
    assert r.returncode == 1
    lines = r.stderr.splitlines()
    # in line order, as check says a file's diagnostics
    assert lines[0].startswith("<stdin>:25: policy b: nicSelector: ens1f0 is selected by policy "
                               "a too"), r.stderr
    assert lines[1].startswith("<stdin>:26: policy b: deviceType: vfio-pci for VFs 2-3"), r.stderr
    assert lines[2].startswith("<stdin>:33: warning: policy c: numVfs: 0 or not given"), r.stderr
    assert lines[3:] == ["2 errors: no file written"], r.stderr
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("text,line,says", [
    (item("x", ["numVfs: 2", 'nicSelector: {pfNames: ["a"]}']) +
     item("x", ["numVfs: 2", 'nicSelector: {pfNames: ["b"]}']), 11,
     "policy x: metadata.name: a second policy of this name"),
    (item("X_1", ["numVfs: 2", 'nicSelector: {pfNames: ["a"]}']), 4,
     "policy X_1: metadata.name: not a Kubernetes object name"),
    (item("x", ["numVfs: 2", "nicSelector: {}"]), 7, "warning: policy x: nicSelector: empty"),
    (item("x", ["nicSelector: {pfNames: [a]}"]), 1, "warning: policy x: numVfs: 0 or not given"),
    (item("x", []).replace("  spec:\n", ""), 1, "policy x: spec: is not a mapping"),
    ("- kind: SriovNetworkNodePolicy\n  metadata: {name: y}\n  spec: {}\n" +
     "- apiVersion: v1\n  kind: SriovNetwork\n  metadata: {name: z}\n", 5,
     "object z: kind SriovNetwork, not SriovNetworkNodePolicy"),
], ids=["second-name", "bad-name", "empty-nic-selector", "no-num-vfs", "no-spec", "kind"])
def test_import_names_the_line_of_each_field(tmp_path, sriovctl_bin, text, line, says):
    r = run_import(sriovctl_bin, tmp_path, text)
    assert any(l.startswith(f"<stdin>:{line}: {says}") for l in r.stderr.splitlines()), r.stderr
