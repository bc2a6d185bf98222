# SPDX-License-Identifier: LGPL-2.1-or-later
"""sriovctl compare: a SriovNetworkNodeState (tests/fixtures/operator/nodestate-*, written here as
the operator leaves them after the policies of the same directory) against what applying the
layouts that `sriovctl import` makes of those policies would leave on the matching simulated host:
no difference where there is none, before and after the apply, and each planted difference found
(VF count, VF driver, PF and VF MTU, eswitch mode, link type, PFs only one side configures), with
the node state chosen by name, and input that cannot be read refused."""

import json
import os
import subprocess
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]
OPERATOR = ROOT / "tests" / "fixtures" / "operator"
SAME = "no difference: applying the layouts leaves the node as the operator set it"

# the host, the policies imported as its layouts, the node state of the operator's result
SETUPS = {
    "e810": ("e810.json", "e810-policies.yaml", "nodestate-e810.yaml"),
    "cx6dx": ("cx6dx.json", "cx6dx-switchdev.yaml", "nodestate-cx6dx.yaml"),
    "cx7": ("cx7-ib.json", "cx7-ib.yaml", "nodestate-cx7-ib.json"),
}


def imported_host(make_host, name):
    fixture, policies, _ = SETUPS[name]
    h = make_host(fixture)
    r = subprocess.run([h.binary, "import", "--output-dir", str(h.confdir), str(OPERATOR / policies)],
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    return h


def compare(h, source, *args, stdin=None):
    return subprocess.run([h.binary, "--no-color", "--host", str(h.path), "--config-dir",
                           str(h.confdir), "--main-config", str(h.main), "compare", *args,
                           str(source)], input=stdin, capture_output=True, text=True, timeout=60)


def node_states(name):
    """The fixture's node states, parsed: a list of objects."""
    text = (OPERATOR / SETUPS[name][2]).read_text()
    doc = yaml.safe_load(text)
    return doc["items"] if doc.get("kind") == "List" else [doc]


def write_states(tmp_path, states, name="nodestate.yaml"):
    path = tmp_path / name
    path.write_text(yaml.safe_dump({"apiVersion": "v1", "kind": "List", "items": states}))
    return path


def line_of(path, text, section=None):
    """The line number of the first line that is text (after the line section, when given)."""
    lines = path.read_text().splitlines()
    start = lines.index(section) if section else 0
    return lines.index(text, start) + 1


def iface(state, part, pci):
    return next(i for i in state[part]["interfaces"] if i["pciAddress"] == pci)


@pytest.mark.parametrize("name", SETUPS)
def test_no_difference_before_and_after_apply(make_host, name):
    """The layouts made of the policies leave the node as the operator's node state says, both on
    the host as it was before any VF (what apply would do) and once applied (what it has)."""
    h = imported_host(make_host, name)
    source = OPERATOR / SETUPS[name][2]
    r = compare(h, source)
    assert (r.returncode, r.stdout.splitlines()) == (0, [SAME]), r.stderr
    assert h.run("apply").returncode == 0
    r = compare(h, source)
    assert (r.returncode, r.stdout.splitlines()) == (0, [SAME]), r.stderr


def test_the_status_is_compared_and_unjudged_fields_are_said(make_host):
    h = imported_host(make_host, "cx7")
    r = compare(h, OPERATOR / "nodestate-cx7-ib.json")
    src = OPERATOR / "nodestate-cx7-ib.json"
    err = r.stderr.splitlines()
    assert "node state gpu-node-12: its status (what the node has) compared with what applying " \
        "the layouts would leave" in err
    assert f"{src}: not compared: status.interfaces[].Vfs[].guid, status.interfaces[].Vfs[].mac: " \
        "a VF's address, VLAN and GUID are given for a pod by the CNI, not by the operator" in err
    assert f"{src}: not compared: spec.system, status.system: the RDMA subsystem's mode is [RDMA] " \
        "NetnsMode= of sriov-persist.conf, not a layout's; Open vSwitch is not sriov-persist's" in err
    hw = next(l for l in err if "what the hardware is and reports" in l)
    for field in ("status.interfaces[].linkSpeed", "status.interfaces[].totalvfs",
                  "status.interfaces[].Vfs[].pciAddress"):
        assert field in hw


def test_vf_count(make_host, tmp_path):
    h = imported_host(make_host, "cx7")
    doc = json.loads((OPERATOR / "nodestate-cx7-ib.json").read_text())
    for part in ("spec", "status"):
        iface(doc, part, "0000:1a:00.0")["numVfs"] = 6
    src = tmp_path / "ns.json"
    src.write_text(json.dumps(doc))
    r = compare(h, src)
    conf = h.confdir / "79-cx7-ib-b.conf"
    assert r.stdout.splitlines() == [
        "0000:1a:00.0 (ibp26s0): VF count: operator 6, layouts 8 "
        f"({conf}:{line_of(conf, 'VirtualFunctions=8')})",
        "1 difference(s)"]
    assert r.returncode == 1


def another_node_note(node, host="gpu-worker-03.dc1.example.net"):
    return (f"note: comparing node {node} with the PFs of this host ({host}): the layouts' "
            f"[Match] Host= are matched against {node}")


def dpdk_differences(conf):
    """What compare says of ens1f0 when the DPDK layout selects it on a node without DPDK VFs."""
    at = lambda key: f"{conf}:{line_of(conf, key)}"
    lines = []
    for i in range(4):
        lines += [
            f"0000:3b:00.0 (ens1f0): VF {i} driver: operator iavf, layouts vfio-pci "
            f"({at('Driver=vfio-pci')})",
            f"0000:3b:00.0 (ens1f0): VF {i} resource name: operator e810_rdma, layouts e810_dpdk "
            f"({at('ResourceName=e810_dpdk')})",
            f"0000:3b:00.0 (ens1f0): VF {i} RDMA: operator yes, layouts no ({at('RDMA=no')})"]
    return lines + ["12 difference(s)"]


def test_another_node_is_judged_by_its_name(make_host):
    """gpu-worker-04 has no DPDK VFs, and the DPDK layout is for gpu-worker-03 ([Match]
    Host=gpu-worker-03): compared from gpu-worker-03, with its PFs standing for gpu-worker-04's,
    the layouts are matched against gpu-worker-04's name, and leave it as the operator set it."""
    h = imported_host(make_host, "e810")
    r = compare(h, OPERATOR / "nodestate-e810.yaml", "--node", "gpu-worker-04")
    assert (r.returncode, r.stdout.splitlines()) == (0, [SAME]), r.stderr
    err = r.stderr.splitlines()
    assert err.count(another_node_note("gpu-worker-04")) == 1
    assert "node state gpu-worker-04: its status (what the node has) compared with what applying " \
        "the layouts would leave" in err


def test_a_layout_for_another_node_is_judged_for_it(make_host):
    """A layout whose Host= names the node compared selects that node's PFs, not this host's."""
    h = imported_host(make_host, "e810")
    conf = h.confdir / "89-e810-dpdk.conf"
    conf.write_text(conf.read_text().replace("Host=gpu-worker-03\n", "Host=gpu-worker-04\n"))
    r = compare(h, OPERATOR / "nodestate-e810.yaml", "--node", "gpu-worker-04")
    assert r.stdout.splitlines() == dpdk_differences(conf)
    assert r.returncode == 1
    assert another_node_note("gpu-worker-04") in r.stderr.splitlines()
    # this host's own node state: the layout is not for it any more, which loses its DPDK VFs
    r = compare(h, OPERATOR / "nodestate-e810.yaml", "--node", "gpu-worker-03")
    assert r.returncode == 1
    assert "0000:3b:00.0 (ens1f0): VF 0 driver: operator vfio-pci, layouts iavf" in r.stdout
    assert "note:" not in r.stderr


def test_this_host_is_judged_by_its_own_name(make_host):
    """--node naming this host (by its first label) is this host: its hostname is what Host= is
    matched against, with no note; on a host named gpu-worker-04, that name is."""
    h = imported_host(make_host, "e810")
    r = compare(h, OPERATOR / "nodestate-e810.yaml", "--node", "gpu-worker-03")
    assert (r.returncode, r.stdout.splitlines()) == (0, [SAME]), r.stderr
    assert "note:" not in r.stderr
    snap = json.loads(h.path.read_text())
    snap["hostname"] = "gpu-worker-04"
    h.path.write_text(json.dumps(snap))
    r = compare(h, OPERATOR / "nodestate-e810.yaml", "--node", "gpu-worker-04")
    assert (r.returncode, r.stdout.splitlines()) == (0, [SAME]), r.stderr
    assert "note:" not in r.stderr
    # and gpu-worker-03 from there: its DPDK layout judged for it
    r = compare(h, OPERATOR / "nodestate-e810.yaml", "--node", "gpu-worker-03")
    assert (r.returncode, r.stdout.splitlines()) == (0, [SAME]), r.stderr
    assert another_node_note("gpu-worker-03", "gpu-worker-04") in r.stderr.splitlines()


def test_mtu_and_eswitch_mode(make_host):
    h = imported_host(make_host, "cx6dx")
    conf = h.confdir / "49-cx6dx-offload.conf"
    text = conf.read_text().replace("[PhysicalFunction]\nVirtualFunctions=4\nMTUBytes=9000\n",
                                    "[PhysicalFunction]\nVirtualFunctions=4\nMTUBytes=9100\n")
    text = text.replace("ESwitchMode=switchdev", "ESwitchMode=legacy")
    text = text.replace("Driver=default\nMTUBytes=9000", "Driver=default\nMTUBytes=1500")
    conf.write_text(text)
    r = compare(h, OPERATOR / "nodestate-cx6dx.yaml")
    pf_mtu = line_of(conf, "MTUBytes=9100")
    mode = line_of(conf, "ESwitchMode=legacy")
    vf_mtu = line_of(conf, "MTUBytes=1500")
    expected = []
    for pf in ("0000:ca:00.0 (ens3f0np0)", "0000:ca:00.1 (ens3f1np1)"):
        expected += [f"{pf}: MTU: operator 9000, layouts 9100 ({conf}:{pf_mtu})",
                     f"{pf}: eswitch mode: operator switchdev, layouts legacy "
                     f"({conf}:{mode})"]
        expected += [f"{pf}: VF {i} MTU: operator 9000, layouts 1500 "
                     f"({conf}:{vf_mtu})" for i in range(4)]
    assert r.stdout.splitlines() == expected + ["12 difference(s)"]
    assert r.returncode == 1


def test_link_type(make_host, tmp_path):
    h = imported_host(make_host, "cx7")
    doc = json.loads((OPERATOR / "nodestate-cx7-ib.json").read_text())
    for part in ("spec", "status"):
        iface(doc, part, "0000:1a:00.0")["linkType"] = "ETH"
    src = tmp_path / "ns.json"
    src.write_text(json.dumps(doc))
    r = compare(h, src)
    conf = h.confdir / "79-cx7-ib-b.conf"
    assert r.stdout.splitlines() == [
        "0000:1a:00.0 (ibp26s0): link type: operator ETH, layouts infiniband "
        f"({conf}:{line_of(conf, 'LinkType=infiniband')})",
        "1 difference(s)"]


def test_pf_no_layout_selects_and_pf_the_operator_does_not_configure(make_host, tmp_path):
    h = imported_host(make_host, "cx6dx")
    conf = h.confdir / "49-cx6dx-offload.conf"
    conf.write_text(conf.read_text().replace("PCIAddress=0000:ca:00.0 0000:ca:00.1",
                                             "PCIAddress=0000:ca:00.0"))
    r = compare(h, OPERATOR / "nodestate-cx6dx.yaml")
    assert r.stdout.splitlines() == [
        "0000:ca:00.1 (ens3f1np1): no layout selects it: the operator configures it (4 VFs); it "
        "would be unconfigured, and nothing makes its VFs again after a reboot",
        "1 difference(s)"]
    assert r.returncode == 1
    # the other way round: the operator configures only the first port
    conf.write_text(conf.read_text().replace("PCIAddress=0000:ca:00.0",
                                             "PCIAddress=0000:ca:00.0 0000:ca:00.1"))
    states = node_states("cx6dx")
    states[0]["spec"]["interfaces"] = [iface(states[0], "spec", "0000:ca:00.0")]
    port1 = iface(states[0], "status", "0000:ca:00.1")
    for key in ("Vfs", "numVfs"):
        del port1[key]
    port1.update(eSwitchMode="legacy", mtu=1500)
    r = compare(h, write_states(tmp_path, states))
    assert r.stdout.splitlines() == [
        f"0000:ca:00.1 (ens3f1np1): the layouts configure it (4 VFs; {conf}), the "
        "operator does not (it is not in the spec of the node state)",
        "1 difference(s)"]


def test_operator_not_converged(make_host, tmp_path):
    """A spec the status does not meet yet, and a sync in progress, are differences too: the status
    compared is not what the operator's policies say."""
    h = imported_host(make_host, "e810")
    states = node_states("e810")
    node = states[0]
    node["status"]["syncStatus"] = "InProgress"
    node["status"]["lastSyncError"] = "failed to bind VF 0000:3b:01.2 to vfio-pci"
    iface(node, "status", "0000:3b:00.0")["Vfs"][2]["driver"] = "iavf"
    iface(node, "status", "0000:3b:00.0")["Vfs"][2]["mtu"] = 1500
    r = compare(h, write_states(tmp_path, states))
    conf = h.confdir / "89-e810-dpdk.conf"
    assert r.stdout.splitlines() == [
        "node state gpu-worker-03: syncStatus InProgress (lastSyncError: failed to bind VF "
        "0000:3b:01.2 to vfio-pci): the operator had not converged",
        "0000:3b:00.0 (ens1f0): VF 2 driver: operator spec vfio-pci, status iavf (the operator had "
        "not converged)",
        "0000:3b:00.0 (ens1f0): VF 2 driver: operator iavf, layouts vfio-pci "
        f"({conf}:{line_of(conf, 'Driver=vfio-pci')})",
        "3 difference(s), 2 of them where the operator had not converged"]
    assert r.returncode == 1


def test_pf_not_on_this_host(make_host, tmp_path):
    h = imported_host(make_host, "cx6dx")
    states = node_states("cx6dx")
    extra = dict(iface(states[0], "status", "0000:ca:00.1"), pciAddress="0000:cb:00.0",
                 name="ens4f0np0")
    states[0]["status"]["interfaces"].append(extra)
    r = compare(h, write_states(tmp_path, states))
    assert r.stdout.splitlines() == [
        "0000:cb:00.0 (ens4f0np0): not on this host: the node state is another node's, or the PF "
        "is gone",
        "1 difference(s)"]


# ---- which node state ----

def test_node_chosen_by_host_name_from_a_list(make_host):
    """The List has gpu-worker-03 and -04; the host is gpu-worker-03.dc1.example.net."""
    h = imported_host(make_host, "e810")
    r = compare(h, OPERATOR / "nodestate-e810.yaml")
    assert r.returncode == 0
    assert "node state gpu-worker-03: its status" in r.stderr


def test_node_named_that_is_not_there(make_host):
    h = imported_host(make_host, "e810")
    src = OPERATOR / "nodestate-e810.yaml"
    r = compare(h, src, "--node", "gpu-worker-09")
    assert (r.returncode, r.stdout) == (1, "")
    assert r.stderr.splitlines()[-1] == (f"{src}: no node state named gpu-worker-09 (the input "
                                         "has: gpu-worker-03, gpu-worker-04); nothing compared")


def test_no_node_state_for_this_host(make_host):
    h = imported_host(make_host, "cx6dx")  # ai-node-42
    src = OPERATOR / "nodestate-e810.yaml"
    r = compare(h, src)
    assert (r.returncode, r.stdout) == (1, "")
    assert r.stderr.splitlines()[-1] == (
        f"{src}: 2 node states (gpu-worker-03, gpu-worker-04), none named for this host "
        "(ai-node-42.cluster.example.com): give --node NAME; nothing compared")


def test_two_node_states_named_for_this_host(make_host, tmp_path):
    h = imported_host(make_host, "e810")
    states = node_states("e810")
    states[1]["metadata"]["name"] = "gpu-worker-03.dc1.example.net"
    src = write_states(tmp_path, states)
    r = compare(h, src)
    assert (r.returncode, r.stdout) == (1, "")
    assert r.stderr.splitlines()[-1] == (
        f"{src}: 2 node states (gpu-worker-03, gpu-worker-03.dc1.example.net) are named for this "
        "host (gpu-worker-03.dc1.example.net): give --node NAME; nothing compared")
    r = compare(h, src, "--node", "gpu-worker-03")
    assert r.returncode == 0


def test_node_name_from_the_main_configuration(make_host, tmp_path):
    h = imported_host(make_host, "e810")
    h.main.write_text(h.main.read_text() + "[Kubernetes]\nNodeName=gpu-worker-04\n")
    r = compare(h, OPERATOR / "nodestate-e810.yaml")
    assert "node state gpu-worker-04: its status" in r.stderr
    assert r.returncode == 1


def test_one_node_state_of_another_name_is_judged_for_that_node(make_host, tmp_path):
    """The only node state, of another node than this host, is compared with a note, as --node
    compares one: the layouts' Host=ai-node-42 select no PF of ai-node-43."""
    h = imported_host(make_host, "cx6dx")
    states = node_states("cx6dx")
    states[0]["metadata"]["name"] = "ai-node-43"
    r = compare(h, write_states(tmp_path, states[:1]))
    assert r.stdout.splitlines() == [
        f"0000:ca:00.{i} (ens3f{i}np{i}): no layout selects it: the operator configures it "
        "(4 VFs); it would be unconfigured, and nothing makes its VFs again after a reboot"
        for i in (0, 1)] + ["2 difference(s)"]
    assert r.returncode == 1
    assert another_node_note("ai-node-43", "ai-node-42.cluster.example.com") \
        in r.stderr.splitlines()


def test_standard_input(make_host):
    h = imported_host(make_host, "cx7")
    r = compare(h, "-", stdin=(OPERATOR / "nodestate-cx7-ib.json").read_text())
    assert (r.returncode, r.stdout.splitlines()) == (0, [SAME])
    assert "<stdin>: not compared: " in r.stderr


# ---- input that cannot be read; usage ----

@pytest.mark.parametrize("text,message", [
    ("spec: [\n", "<stdin>:2: neither YAML nor JSON: "),
    ((OPERATOR / "cx7-ib.yaml").read_text(),
     "<stdin>:3: object cx7-ib-a: kind SriovNetworkNodePolicy, not SriovNetworkNodeState"),
    ("kind: SriovNetworkNodeState\nmetadata:\n  name: n1\nstatus:\n  interfaces:\n"
     "  - pciAddress: 0000:ca:00.0\n    numVfs: four\n",
     "<stdin>:7: node state n1: status.interfaces[0].numVfs: four: must be a number "
     "0..65535"),
    ("kind: SriovNetworkNodeState\nmetadata:\n  name: n1\nspec:\n  interfaces:\n"
     "  - pciAddress: 0000:ca:00.0\n    vfGroups:\n    - vfRange: 4-2\n",
     "<stdin>:8: node state n1: spec.interfaces[0].vfGroups[0].vfRange: 4-2: must be a "
     "range of VFs, as 0-7"),
    ("kind: SriovNetworkNodeState\nmetadata:\n  name: n1\nstatus:\n  interfaces:\n"
     "  - pciAddress: 0000:ca:00.0\n  - pciAddress: 0000:CA:00.0\n",
     "<stdin>:6: node state n1: status.interfaces: 0000:ca:00.0: listed twice"),
    ("kind: SriovNetworkNodeState\nmetadata:\n  name: n1\n",
     "<stdin>:1: node state n1: spec: neither spec nor status: nothing to compare"),
    ("", "<stdin>: no node state in the input; nothing compared"),
], ids=["not-yaml", "policies", "number", "range", "twice", "empty-object", "empty"])
def test_bad_input(make_host, text, message):
    h = imported_host(make_host, "cx6dx")
    r = compare(h, "-", stdin=text)
    assert (r.returncode, r.stdout) == (1, "")
    assert any(l.startswith(message) for l in r.stderr.splitlines()), r.stderr


def test_missing_file(make_host, tmp_path):
    h = imported_host(make_host, "cx6dx")
    r = compare(h, tmp_path / "nothing.yaml")
    assert (r.returncode, r.stdout) == (1, "")
    assert r.stderr == f"{tmp_path / 'nothing.yaml'}: No such file or directory\n"


@pytest.mark.parametrize("args", [[], ["a.yaml", "b.yaml"]])
def test_usage(sriovctl_bin, args):
    r = subprocess.run([sriovctl_bin, "compare", *args], capture_output=True, text=True,
                       timeout=60)
    assert (r.returncode, r.stderr) == (2, "compare: wrong number of arguments\n")


def test_values_only_the_host_has(make_host):
    """Applied, then the layout loses its ESwitchMode= and the PF's MTUBytes=: the node is still
    as the operator left it, but only until a reboot, which nothing would set them again after."""
    h = imported_host(make_host, "cx6dx")
    assert h.run("apply").returncode == 0
    conf = h.confdir / "49-cx6dx-offload.conf"
    text = conf.read_text().replace("ESwitchMode=switchdev\n", "")
    conf.write_text(text.replace("VirtualFunctions=4\nMTUBytes=9000\n", "VirtualFunctions=4\n"))
    r = compare(h, OPERATOR / "nodestate-cx6dx.yaml")
    expected = []
    for pf in ("0000:ca:00.0 (ens3f0np0)", "0000:ca:00.1 (ens3f1np1)"):
        expected += [f"{pf}: {field}: operator {value}, layouts {value} only as the host has it "
                     "now: no layout sets it, and a reboot loses it"
                     for field, value in (("MTU", "9000"), ("eswitch mode", "switchdev"))]
    assert r.stdout.splitlines() == expected + ["4 difference(s)"]
    assert r.returncode == 1
