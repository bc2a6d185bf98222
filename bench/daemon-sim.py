#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""sriov-persistd's footprint on a simulated host, on a private system bus.

Starts dbus-daemon (tests/integration/dbus/system.conf) and the daemon (env SRIOVPERSISTD, default
build/plain/sriov-persistd) on a copy of a fixture host with a layout applied, then measures
  - idle RSS: VmRSS from /proc/PID/status after settling, and RSS, PSS and private memory
    (Private_Clean + Private_Dirty) from /proc/PID/smaps_rollup;
  - idle wakeups: voluntary + nonvoluntary context switches of all its threads over --idle-seconds,
    and (when strace is installed) the system calls it makes over a second interval as long;
  - bus calls: the daemon's CPU time per Plan() and per GetStatus() call once every PF of the
    host has --call-vfs VFs;
  - drift latency: from the rename() that puts a drifted host file in place to the DriftDetected
    signal arriving here, over --drifts changes ([Drift] Mode=repair: each change is repaired,
    Applied(pci, 0), before the next one).
Prints a table, then the results as JSON (also to --json FILE). Run as root (make bench or
/usr/bin/python3 bench/daemon-sim.py --idle-seconds 5 for a quick run).
"""

import argparse
import fcntl
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests" / "integration"))

from benchlib import smaps_memory  # noqa: E402
from conftest import Bus, Client, Daemon, Host  # noqa: E402

MAIN = "[Apply]\nSysfsWriteTimeoutSec=5\n[Drift]\nMode=repair\n[Disruption]\nPolicy=immediate\n" \
       "[Reboot]\nPolicy=never\n"
LAYOUT = """[Match]
PCIAddress={pci}

[PhysicalFunction]
VirtualFunctions={vfs}

[VirtualFunction]
MACAddress=stable
VLANId=100
Trust=yes
"""


def proc_status(pid):
    """/proc/PID/status as a dict of strings."""
    out = {}
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        k, _, v = line.partition(":")
        out[k] = v.strip()
    return out


def rss_kib(pid):
    return int(proc_status(pid)["VmRSS"].split()[0])


def context_switches(pid):
    """(voluntary, nonvoluntary) summed over the process's threads."""
    vol = nonvol = 0
    for task in Path(f"/proc/{pid}/task").iterdir():
        try:
            s = proc_status(f"{pid}/task/{task.name}")
        except FileNotFoundError:
            continue
        vol += int(s["voluntary_ctxt_switches"])
        nonvol += int(s["nonvoluntary_ctxt_switches"])
    return vol, nonvol


def count_syscalls(pid, seconds):
    """System calls of pid (all threads) over seconds, from strace -c; None without strace."""
    strace = shutil.which("strace")
    if not strace:
        return None
    with tempfile.NamedTemporaryFile("r", suffix=".strace") as out:
        p = subprocess.Popen([strace, "-c", "-f", "-q", "-o", out.name, "-p", str(pid)],
                             stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        time.sleep(seconds)  # the measurement interval itself
        p.terminate()
        _, err = p.communicate(timeout=30)
        text = out.read()
    calls = {}
    for line in text.splitlines():
        m = re.match(r"\s*[\d.]+\s+[\d.]+\s+\d+\s+(\d+)\s+(?:\d+\s+)?(\w+)\s*$", line)
        if m and m.group(2) != "total":
            calls[m.group(2)] = int(m.group(1))
    if not calls and "Operation not permitted" in err:
        return None
    return calls


def percentile(values, q):
    s = sorted(values)
    k = (len(s) - 1) * q
    lo, hi = int(k), min(int(k) + 1, len(s) - 1)
    return s[lo] + (s[hi] - s[lo]) * (k - lo)


def measure_drift(host, client, pci, count, vfs):
    """Latencies in ms from rename() of a drifted host file to DriftDetected."""
    latencies = []
    for i in range(count):
        state = host.state()
        pf = host.pf_of(state, pci)
        pf["vfs"][i % vfs]["mac"] = f"02:be:9c:00:{i // 256:02x}:{i % 256:02x}"
        tmp = host.path.with_name(host.path.name + ".tmp")
        tmp.write_text(json.dumps(state, indent=2) + "\n")
        mark = client.mark()
        with open(host.path, "rb") as old:
            fcntl.flock(old, fcntl.LOCK_EX)
            t0 = time.monotonic()
            os.rename(tmp, host.path)
        sig = client.wait_signal("DriftDetected", mark, pci=pci, timeout=30)
        latencies.append((sig.time - t0) * 1000)
        result = client.wait_applied(pci, client.signals.index(sig), timeout=60)
        if result != 0:
            raise RuntimeError(f"repair of drift {i} gave Applied({pci}, {result})")
    return latencies


def cpu_seconds(pid):
    """User + system CPU time of the process so far (/proc/PID/stat, clock ticks)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def measure_calls(host, client, daemon, vfs, calls):
    """Daemon CPU per Plan() and per GetStatus() call with every PF of the host at vfs VFs."""
    for i, pf in enumerate(host.state()["pfs"]):
        host.layout(f"50-bench-{i}.conf", LAYOUT.format(pci=pf["pci"], vfs=vfs))
    host.confdir.joinpath("50-bench.conf").unlink()
    time.sleep(1)  # the layout directory is quiet: the daemon reads it once
    mark = client.mark()
    client.call("Apply", "")
    for pf in host.state()["pfs"]:
        if client.wait_applied(pf["pci"], mark, timeout=120) != 0:
            raise RuntimeError(f"the layout did not apply:\n{daemon.log_text()}")
    time.sleep(1)
    client.pump()
    out = {"pfs": len(host.state()["pfs"]), "vfs_per_pf": vfs}
    for method in ("Plan", "GetStatus"):
        before = cpu_seconds(daemon.proc.pid)
        t0 = time.monotonic()
        for _ in range(calls):
            client.call(method)
        wall = time.monotonic() - t0
        out[method] = {"calls": calls,
                       "daemon_cpu_ms_per_call": round((cpu_seconds(daemon.proc.pid) - before)
                                                       * 1000 / calls, 2),
                       "wall_ms_per_call": round(wall * 1000 / calls, 2)}
    return out


def run(args):
    binary = args.daemon or os.environ.get("SRIOVPERSISTD") or str(ROOT / "build/plain/sriov-persistd")
    if not os.access(binary, os.X_OK):
        sys.exit(f"{binary} is not built: make BUILDDIR=build/plain all")
    work = Path(tempfile.mkdtemp(prefix="sriov-bench-"))
    bus = Bus()
    client = daemon = None
    try:
        host = Host(work, args.fixture, None)
        host.main.write_text(MAIN)
        pci = host.state()["pfs"][0]["pci"]
        host.layout("50-bench.conf", LAYOUT.format(pci=pci, vfs=args.vfs))
        client = Client(bus.address)
        daemon = Daemon(binary, host, bus)
        t = time.monotonic()
        daemon.start()
        ready_s = time.monotonic() - t
        pid = daemon.proc.pid

        mark = client.mark()
        client.call("Apply", "")
        if client.wait_applied(pci, mark, timeout=60) != 0:
            raise RuntimeError(f"the layout did not apply:\n{daemon.log_text()}")
        # settle: nothing is expected to happen any more; let the kernel and allocator quiesce
        time.sleep(args.settle_seconds)
        client.pump()
        rss_idle = rss_kib(pid)
        mem_idle = smaps_memory(Path(f"/proc/{pid}/smaps_rollup").read_text())

        before = context_switches(pid)
        time.sleep(args.idle_seconds)  # the idle interval being measured
        after = context_switches(pid)
        vol, nonvol = after[0] - before[0], after[1] - before[1]
        syscalls = None if args.no_strace else count_syscalls(pid, args.idle_seconds)

        lat = measure_drift(host, client, pci, args.drifts, args.vfs)
        time.sleep(args.settle_seconds)
        rss_after = rss_kib(pid)
        calls = measure_calls(host, client, daemon, args.call_vfs, args.calls)
        daemon.stop()
        daemon = None
    finally:
        if daemon and daemon.running():
            daemon.proc.kill()
            daemon.proc.wait()
        if client:
            client.close()
        bus.stop()
        if not args.keep:
            shutil.rmtree(work, ignore_errors=True)

    return {
        "daemon": binary,
        "fixture": args.fixture,
        "pf": pci,
        "vfs": args.vfs,
        "ready_seconds": round(ready_s, 3),
        "idle_rss_kib": rss_idle,
        "idle_memory_kib": mem_idle,
        "rss_after_drifts_kib": rss_after,
        "idle_seconds": args.idle_seconds,
        "idle_context_switches": {"voluntary": vol, "nonvoluntary": nonvol, "total": vol + nonvol,
                                  "per_minute": round((vol + nonvol) * 60 / args.idle_seconds, 1)},
        "idle_syscalls": None if syscalls is None else
        {"total": sum(syscalls.values()), "by_name": syscalls},
        "bus_calls": calls,
        "drift_latency_ms": {"count": len(lat), "median": round(statistics.median(lat), 2),
                             "p95": round(percentile(lat, 0.95), 2), "min": round(min(lat), 2),
                             "max": round(max(lat), 2)},
    }


def table(r):
    rows = [
        ("daemon", r["daemon"]),
        ("host", f"{r['fixture']}, {r['pf']} with {r['vfs']} VFs"),
        ("start to READY=1", f"{r['ready_seconds']:.3f} s"),
        ("idle RSS", f"{r['idle_rss_kib']} KiB"),
        ("idle RSS / PSS / private (dirty)",
         " / ".join(f"{r['idle_memory_kib'][k] / 1024:.2f}" for k in ("rss", "pss", "private"))
         + f" ({r['idle_memory_kib']['private_dirty'] / 1024:.2f}) MiB"),
        ("RSS after drift runs", f"{r['rss_after_drifts_kib']} KiB"),
        (f"context switches / {r['idle_seconds']:g} s idle",
         f"{r['idle_context_switches']['total']} ({r['idle_context_switches']['voluntary']} vol, "
         f"{r['idle_context_switches']['nonvoluntary']} nonvol)"),
        (f"syscalls / {r['idle_seconds']:g} s idle",
         "n/a (no strace)" if r["idle_syscalls"] is None else str(r["idle_syscalls"]["total"])),
        (f"drift latency ({r['drift_latency_ms']['count']} changes)",
         f"median {r['drift_latency_ms']['median']:.2f} ms, p95 {r['drift_latency_ms']['p95']:.2f} ms, "
         f"max {r['drift_latency_ms']['max']:.2f} ms"),
    ]
    b = r["bus_calls"]
    for method in ("Plan", "GetStatus"):
        rows.append((f"{method}() on {b['pfs']} x {b['vfs_per_pf']} VFs",
                     f"{b[method]['daemon_cpu_ms_per_call']:.2f} ms daemon CPU, "
                     f"{b[method]['wall_ms_per_call']:.2f} ms round trip "
                     f"(mean of {b[method]['calls']})"))
    w = max(len(k) for k, _ in rows)
    return "\n".join(f"{k:<{w}}  {v}" for k, v in rows)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--daemon", help="sriov-persistd binary (default $SRIOVPERSISTD or "
                                     "build/plain/sriov-persistd)")
    ap.add_argument("--fixture", default="e810.json", help="host in tests/fixtures/hosts/")
    ap.add_argument("--vfs", type=int, default=16, help="VFs in the layout (default 16)")
    ap.add_argument("--idle-seconds", type=float, default=60, help="idle interval (default 60)")
    ap.add_argument("--settle-seconds", type=float, default=2, help="before reading RSS (default 2)")
    ap.add_argument("--drifts", type=int, default=50, help="drift changes timed (default 50)")
    ap.add_argument("--call-vfs", type=int, default=128,
                    help="VFs on every PF while Plan() and GetStatus() are timed (default 128)")
    ap.add_argument("--calls", type=int, default=100, help="calls of each timed (default 100)")
    ap.add_argument("--no-strace", action="store_true", help="do not count system calls")
    ap.add_argument("--json", metavar="FILE", help="also write the results there")
    ap.add_argument("--keep", action="store_true", help="keep the work directory")
    args = ap.parse_args()
    if os.geteuid() != 0:
        sys.exit("run as root: the daemon owns org.sriovpersist1 on a system-type bus")
    r = run(args)
    print(table(r))
    print(json.dumps(r, indent=2))
    if args.json:
        Path(args.json).write_text(json.dumps(r, indent=2) + "\n")


if __name__ == "__main__":
    main()
