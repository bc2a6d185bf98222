# SPDX-License-Identifier: LGPL-2.1-or-later
"""sriovctl metrics through Debian's real prometheus-node-exporter (installed in the image by
build-image, started only here): sriov-persist-metrics.timer, enabled after the preset left it
disabled, runs sriov-persist-metrics.service under its hardening in the real systemd; the file
it writes (mode 0644, replaced by rename on every run) is served by node-exporter's textfile
collector, read over loopback inside the guest as Prometheus would scrape it.

The igb PF's series carry real values: state "applied", the VFs the layout wants and has,
sriov_totalvfs, its last apply. igb has no ndo_get_vf_stats: the kernel sends its VFs'
IFLA_VF_STATS as zeros that count nothing, so sriovctl gives igb VFs no sriov_persist_vf_*
counter series at all (sriovctl(8), METRICS: "has no series, never a zero"). The test asserts
that absence, and each VF's sriov_persist_vf_info with the layout's ResourceName=; the simulated
host's tests (tests/integration/test_metrics.py) cover VF counters."""

import re
import time

from test_scenarios import igb_pfs, install, product  # noqa: F401

VFS = 3
LAYOUT = f"""[Match]
Vendor=0x8086
Device=0x10c9
Driver=igb

[PhysicalFunction]
VirtualFunctions={VFS}

[VirtualFunction 0-1]
ResourceName=pods
"""
PROM = "/var/lib/prometheus/node-exporter/sriov-persist.prom"
SERVICE = "sriov-persist-metrics.service"
TIMER = "sriov-persist-metrics.timer"
# the interval an operator sets with `systemctl edit` (sriovctl(8), FILES), short here so that
# the test sees the timer write the file again; without OnActiveSec=0 (which the empty line
# clears) systemd 252 ran the service once and never again
TIMER_DROPIN = "[Timer]\nOnUnitActiveSec=\nOnActiveSec=0\nOnUnitActiveSec=2s\n"
SAMPLE = re.compile(r'^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$')
LABEL = re.compile(r'([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)",?')


def samples(text):
    """{(name, frozenset(labels)): value} of every sample in an exposition text."""
    out = {}
    for line in text.splitlines():
        if not line or line.startswith("#"):
            continue
        m = SAMPLE.match(line)
        assert m, f"not a sample: {line!r}"
        key = (m.group(1), frozenset(LABEL.findall(m.group(2) or "")))
        assert key not in out, f"twice: {line!r}"
        out[key] = float(m.group(3))
    return out


def ours(found):
    return {k: v for k, v in found.items() if k[0].startswith("sriov_persist_")}


def one(found, name, **labels):
    hits = [v for (n, ls), v in found.items()
            if n == name and all(dict(ls).get(k) == want for k, want in labels.items())]
    assert len(hits) == 1, f"{name} {labels}: {hits}"
    return hits[0]


def scrape(vm, name):
    """node-exporter's /metrics over loopback (bash's /dev/tcp: the guest has no curl),
    written to the share; returns the body after checking the status line."""
    vm.check("exec 3<>/dev/tcp/127.0.0.1/9100 && "
             "printf 'GET /metrics HTTP/1.0\\r\\nHost: localhost\\r\\n\\r\\n' >&3 && "
             f"cat <&3 >/mnt/share/{name}", timeout=120)
    with open(f"{vm.share}/{name}", newline="") as f:
        head, _, body = f.read().partition("\r\n\r\n")
    assert head.startswith("HTTP/1.0 200 ") or head.startswith("HTTP/1.1 200 "), head
    return samples(body)


def file_state(vm):
    """(inode and mtime, mode, owner) of the metrics file."""
    ino, when, mode, owner = vm.check(f"stat -c '%i %.9Y %a %U' {PROM}").split()
    return f"{ino} {when}", mode, owner


def assert_served(found, pci, ifname, sysfs_numa):
    pf = {"pf": ifname, "pf_pci": pci}
    for state in ("unconfigured", "pending", "applied", "drifted", "degraded", "deferred",
                  "held", "failed", "gone"):
        want = 1 if state == "applied" else 0
        assert one(found, "sriov_persist_pf_state", **pf, state=state) == want, state
    assert one(found, "sriov_persist_pf_info", **pf, driver="igb", link_type="ethernet",
               eswitch_mode="", numa_node="" if sysfs_numa < 0 else str(sysfs_numa)) == 1
    assert one(found, "sriov_persist_pf_vfs_wanted", **pf) == VFS
    assert one(found, "sriov_persist_pf_vfs_present", **pf) == VFS
    assert one(found, "sriov_persist_pf_vfs_supported", **pf) == 7
    assert one(found, "sriov_persist_pf_pending_actions", **pf) == 0
    assert one(found, "sriov_persist_pf_reboot_pending", **pf) == 0
    assert one(found, "sriov_persist_pf_last_apply_actions", **pf) > 0
    assert 0 < one(found, "sriov_persist_pf_last_apply_duration_seconds", **pf) < 120
    # igb reports no VF counters: no series, never a zero (sriovctl(8)); each VF has its
    # vf_info, which carries the layout's ResourceName=
    counters = sorted(n for n, _ in ours(found) if n.startswith("sriov_persist_vf_")
                      and n != "sriov_persist_vf_info")
    assert counters == [], counters
    for i in range(VFS):
        assert one(found, "sriov_persist_vf_info", **pf, vf=str(i), driver="igbvf",
                   resource="pods" if i < 2 else "") == 1, i
    assert len([k for k in found if k[0] == "sriov_persist_vf_info"]) == VFS
    assert one(found, "node_textfile_scrape_error") == 0


def mtime(found):
    """node_textfile_mtime_seconds of our file (its label is the file's name or path)."""
    hits = [v for (n, ls), v in found.items() if n == "node_textfile_mtime_seconds"
            and dict(ls).get("file", "").split("/")[-1] == "sriov-persist.prom"]
    assert len(hits) == 1, [k for k in found if k[0] == "node_textfile_mtime_seconds"]
    return hits[0]


def test_node_exporter_serves_metrics(vm, product, steps):
    status = vm.run("dpkg-query -W -f '${Status}' prometheus-node-exporter")[1]
    assert status == "install ok installed", \
        f"the image lacks Debian's prometheus-node-exporter (tests/vm/build-image): {status}"
    install(vm, product, layout=LAYOUT, consumer=False)
    (pci, ifname), = igb_pfs(vm).items()
    with steps("apply the layout"):
        vm.check(f"systemctl start sriov-persist-apply@{pci}.service", timeout=120)
        vm.wait_until(f"grep -q '\"state\": *\"applied\"' /run/sriov-persist/pf/{pci}.json", 30)
    vm.check(f"systemctl preset {TIMER}")
    assert vm.run(f"systemctl is-enabled {TIMER}")[1].strip() == "disabled"
    with steps("timer enabled until the first file"):
        with open(f"{vm.share}/interval.conf", "w") as f:
            f.write(TIMER_DROPIN)
        vm.check(f"install -D -m 0644 /mnt/share/interval.conf /etc/systemd/system/{TIMER}.d/"
                 f"interval.conf && systemctl daemon-reload && systemctl enable --now {TIMER}")
        vm.wait_until(f"test -s {PROM}", 60)
    first = file_state(vm)
    assert first[1:] == ("644", "root"), first
    with steps("node-exporter started, first scrape"):
        vm.check("systemctl start prometheus-node-exporter.service")
        vm.wait_until("exec 3<>/dev/tcp/127.0.0.1/9100", 60)
        one_ = scrape(vm, "scrape-1.txt")
    served_at = file_state(vm)[0]
    numa = int(vm.check(f"cat /sys/bus/pci/devices/{pci}/numa_node"))
    assert_served(one_, pci, ifname, numa)
    with steps("the timer writes the file again, second scrape"):
        vm.wait_until(f"test \"$(stat -c '%i %.9Y' {PROM})\" != '{served_at}'", 30)
        t0 = time.monotonic()
        two = scrape(vm, "scrape-2.txt")
        steps.add("one scrape of node-exporter's /metrics", time.monotonic() - t0)
    assert file_state(vm)[1:] == ("644", "root")
    assert_served(two, pci, ifname, numa)
    assert mtime(two) > mtime(one_), (mtime(one_), mtime(two))
    vm.check(f"systemctl stop {TIMER} && "
             f"while [ $(systemctl show -P ActiveState {SERVICE}) != inactive ]; do sleep 0.1; done")
    show = dict(line.split("=", 1) for line in vm.check(
        f"systemctl show -p Result -p ExecMainStatus {SERVICE}").split())
    assert show == {"Result": "success", "ExecMainStatus": "0"}, show
    # the rename leaves no temporary file behind
    assert vm.check(f"ls -A {PROM.rsplit('/', 1)[0]}").split() == ["sriov-persist.prom"]
    # under its hardening the service sees what root outside it sees
    vm.check(f"cp {PROM} /mnt/share/served.prom && sriovctl metrics >/mnt/share/root.prom")
    with open(f"{vm.share}/served.prom") as a, open(f"{vm.share}/root.prom") as b:
        served, unconfined = a.read(), b.read()
    assert served == unconfined
    # node-exporter serves exactly the file's series
    assert ours(two) == samples(served)
