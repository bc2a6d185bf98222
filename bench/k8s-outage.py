#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""A fleet through an API server outage: many sriov-persistd on one Kubernetes API test server.

Starts --nodes daemons (env SRIOVPERSISTD and K8S_NOTIFY, default build/plain/...), each on its
own simulated host (the e810 fixture with 4 VFs applied) and its own private system bus, all
against one API test server (tests/k8s/apiserver.py) as the account of packaging/k8s/rbac.yaml,
with MaxParallelNodes=--slots. Once every node has published its state, the server goes down
(connections refused), every node's layout asks for 8 VFs (a drain each), and after
--down-seconds the server comes back. Measured:
  - during the outage: k8s-notify runs of all nodes (most in one second, per node in the last
    60 s), through a wrapper that logs each run;
  - after it: the requests the server answered per second (peak of any second, mean until the
    last node finished) and the time until every node had applied its change and given back
    its slot and cordon (or how many never did).
Run it at two builds to compare (--daemon, --k8s-notify). Prints a summary, and JSON with
--json FILE. Needs root (the buses), about 20 MiB of memory per node.
"""

import argparse
import json
import os
import resource
import shutil
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests" / "integration"))
sys.path.append(str(ROOT / "tests" / "k8s"))  # after: both have a conftest

from apiserver import ApiServer, write_kubeconfig  # noqa: E402
from conftest import Bus, Daemon, Host  # noqa: E402
from rbacfile import LEASE_NAMESPACE  # noqa: E402
from test_rbac import GROUPS, USER, load_permissions  # noqa: E402
from test_rbac import grant as grant_permissions  # noqa: E402

PCI = "0000:3b:00.0"
RES = "intel.com/e810_vf"
TOKEN = "sriov-persist-bench-token"
LOGIND_BUS_CONF = ROOT / "tests" / "integration" / "dbus" / "system-logind.conf"
LAYOUT = ("[Match]\nPCIAddress=" + PCI + "\n[PhysicalFunction]\nVirtualFunctions={n}\n"
          "[VirtualFunction]\nVLANId=10\nResourceName=e810_vf\n")
WRAPPER = """#!/bin/sh
echo "$(date +%s.%N) {node} $*" >> {log}
exec {real} "$@"
"""


def node_name(i):
    return f"gpu-worker-{i:03d}"


class Node:
    def __init__(self, i, base, srv, kubeconfig, args):
        self.i, self.name = i, node_name(i)
        self.dir = base / self.name
        self.dir.mkdir()
        self.host = Host(self.dir, "e810.json", args.sriovctl)
        self.host.main.write_text(
            "[Apply]\nSysfsWriteTimeoutSec=1\n[Disruption]\nPolicy=drain\n[Reboot]\n"
            f"Policy=never\n[Kubernetes]\nEnabled=yes\nKubeconfig={kubeconfig}\n"
            f"NodeName={self.name}\nDrainTimeoutSec=5\nMaxParallelNodes={args.slots}\n")
        self.host.layout("50-e810.conf", LAYOUT.format(n=4))
        r = self.host.run("apply", env={"DBUS_SYSTEM_BUS_ADDRESS": "unix:path=/nonexistent"})
        assert r.returncode == 0, r.stdout + r.stderr
        wrapper = self.dir / "k8s-notify"
        wrapper.write_text(WRAPPER.format(node=self.name, log=args.runlog, real=args.k8s_notify))
        wrapper.chmod(0o755)
        self.notify = wrapper
        srv.add_node(self.name, allocatable={RES: 4})
        srv.add_pod("default", f"job-{self.name}", self.name, owner_kind="ReplicaSet",
                    requests={RES: 1}, grace=30)
        srv.add_device_plugin("kube-system", {"app": "sriovdp"}, self.name,
                              allocatable_after={RES: 8})
        self.bus = self.daemon = None

    def start(self, binary):
        self.bus = Bus(LOGIND_BUS_CONF)
        self.daemon = Daemon(binary, self.host, self.bus, ["--k8s-notify", str(self.notify)])
        self.daemon.start(timeout=120)

    def change(self, n):
        tmp = self.dir / ".50-e810.conf.new"
        tmp.write_text(LAYOUT.format(n=n))
        os.rename(tmp, self.host.confdir / "50-e810.conf")

    def done(self, srv):
        """Applied, and the node and its slot given back."""
        try:
            vfs = self.host.pf(PCI)["num_vfs"]
        except (ValueError, OSError):
            return False
        node = srv.get("node", None, self.name)
        return vfs == 8 and not node["spec"].get("unschedulable")

    def stop(self):
        if self.daemon and self.daemon.running():
            self.daemon.proc.terminate()
            try:
                self.daemon.proc.wait(timeout=30)
            except Exception:
                self.daemon.proc.kill()
        if self.bus:
            self.bus.stop()


VERBS = ("cordon", "uncordon", "drain", "restart-device-plugin", "lease", "annotate",
         "credentials")


def runs_between(log, t0, t1):
    """[(time, node, verb)] of the runs started between t0 and t1."""
    out = []
    for line in log.read_text().splitlines() if log.exists() else []:
        t, node, *args = line.split()
        if t0 <= float(t) < t1:
            out.append((float(t), node, next((a for a in args if a in VERBS), "?")))
    return out


def per_second(times, t0, t1):
    bins = [0] * max(1, int(t1 - t0) + 1)
    for t in times:
        if t0 <= t < t1:
            bins[int(t - t0)] += 1
    return bins


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--nodes", type=int, default=200)
    p.add_argument("--slots", type=int, default=16)
    p.add_argument("--down-seconds", type=float, default=150)
    p.add_argument("--give-up-seconds", type=float, default=600,
                   help="how long to wait after the outage for every node")
    p.add_argument("--daemon", default=os.environ.get(
        "SRIOVPERSISTD", str(ROOT / "build/plain/sriov-persistd")))
    p.add_argument("--k8s-notify", default=os.environ.get(
        "K8S_NOTIFY", str(ROOT / "build/plain/k8s-notify")))
    p.add_argument("--sriovctl", default=os.environ.get(
        "SRIOVCTL", str(ROOT / "build/plain/sriovctl")))
    p.add_argument("--label", default="")
    p.add_argument("--json")
    args = p.parse_args()

    # 200 daemons on one machine: inotify instances for each (a real node has one), and the
    # server's connections; both put back at the end
    inotify = Path("/proc/sys/fs/inotify/max_user_instances")
    inotify_was = inotify.read_text()
    inotify.write_text(str(max(int(inotify_was), 16 * args.nodes + 256)))
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    try:
        run(args)
    finally:
        inotify.write_text(inotify_was)


def run(args):
    base = Path(tempfile.mkdtemp(prefix="sriov-outage-"))
    args.runlog = base / "runs.log"
    srv = ApiServer(base / "apiserver").start()
    srv.add_token(TOKEN, USER, GROUPS)
    grant_permissions(srv, load_permissions())
    srv.add_namespace(LEASE_NAMESPACE)
    kubeconfig = write_kubeconfig(base / "kubeconfig", srv.url, srv.ca_path, token=TOKEN)
    nodes = []
    result = {"label": args.label, "nodes": args.nodes, "slots": args.slots,
              "down_seconds": args.down_seconds}
    try:
        for i in range(args.nodes):
            nodes.append(Node(i, base, srv, kubeconfig, args))
        for n in nodes:
            n.start(args.daemon)
        # settled: every node annotated, nothing asked for a while
        deadline = time.monotonic() + 300
        while time.monotonic() < deadline:
            annotated = sum(1 for n in nodes if (srv.get("node", None, n.name)["metadata"]
                                                 .get("annotations") or {})
                            .get("sriov-persist.io/state"))
            if annotated == len(nodes):
                break
            time.sleep(1)
        time.sleep(3)
        print(f"{len(nodes)} nodes up, {annotated} annotated", flush=True)

        srv.set_down(True)
        down = time.time()
        for n in nodes:
            n.change(8)
        time.sleep(args.down_seconds)
        srv.set_down(False)
        up = time.time()
        print(f"server back after {up - down:.0f} s", flush=True)
        outage = runs_between(args.runlog, down, up)
        starts = [t for t, _, _ in outage]
        per_node_last60 = {}
        for t, node, _ in outage:
            if t >= up - 60:
                per_node_last60[node] = per_node_last60.get(node, 0) + 1
        verbs = {}
        for _, _, v in outage:
            verbs[v] = verbs.get(v, 0) + 1
        result["outage"] = {
            "runs": len(outage),
            "runs_per_node": round(len(outage) / len(nodes), 1),
            "runs_per_second_peak": max(per_second(starts, down, up)),
            "runs_per_node_last_60s_max": max(per_node_last60.values(), default=0),
            "verbs": dict(sorted(verbs.items())),
        }

        finished = {}
        give_up = up + args.give_up_seconds
        while time.time() < give_up and len(finished) < len(nodes):
            for n in nodes:
                if n.name not in finished and n.done(srv):
                    finished[n.name] = time.time() - up
            time.sleep(0.5)
        end = time.time()
        last = max(finished.values()) if len(finished) == len(nodes) else None
        window_end = up + last if last is not None else end
        answered = [r["time"] for r in srv.requests if up <= r["time"] < window_end + 1]
        bins = per_second(answered, up, window_end)
        result["after"] = {
            "nodes_finished": len(finished),
            "seconds_until_all_finished": round(last, 1) if last is not None else None,
            "seconds_until_half_finished": round(sorted(finished.values())[len(nodes) // 2 - 1], 1)
            if len(finished) >= len(nodes) // 2 else None,
            "requests": len(answered),
            "requests_per_second_peak": max(bins),
            "requests_per_second_mean": round(len(answered) / max(1.0, window_end - up), 1),
            "requests_first_10s": sum(bins[:10]),
            "leases_held_max": srv.leases_held_max("sriov-persist-slot-"),
        }
    finally:
        for n in nodes:
            n.stop()
        srv.stop()
        shutil.rmtree(base, ignore_errors=True)
    print(json.dumps(result, indent=2))
    if args.json:
        Path(args.json).write_text(json.dumps(result, indent=2) + "\n")


if __name__ == "__main__":
    main()
