# SPDX-License-Identifier: LGPL-2.1-or-later
"""sriovctl import: sriov-network-operator's SriovNetworkNodePolicy objects (tests/fixtures/operator/,
written here after the operator's documented examples) become layout files that pass
`check --strict` on the host they are for, and whose plan makes what the operator would have:
the file order is the operator's priority rule (the lower number wins), and every field without
an equivalent is an error or a warning naming the policy and the field."""

import os
import stat
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
OPERATOR = ROOT / "tests" / "fixtures" / "operator"
NOTE = ("Note: the operator's resources are named with its RESOURCE_PREFIX (openshift.io by "
        "default): set [Kubernetes] ResourcePrefix= in sriov-persist.conf to it")


def run_import(binary, outdir, source, stdin=None):
    return subprocess.run([binary, "import", "--output-dir", str(outdir), str(source)],
                          input=stdin, capture_output=True, text=True, timeout=60)


# each policy file, the host it is written for, the files it makes and plan's exit status
# (the externally managed VFs are another tool's to make: nothing to do until they exist)
IMPORTS = [
    ("e810-policies.yaml", "e810.json", ["00-e810-rdma.conf", "89-e810-dpdk.conf"], 10),
    ("cx6dx-switchdev.yaml", "cx6dx.json", ["49-cx6dx-offload.conf"], 10),
    ("cx7-ib.yaml", "cx7-ib.json", ["79-cx7-ib-a.conf", "79-cx7-ib-b.conf"], 10),
    ("x710-external.yaml", "x710.json", ["99-x710-external.conf"], 0),
]


@pytest.mark.parametrize("policies,fixture,files,plan_exit", IMPORTS)
def test_import_passes_check_strict(make_host, sriovctl_bin, policies, fixture, files, plan_exit):
    h = make_host(fixture)
    r = run_import(sriovctl_bin, h.confdir, OPERATOR / policies)
    assert r.returncode == 0, r.stderr
    assert r.stdout.splitlines() == [f"{h.confdir}/{f}" for f in files]
    assert sorted(p.name for p in h.confdir.iterdir()) == files
    for f in files:
        assert stat.S_IMODE(os.stat(h.confdir / f).st_mode) == 0o644
    c = h.run("check", "--strict")
    assert (c.returncode, c.stderr) == (0, "")
    assert c.stdout == (f"{len(files)} layout file(s) and the main configuration checked: "
                        "0 error(s)\n")
    p = h.run("plan")
    assert p.returncode == plan_exit, p.stderr


def plan_lines(h, pci):
    """The lines of a PF's plan, without their first word (files:, live ...)."""
    lines, mine = [], False
    for line in h.run("plan").stdout.splitlines():
        if not line.startswith(" "):
            mine = line.startswith(pci + " ")
        elif mine:
            lines.append(line.split(None, 1)[1])
    return lines


def test_priority_lower_number_wins(make_host, sriovctl_bin):
    """e810-dpdk (priority 10) wins over e810-rdma (priority 99) on VFs 0-3 of ens1f0, as the
    operator applies 99 first and 10 last; its file names the file it overrides."""
    h = make_host("e810.json")
    assert run_import(sriovctl_bin, h.confdir, OPERATOR / "e810-policies.yaml").returncode == 0
    assert "\n[Layout]\nOverrides=00-e810-rdma.conf\n" in (h.confdir / "89-e810-dpdk.conf").read_text()
    ens1f0 = plan_lines(h, "0000:3b:00.0")
    assert ens1f0[0] == "00-e810-rdma.conf 89-e810-dpdk.conf"
    assert [f"VF {i}: bind vfio-pci" for i in range(4)] == [l for l in ens1f0 if "vfio-pci" in l and "VF" in l]
    assert [f"VF {i}: bind iavf" for i in range(4, 8)] == [l for l in ens1f0 if "bind iavf" in l]
    assert "set 8 VFs" in ens1f0
    ens1f1 = plan_lines(h, "0000:3b:00.1")
    assert ens1f1 == ["00-e810-rdma.conf", "load module iavf", "load module irdma", "set 8 VFs"]


def test_e810_files(tmp_path, sriovctl_bin):
    r = run_import(sriovctl_bin, tmp_path, OPERATOR / "e810-policies.yaml")
    src = OPERATOR / "e810-policies.yaml"
    assert r.stderr.splitlines() == [
        f"{src}:17: warning: policy e810-rdma: nodeSelector: feature.node.kubernetes.io/"
        "network-sriov.capable=true names no host: kept as a comment; install the file only on "
        "the nodes that have the label",
        f"{src}:25: warning: policy e810-rdma: excludeTopology: true has no equivalent: the device "
        "plugin's configuration that sriov-persist writes keeps the VFs' NUMA node",
        f"{src}:41: warning: policy e810-dpdk: needVhostNet: true has no equivalent: the device "
        "plugin's configuration that sriov-persist writes mounts no /dev/vhost-net into pods",
        NOTE,
    ]
    rdma = (tmp_path / "00-e810-rdma.conf").read_text()
    assert rdma.endswith("\n[Match]\nVendor=0x8086\nDevice=0x159b\n\n[PhysicalFunction]\n"
                         "VirtualFunctions=8\nExternallyManaged=no\n\n[VirtualFunction 0-7]\n"
                         "Driver=default\nRDMA=yes\nResourceName=e810_rdma\n")
    assert ("# nodeSelector feature.node.kubernetes.io/network-sriov.capable=true: names no host; "
            "install this file only on the nodes that have the label\n") in rdma
    dpdk = (tmp_path / "89-e810-dpdk.conf").read_text()
    assert dpdk.endswith("\n[Match]\nName=ens1f0\nHost=gpu-worker-03\n\n[PhysicalFunction]\n"
                         "VirtualFunctions=8\nExternallyManaged=no\n\n[VirtualFunction 0-3]\n"
                         "Driver=vfio-pci\nRDMA=no\nResourceName=e810_dpdk\n")


def test_cx6dx_and_cx7_fields(tmp_path, sriovctl_bin):
    a, b = tmp_path / "a", tmp_path / "b"
    a.mkdir()
    b.mkdir()
    r = run_import(sriovctl_bin, a, OPERATOR / "cx6dx-switchdev.yaml")
    assert r.returncode == 0
    assert f"{OPERATOR / 'cx6dx-switchdev.yaml'}:36: warning: policy cx6dx-nothing: nicSelector: " \
        "empty: the operator selects no NIC with it; no file written" in r.stderr
    assert (a / "49-cx6dx-offload.conf").read_text().endswith(
        "[Match]\nPCIAddress=0000:ca:00.0 0000:ca:00.1\nVendor=0x15b3\nDevice=0x101d\n"
        "Host=ai-node-42\n\n[PhysicalFunction]\nVirtualFunctions=4\nMTUBytes=9000\n"
        "LinkType=ethernet\nESwitchMode=switchdev\nExternallyManaged=no\n\n"
        "[VirtualFunction 0-3]\nDriver=default\nMTUBytes=9000\nRDMA=yes\nResourceName=cx6_offload\n")
    r = run_import(sriovctl_bin, b, OPERATOR / "cx7-ib.yaml")
    assert r.returncode == 0
    assert "policy cx7-no-vfs: numVfs: 0 or not given: the operator configures nothing" in r.stderr
    a_text = (b / "79-cx7-ib-a.conf").read_text()
    b_text = (b / "79-cx7-ib-b.conf").read_text()
    assert "LinkType=infiniband\n" in a_text and "[VirtualFunction 0-3]\n" in a_text
    assert (f"{OPERATOR / 'cx7-ib.yaml'}:16: warning: policy cx7-ib-a: linkType: IB with pfNames: "
            "a PF the file makes an InfiniBand port is renamed, and Name= then no longer selects "
            "it; unless its ports are InfiniBand already, replace Name= with PCIAddress= before "
            "installing the file (or give rootDevices)") in r.stderr.splitlines()
    # the file's comment says what the warning says: Name= works on a port InfiniBand already
    assert ("# pfNames: a PF this file makes an InfiniBand port is renamed, and Name= then no "
            "longer\n# selects it; unless its ports are InfiniBand already, replace Name= with "
            "PCIAddress=\n") in a_text, a_text
    assert "an InfiniBand port is matched by PCIAddress=" not in a_text, a_text
    assert "[VirtualFunction 4-7]\n" in b_text and "[Layout]" not in b_text


def test_externally_managed_waits_for_the_other_tool(make_host, sriovctl_bin):
    h = make_host("x710.json")
    assert run_import(sriovctl_bin, h.confdir, OPERATOR / "x710-external.yaml").returncode == 0
    assert "ExternallyManaged=yes\n" in (h.confdir / "99-x710-external.conf").read_text()
    r = h.run("plan")
    assert "waiting for another tool to create VFs: 0 of 4 exist (ExternallyManaged=yes)" in r.stdout


def test_stdin_gives_the_same_files(tmp_path, sriovctl_bin):
    a, b = tmp_path / "a", tmp_path / "b"
    a.mkdir()
    b.mkdir()
    src = OPERATOR / "cx7-ib.yaml"
    assert run_import(sriovctl_bin, a, src).returncode == 0
    r = run_import(sriovctl_bin, b, "-", stdin=src.read_text())
    assert r.returncode == 0
    assert "<stdin>:41: warning: policy cx7-no-vfs" in r.stderr
    for f in a.iterdir():
        assert (b / f.name).read_text() == f.read_text().replace(str(src), "<stdin>")


def test_unsupported_fields_are_errors_and_nothing_is_written(tmp_path, sriovctl_bin):
    r = run_import(sriovctl_bin, tmp_path, "-", stdin=(OPERATOR / "unsupported.yaml").read_text())
    assert r.returncode == 1
    assert r.stdout == ""
    assert list(tmp_path.iterdir()) == []
    assert r.stderr.splitlines() == [
        "<stdin>:18: policy vdpa: vdpaType: sriov-persist makes no vDPA devices; leave this "
        "policy to the operator",
        "<stdin>:30: policy bridged: nicSelector.netFilter: a cloud network filter has no "
        "equivalent in [Match]; select the PFs by rootDevices or pfNames",
        "<stdin>:31: policy bridged: bridge: sriov-persist configures no Open vSwitch bridge; "
        "configure the bridge with OVS itself and import the policy without it",
        "<stdin>:40: policy typos: resourceName: intel-vf: sriov-persist's resource names are "
        "1..63 letters, digits or '_' (ResourceName=); rename the resource, and the pods' "
        "requests of it",
        "<stdin>:43: policy typos: priority: 100: must be a number 0..99",
        "<stdin>:44: policy typos: deviceType: dpdk: must be one of netdevice, vfio-pci",
        "<stdin>:45: policy typos: linkType: roce: must be one of eth, ETH, ib, IB",
        "<stdin>:46: policy typos: isRdma: yes: must be true or false",
        "<stdin>:47: policy typos: spoofChk: a field of the operator's SriovNetwork, not of a "
        "policy; set MACSpoofCheck= in the VF section of the layout file instead",
        "<stdin>:48: policy typos: colour: not a field of the operator's SriovNetworkNodePolicy "
        "spec",
        "<stdin>:50: policy typos: nicSelector.pfNames: VFs 4-9: beyond numVfs 4",
        "<stdin>:51: policy typos: nicSelector.vendor: 8086x: must be four hex digits",
        "<stdin>:53: object not-a-policy: kind SriovNetworkNetwork, not SriovNetworkNodePolicy",
        "13 errors: no file written",
    ]


POLICY = """- kind: SriovNetworkNodePolicy
  metadata: {{name: {name}}}
  spec: {{resourceName: r{n}, nodeSelector: {{}}, numVfs: 8, {extra} nicSelector: {{pfNames: [{pf}]}}}}
"""


def test_order_and_mtu_conflicts_are_errors(tmp_path, sriovctl_bin):
    text = (POLICY.format(name="pool", n=1, extra="mtu: 9000,", pf="ens1f0") +
            POLICY.format(name="pool-dpdk", n=2, extra="deviceType: vfio-pci,", pf='"ens1f0#0-3"'))
    r = run_import(sriovctl_bin, tmp_path, "-", stdin=text)
    assert r.returncode == 1
    assert r.stderr.splitlines() == [
        "<stdin>:5: policy pool-dpdk: priority 0, as policy pool: the operator applies pool-dpdk "
        "last, but its file 99-pool-dpdk.conf would be read before 99-pool.conf; give one of "
        "them another priority or name",
        "<stdin>:6: policy pool-dpdk: deviceType: vfio-pci for VFs 0-3, to which policy pool "
        "(applied before it) gives mtu 9000: its file's MTUBytes= would stay on them, and a VF "
        "on vfio-pci has no MTU; select the VFs of pool by a pfNames range that leaves these out",
        "2 errors: no file written",
    ]
    assert list(tmp_path.iterdir()) == []


def test_pf_names_ranges_must_agree(tmp_path, sriovctl_bin):
    text = POLICY.format(name="two", n=1, extra="", pf='"ens1f0#0-3", "ens1f1#4-7"')
    r = run_import(sriovctl_bin, tmp_path, "-", stdin=text)
    assert r.returncode == 1
    assert r.stderr.splitlines()[0] == (
        "<stdin>:3: policy two: nicSelector.pfNames: ens1f1#4-7: its VF range differs from that "
        "of ens1f0, and a layout file has one set of VF sections for all the PFs it selects: "
        "write a policy per range")


def test_existing_files_are_never_replaced(tmp_path, sriovctl_bin):
    (tmp_path / "89-e810-dpdk.conf").write_text("# mine\n")
    r = run_import(sriovctl_bin, tmp_path, OPERATOR / "e810-policies.yaml")
    assert r.returncode == 1
    assert r.stderr.splitlines()[-1] == (
        f"{tmp_path}/89-e810-dpdk.conf exists; an import does not replace files: move it away or "
        "import into another directory")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["89-e810-dpdk.conf"]
    assert (tmp_path / "89-e810-dpdk.conf").read_text() == "# mine\n"


def test_usage_errors(tmp_path, sriovctl_bin):
    r = run_import(sriovctl_bin, tmp_path / "missing", OPERATOR / "x710-external.yaml")
    assert (r.returncode, r.stderr) == (2, f"--output-dir {tmp_path}/missing: No such file or directory\n")
    r = subprocess.run([sriovctl_bin, "import", str(OPERATOR / "x710-external.yaml")],
                       capture_output=True, text=True)
    assert (r.returncode, r.stderr) == (2, "import: --output-dir DIR is needed\n")
    r = run_import(sriovctl_bin, tmp_path, "-", stdin="a: [\n")
    assert r.returncode == 1
    assert r.stderr.startswith("<stdin>:2: not YAML: ")
    r = run_import(sriovctl_bin, tmp_path, "-", stdin="")
    assert (r.returncode, r.stderr) == (1, "<stdin>: no policy to make a layout file of; no file "
                                           "written\n")
    r = run_import(sriovctl_bin, tmp_path, "-", stdin="a\0b")
    assert (r.returncode, r.stderr) == (1, "<stdin>: has a NUL byte, not a YAML text\n")


def test_output_dir_is_checked_before_the_input(tmp_path, sriovctl_bin):
    """No warning about the policies comes before the directory's error."""
    for d, why in ((tmp_path / "nodir", "No such file or directory"),
                   (OPERATOR / "x710-external.yaml", "Not a directory")):
        r = run_import(sriovctl_bin, d, OPERATOR / "e810-policies.yaml")
        assert (r.returncode, r.stdout, r.stderr) == (2, "", f"--output-dir {d}: {why}\n")


ONE = """- kind: SriovNetworkNodePolicy
  metadata:
    name: {name}
  spec:
    priority: {priority}
    numVfs: {vfs}
    nicSelector:
      {selector}
"""


def test_policies_that_would_hold_the_pf_are_errors(tmp_path, sriovctl_bin):
    """Files whose later VirtualFunctions= is below the earlier file's VF section would make
    plan hold the PF: the operator's webhook refuses a second policy on a root device, and
    for others the numVfs of the two must agree."""
    text = (ONE.format(name="cx7-ib", priority=20, vfs=8, selector='rootDevices: ["0000:1a:00.0"]') +
            ONE.format(name="cx7-more", priority=10, vfs=4, selector='rootDevices: ["0000:1a:00.0"]'))
    r = run_import(sriovctl_bin, tmp_path, "-", stdin=text)
    assert r.returncode == 1
    assert r.stderr.splitlines() == [
        "<stdin>:16: policy cx7-more: nicSelector: 0000:1a:00.0 is selected by policy cx7-ib too: "
        "the operator refuses two policies on one root device, or on the same VFs of one pfNames "
        "entry; merge the two, or give each a pfNames range of its own",
        "1 error: no file written"]
    text = (ONE.format(name="all", priority=20, vfs=8, selector='vendor: "15b3"') +
            ONE.format(name="some", priority=10, vfs=4, selector='pfNames: ["ens1f0#0-3"]'))
    r = run_import(sriovctl_bin, tmp_path, "-", stdin=text)
    assert r.returncode == 1
    assert r.stderr.splitlines() == [
        "<stdin>:14: policy some: numVfs: 4, applied after policy all that configures VFs 0-7 of "
        "a PF both may select: its file's VF section would be beyond VirtualFunctions=4; give "
        "both the same numVfs",
        "1 error: no file written"]
    text = (ONE.format(name="a", priority=20, vfs=8, selector='pfNames: ["ens1f0#0-3"]') +
            ONE.format(name="b", priority=10, vfs=8, selector='pfNames: ["ens1f0#2-7"]'))
    r = run_import(sriovctl_bin, tmp_path, "-", stdin=text)
    assert r.stderr.splitlines()[0] == (
        "<stdin>:16: policy b: nicSelector: ens1f0 is selected by policy a too: the operator "
        "refuses two policies on one root device, or on the same VFs of one pfNames entry; merge "
        "the two, or give each a pfNames range of its own")
    assert list(tmp_path.iterdir()) == []


def test_pf_names_without_range_mean_all_vfs(tmp_path, sriovctl_bin):
    text = ONE.format(name="mixed", priority=0, vfs=8,
                      selector='pfNames: ["ens3f0np0#0-7", "ens3f1np1"]')
    r = run_import(sriovctl_bin, tmp_path, "-", stdin=text)
    assert (r.returncode, r.stderr) == (0, "")
    assert "Name=ens3f0np0 ens3f1np1\n" in (tmp_path / "99-mixed.conf").read_text()
    assert "[VirtualFunction 0-7]\n" in (tmp_path / "99-mixed.conf").read_text()
    r = run_import(sriovctl_bin, tmp_path, "-", stdin=text.replace("mixed", "more").replace(
        "numVfs: 8", "numVfs: 16"))
    assert r.returncode == 1
    assert r.stderr.splitlines()[0] == (
        "<stdin>:8: policy more: nicSelector.pfNames: ens3f1np1: its VF range 0-15 (numVfs 16) "
        "differs from that of ens3f0np0 (0-7), and a layout file has one set of VF sections for "
        "all the PFs it selects: write a policy per range")


def test_warnings_name_the_field_line_also_beside_errors(tmp_path, sriovctl_bin):
    text = ("kind: SriovNetworkNodePolicy\nmetadata:\n  name: vhost\nspec:\n"
            "  nicSelector: {pfNames: [ens1f0]}\n  numVfs: 4\n  mtu: 20\n"
            "  nodeSelector:\n    pool: dpdk\n  excludeTopology: true\n  needVhostNet: true\n")
    r = run_import(sriovctl_bin, tmp_path, "-", stdin=text)
    assert r.returncode == 1
    assert r.stderr.splitlines() == [
        "<stdin>:7: policy vhost: mtu: 20: below 68",
        "<stdin>:9: warning: policy vhost: nodeSelector: pool=dpdk names no host: kept as a "
        "comment; install the file only on the nodes that have the label",
        "<stdin>:10: warning: policy vhost: excludeTopology: true has no equivalent: the device "
        "plugin's configuration that sriov-persist writes keeps the VFs' NUMA node",
        "<stdin>:11: warning: policy vhost: needVhostNet: true has no equivalent: the device "
        "plugin's configuration that sriov-persist writes mounts no /dev/vhost-net into pods",
        "1 error: no file written"]


def test_infiniband_pf_names_match_by_pci_address(tmp_path, sriovctl_bin):
    text = ONE.format(name="ib", priority=0, vfs=4,
                      selector='{pfNames: [ibp27s0], rootDevices: ["0000:1b:00.0"]}\n    linkType: IB')
    text = text.replace("    nicSelector:\n      {", "    nicSelector: {")
    r = run_import(sriovctl_bin, tmp_path, "-", stdin=text)
    assert r.returncode == 0
    assert r.stderr.splitlines() == [
        "<stdin>:8: warning: policy ib: linkType: IB with pfNames: the file matches by "
        "PCIAddress= (rootDevices) only, as Name= no longer selects a PF once it is an "
        "InfiniBand port"]
    conf = (tmp_path / "99-ib.conf").read_text()
    assert "\n[Match]\nPCIAddress=0000:1b:00.0\n\n[PhysicalFunction]\n" in conf
    assert "Name=" not in conf.split("[Match]")[1]


def test_rdma_on_vfio_pci_is_an_error_at_is_rdma(tmp_path, sriovctl_bin):
    """The check across isRdma and deviceType cites isRdma's line, not the policy's."""
    text = ONE.format(name="x710-dpdk", priority=10, vfs=8, selector='vendor: "8086"') + \
        "    deviceType: vfio-pci\n    isRdma: true\n"
    r = run_import(sriovctl_bin, tmp_path, "-", stdin=text)
    assert r.returncode == 1
    assert r.stderr.splitlines() == [
        "<stdin>:10: policy x710-dpdk: isRdma: true with deviceType vfio-pci: a VF on vfio-pci "
        "has no RDMA device",
        "1 error: no file written"]
    assert list(tmp_path.iterdir()) == []
