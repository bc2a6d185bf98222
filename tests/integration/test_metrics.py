# SPDX-License-Identifier: LGPL-2.1-or-later
"""sriovctl metrics: the Prometheus text format of a simulated host, its values read from the
snapshot and the records, and promtool's check of it (promtool is required: Debian's
prometheus, scripts/install-deps)."""

import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest

E810_0, E810_1 = "0000:3b:00.0", "0000:3b:00.1"
VF_COUNTERS = {
    "rx_bytes": "vf_receive_bytes_total", "tx_bytes": "vf_transmit_bytes_total",
    "rx_packets": "vf_receive_packets_total", "tx_packets": "vf_transmit_packets_total",
    "broadcast": "vf_receive_broadcast_packets_total",
    "multicast": "vf_receive_multicast_packets_total",
    "rx_dropped": "vf_receive_dropped_packets_total",
    "tx_dropped": "vf_transmit_dropped_packets_total",
}
SERIES = re.compile(r'^(sriov_persist_[a-z_]+)(?:\{(.*)\})? (\S+)$')
LABEL = re.compile(r'([a-z_]+)="((?:[^"\\]|\\.)*)",?')


def parse(text):
    """{name: [(labels, value)]} of every series; HELP and TYPE once per family, before it."""
    series, types = {}, {}
    for line in text.splitlines():
        if line.startswith("# HELP "):
            name = line.split()[2]
            assert name not in types, f"{name} told twice"
            types[name] = None
        elif line.startswith("# TYPE "):
            _, _, name, kind = line.split()
            types[name] = kind
        else:
            m = SERIES.match(line)
            assert m, f"not a series: {line!r}"
            assert m.group(1) in types, f"{m.group(1)} has no HELP"
            labels = dict(LABEL.findall(m.group(2) or ""))
            series.setdefault(m.group(1), []).append((labels, float(m.group(3))))
    return series, types


def value(series, name, **labels):
    found = [v for ls, v in series.get("sriov_persist_" + name, [])
             if all(ls.get(k) == want for k, want in labels.items())]
    assert len(found) == 1, f"{name} {labels}: {found}"
    return found[0]


def promtool_check(text):
    promtool = shutil.which("promtool")
    assert promtool, "promtool is not installed (Debian's prometheus: scripts/install-deps)"
    r = subprocess.run([promtool, "check", "metrics"], input=text, capture_output=True, text=True,
                       timeout=60)
    assert r.returncode == 0 and r.stdout == "" and r.stderr == "", r.stdout + r.stderr


@pytest.fixture
def e810(make_host):
    """The E810 with 4 VFs on its first port (VFs 0-1 in resource e810_net, VF 3 on vfio-pci)
    and counters on VFs 0 and 3, none on its second port."""
    h = make_host("e810.json")
    h.layout("50-e810.conf", f"[Match]\nPCIAddress={E810_0}\n[PhysicalFunction]\n"
             "VirtualFunctions=4\n[VirtualFunction 0-1]\nResourceName=e810_net\n"
             "[VirtualFunction 3]\nDriver=vfio-pci\n")
    r = h.run("apply")
    assert r.returncode == 0, r.stdout + r.stderr

    def counters(s):
        vfs = h.pf_of(s, E810_0)["vfs"]
        assert all(vf["stats"] == dict.fromkeys(VF_COUNTERS, 0) for vf in vfs)  # new VFs
        vfs[0]["stats"] = {k: 1000 + i for i, k in enumerate(VF_COUNTERS)}
        vfs[0]["stats"]["rx_bytes"] = 987654321012
        vfs[3]["stats"]["tx_packets"] = 42
    h.edit(counters)
    return h


def test_vf_counters_and_labels_come_from_the_snapshot_and_layouts(e810):
    r = e810.run("metrics")
    assert r.returncode == 0 and r.stderr == "", r.stderr
    series, types = parse(r.stdout)
    vf0 = dict(pf="ens1f0", pf_pci=E810_0, vf="0", vf_pci="0000:3b:01.0", driver="iavf",
               resource="e810_net", numa_node="0")
    assert value(series, "vf_receive_bytes_total", **vf0) == 987654321012
    for i, (key, name) in enumerate(VF_COUNTERS.items()):
        assert types["sriov_persist_" + name] == "counter"
        if key != "rx_bytes":
            assert value(series, name, **vf0) == 1000 + i
    # the PF driver counts for a VF on vfio-pci too; VF 3 has no resource
    assert value(series, "vf_transmit_packets_total", vf="3", vf_pci="0000:3b:01.3",
                 driver="vfio-pci", resource="") == 42
    assert len(series["sriov_persist_vf_receive_bytes_total"]) == 4
    promtool_check(r.stdout)


def test_pf_state_counts_and_last_apply(e810):
    series, types = parse(e810.run("metrics").stdout)
    one = dict(pf="ens1f0", pf_pci=E810_0)
    assert value(series, "pf_state", state="applied", **one) == 1
    assert value(series, "pf_state", state="failed", **one) == 0
    assert value(series, "pf_state", state="unconfigured", pf_pci=E810_1) == 1
    assert value(series, "pf_vfs_wanted", **one) == 4
    assert value(series, "pf_vfs_present", **one) == 4
    assert value(series, "pf_vfs_supported", **one) == 128
    assert value(series, "pf_vfs_present", pf_pci=E810_1) == 0
    assert not [ls for ls, _ in series["sriov_persist_pf_vfs_wanted"] if ls["pf_pci"] == E810_1]
    assert value(series, "pf_info", driver="ice", link_type="ethernet", eswitch_mode="legacy",
                 numa_node="0", **one) == 1
    assert value(series, "pf_reboot_pending", **one) == 0
    record = e810.run("status", "--json", E810_0).stdout
    last = json.loads(record)["pfs"][0]["last_apply"]
    assert value(series, "pf_last_apply_actions", **one) == last["actions"]
    assert value(series, "pf_last_apply_timestamp_seconds", **one) == last["finished_usec"] / 1e6
    assert value(series, "pf_last_apply_duration_seconds", **one) == pytest.approx(
        (last["finished_usec"] - last["started_usec"]) / 1e6, abs=1e-6)
    assert types["sriov_persist_pf_state"] == "gauge"


def test_one_pf_by_name(e810):
    r = e810.run("metrics", "ens1f1")
    assert r.returncode == 0, r.stderr
    series, _ = parse(r.stdout)
    assert {ls["pf_pci"] for s in series.values() for ls, _ in s if ls} == {E810_1}
    assert "sriov_persist_vf_receive_bytes_total" not in series
    r = e810.run("metrics", "ens9")
    assert r.returncode == 1 and r.stdout == "" and r.stderr == "No PF 'ens9' on this host\n"


def test_a_driver_without_counters_has_no_vf_series(make_host):
    h = make_host("igb-82576.json")
    h.layout("50-igb.conf", "[Match]\nDriver=igb\n[PhysicalFunction]\nVirtualFunctions=2\n")
    assert h.run("apply").returncode == 0
    assert all("stats" not in vf for p in h.state()["pfs"] for vf in p["vfs"])
    r = h.run("metrics")
    series, types = parse(r.stdout)
    assert types["sriov_persist_vf_receive_bytes_total"] == "counter"
    assert [n for n in series if n.startswith("sriov_persist_vf_")] == ["sriov_persist_vf_info"]
    # no NUMA node: an empty label
    assert value(series, "pf_info", pf="enp1s0f0", driver="igb", numa_node="") == 1
    assert value(series, "pf_vfs_present", pf="enp1s0f0") == 2
    promtool_check(r.stdout)


def test_every_vf_has_an_info_series_with_its_resource(make_host):
    """sriov_persist_vf_info: every VF present, counters or not (igb has none), with the
    ResourceName= the layout gives it."""
    h = make_host("igb-82576.json")
    h.layout("50-igb.conf", "[Match]\nDriver=igb\n[PhysicalFunction]\nVirtualFunctions=2\n"
             "[VirtualFunction 1]\nResourceName=igb_net\n")
    assert h.run("apply").returncode == 0
    r = h.run("metrics")
    series, types = parse(r.stdout)
    assert types["sriov_persist_vf_info"] == "gauge"
    infos = [ls for ls, v in series["sriov_persist_vf_info"] if v == 1]
    on_pf = sorted((ls["vf"], ls["resource"]) for ls in infos if ls["pf"] == "enp1s0f0")
    assert on_pf == [("0", ""), ("1", "igb_net")], infos
    vf1 = next(ls for ls in infos if ls["pf"] == "enp1s0f0" and ls["vf"] == "1")
    assert vf1["vf_pci"] and vf1["pf_pci"] and vf1["numa_node"] == "" and "driver" in vf1
    promtool_check(r.stdout)


def test_a_gone_pf_has_only_its_state(e810):
    """A PF gone from the host (its NIC unplugged) keeps its pf_state series (gone 1), and
    nothing else: its last apply is history."""
    e810.edit(lambda s: s.update(pfs=[p for p in s["pfs"] if p["pci"] != E810_0]))
    r = e810.run("metrics")
    series, _ = parse(r.stdout)
    assert value(series, "pf_state", state="gone", pf_pci=E810_0) == 1
    left = {n for n, ss in series.items() for ls, _ in ss if ls.get("pf_pci") == E810_0}
    assert left == {"sriov_persist_pf_state"}, left
    promtool_check(r.stdout)


def test_a_held_pf_has_no_vfs_wanted(make_host):
    """A held PF's configuration has an error, so what it wants is not known: no
    pf_vfs_wanted series (and so no SRIOVVirtualFunctionsMissing), only held 1."""
    h = make_host("cx6-vpi.json")
    h.layout("50-vpi.conf", "[Match]\nName=ens2f0np0\n[PhysicalFunction]\n"
             "LinkType=infiniband\nVirtualFunctions=4\n")
    series, _ = parse(h.run("metrics").stdout)
    assert value(series, "pf_state", state="held", pf_pci="0000:41:00.0") == 1
    assert not [ls for ls, _ in series.get("sriov_persist_pf_vfs_wanted", [])
                if ls["pf_pci"] == "0000:41:00.0"]
    # held by a main-configuration error: the same
    h.layout("50-vpi.conf", "[Match]\nPCIAddress=0000:41:00.0\n[PhysicalFunction]\n"
             "VirtualFunctions=4\n")
    h.main.write_text("[Apply]\nTimeoutSec=soon\n")
    series, _ = parse(h.run("metrics").stdout)
    assert value(series, "pf_state", state="held", pf_pci="0000:41:00.0") == 1
    assert "sriov_persist_pf_vfs_wanted" not in series


def test_pending_reboot_reasons_are_escaped_labels(make_host):
    h = make_host("cx6-vpi.json")
    h.layout("50-cx6.conf", "[Match]\nPCIAddress=0000:41:00.0\n[PhysicalFunction]\n"
             "LinkType=infiniband\n")
    h.run("apply")
    status = json.loads(h.run("status", "--json", "0000:41:00.0").stdout)
    reasons = status["pfs"][0]["pending_reboot_reasons"]
    assert reasons
    r = h.run("metrics")
    assert r.returncode == 0, r.stderr
    series, _ = parse(r.stdout)
    one = dict(pf="ens2f0np0", pf_pci="0000:41:00.0")
    assert value(series, "pf_reboot_pending", **one) == 1
    told = [ls["reason"] for ls, v in series["sriov_persist_pf_reboot_pending_info"]
            if ls["pf_pci"] == "0000:41:00.0" and v == 1]
    unescape = lambda s: re.sub(r'\\(.)', lambda m: "\n" if m.group(1) == "n" else m.group(1), s)
    assert [unescape(t) for t in told] == reasons
    promtool_check(r.stdout)


def test_root_reads_the_layouts_and_records_under_it(make_host, tmp_path):
    h = make_host("e810.json")
    conf = tmp_path / "node" / "etc" / "sriov-persist" / "conf.d"
    conf.mkdir(parents=True)
    (conf / "50.conf").write_text(f"[Match]\nPCIAddress={E810_1}\n[PhysicalFunction]\n"
                                  "VirtualFunctions=2\n")
    r = subprocess.run([h.binary, "--root", str(tmp_path / "node"), "--host", str(h.path),
                        "metrics"], capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    series, _ = parse(r.stdout)
    assert value(series, "pf_state", pf_pci=E810_1, state="pending") == 1
    assert value(series, "pf_vfs_wanted", pf_pci=E810_1) == 2
    assert value(series, "pf_state", pf_pci=E810_0, state="unconfigured") == 1
    # another node's files: nothing is said of a daemon there, not even daemon_up 0
    assert "sriov_persist_daemon_" not in r.stdout


def assert_in_manual(types):
    """sriovctl(8) documents each metric family by name, with its type."""
    manual = (Path(__file__).resolve().parents[2] / "man" / "sriovctl.8").read_text()
    for name, kind in types.items():
        entry = re.search(r"^\\fB" + name + r"\\fR(\s\(([a-z]+))?", manual, re.M)
        assert entry, f"{name} is not in sriovctl(8)"
        assert kind in (entry.group(2), "counter"), f"{name}: {kind} vs {entry.group(2)}"


def test_every_family_is_in_the_manual(e810):
    _, types = parse(e810.run("metrics").stdout)
    assert len(types) == 21  # without a daemon: daemon_up alone of its families
    assert_in_manual(types)


def test_output_replaces_the_file_atomically(e810, tmp_path):
    """--output FILE: what would be printed, in FILE (mode 0644, for node-exporter's user),
    through a temporary file renamed over it; nothing on standard output."""
    textfile = tmp_path / "node-exporter"
    textfile.mkdir()
    prom = textfile / "sriov-persist.prom"
    prom.write_text("old\n")
    r = e810.run("metrics", "--output", str(prom))
    assert r.returncode == 0 and r.stdout == "" and r.stderr == "", r.stderr
    assert prom.read_text() == e810.run("metrics").stdout
    assert prom.stat().st_mode & 0o777 == 0o644
    assert [p.name for p in textfile.iterdir()] == ["sriov-persist.prom"]
    promtool_check(prom.read_text())
    r = e810.run("metrics", "--output", str(tmp_path / "none" / "x.prom"))
    assert r.returncode == 1 and r.stdout == ""
    assert r.stderr == f"Writing {tmp_path}/none/x.prom failed: No such file or directory\n"


def test_the_metrics_units_write_into_node_exporters_directory(e810, tmp_path):
    """sriov-persist-metrics.service runs its ExecStart= into METRICS_DIR, which it may write
    (ReadWritePaths=); the timer is disabled by the preset until an operator enables it."""
    units = Path(__file__).resolve().parents[2] / "units"
    service = (units / "sriov-persist-metrics.service").read_text()
    env = dict(re.findall(r"^Environment=([A-Z_]+)=(\S+)$", service, re.M))
    assert env == {"METRICS_DIR": "/var/lib/prometheus/node-exporter"}
    assert re.findall(r"^ReadWritePaths=-(\S+)$", service, re.M) == [env["METRICS_DIR"]]
    argv = re.search(r"^ExecStart=(.*)$", service, re.M).group(1).split()
    assert argv[0] == "/usr/sbin/sriovctl"
    out = tmp_path / "textfile"
    out.mkdir()
    argv = [a.replace("${METRICS_DIR}", str(out)) for a in argv[1:]]
    r = e810.run(*argv)
    assert r.returncode == 0, r.stderr
    promtool_check((out / "sriov-persist.prom").read_text())
    timer = (units / "sriov-persist-metrics.timer").read_text()
    assert "\n[Install]\nWantedBy=timers.target\n" in timer
    assert re.search(r"^OnUnitActiveSec=60s$", timer, re.M)
    preset = (units / "80-sriov-persist.preset").read_text().splitlines()
    assert "disable sriov-persist-metrics.timer" in preset


RULES = Path(__file__).resolve().parents[2] / "packaging" / "prometheus"


def test_the_alerting_rules_check_and_pass_their_tests():
    """packaging/prometheus: promtool check rules, and promtool test rules on its tests."""
    promtool = shutil.which("promtool")
    assert promtool, "promtool is not installed (Debian's prometheus: scripts/install-deps)"
    for args in (["check", "rules", "sriov-persist.rules.yml"],
                 ["test", "rules", "sriov-persist.rules.test.yml"]):
        r = subprocess.run([promtool, *args], cwd=RULES, capture_output=True, text=True,
                           timeout=120)
        assert r.returncode == 0, r.stdout + r.stderr
        assert "SUCCESS" in r.stdout
