# SPDX-License-Identifier: LGPL-2.1-or-later
"""sriov-persistd on a private system bus (tests/integration/dbus/system.conf, which includes the
shipped policy dbus/org.sriovpersist1.conf) against simulated hosts: the D-Bus API, the policy,
drift, live layout edits, layout removal, pending reboots, and sriovctl through the daemon."""

import configparser
import fcntl
import json
import os
import re
import subprocess
import sys
import time
import xml.etree.ElementTree as ET
from pathlib import Path

import dbus
import dbus.bus
import dbus.exceptions
import dbus.service
import pytest

from conftest import (BUS_CONF, BUS_NAME, MANAGER_IFACE, MANAGER_PATH, OBJMGR_IFACE, PF_IFACE,
                      PROPS_IFACE, ROOT, SANITIZER_MARKS, Bus, Client, Daemon, pf_path,
                      run_as_nobody)

VERSION = (ROOT / "VERSION").read_text().strip()
ACCESS_DENIED = "org.freedesktop.DBus.Error.AccessDenied"
NO_SUCH_PF = "org.sriovpersist1.Error.NoSuchPF"
NOT_APPLIED = "org.sriovpersist1.Error.NotApplied"
EINVAL, EBUSY, EIO, EOPNOTSUPP = 22, 16, 5, 95
# direct sriovctl runs must not find a daemon
NO_BUS = {"DBUS_SYSTEM_BUS_ADDRESS": "unix:path=/nonexistent/sriov-persist-test-bus"}

MAIN = "[Apply]\nSysfsWriteTimeoutSec=1\n[Drift]\nMode={mode}\n[Disruption]\nPolicy={policy}\n" \
       "[Reboot]\nPolicy=never\n"
LAYOUT = "[Match]\nPCIAddress={pci}\n[PhysicalFunction]\nVirtualFunctions={n}\n" \
         "[VirtualFunction]\nMACAddress=stable\nVLANId={vlan}\n"

# e810.json
E810_A, E810_B = "0000:3b:00.0", "0000:3b:00.1"
# mixed.json: ice PF with 2 VFs that exist before sriov-persist, an mlx5 and an i40e PF without VFs
MIXED_ICE, MIXED_MLX, MIXED_I40E = "0000:3b:00.0", "0000:5e:00.0", "0000:d8:00.0"
# igb-82576.json: "iommu": false
IGB_A = "0000:01:00.0"
# cx6dx.json: ConnectX-6 Dx, firmware NUM_OF_VFS 8
CX6_A = "0000:ca:00.0"

MANAGER_TYPES = {"Version": "s", "State": "s", "Drifted": "b", "PendingReboot": "b",
                 "PendingRebootReasons": "as", "ConfigErrors": "as"}
PF_TYPES = {"PCIAddress": "s", "Name": "s", "State": "s", "VirtualFunctions": "u",
            "DesiredVirtualFunctions": "u", "LastError": "s", "ConfigFiles": "as",
            "Settings": "a(ssss)", "VirtualFunctionSettings": "a(ussss)"}
PF_LISTS = ("ConfigFiles", "Settings", "VirtualFunctionSettings")
MANAGER_STATES = {"idle", "applying", "draining", "rebooting", "degraded"}
PF_STATES = {"unconfigured", "pending", "applying", "applied", "drifted", "held", "failed",
             "deferred", "degraded"}

# A D-Bus client for another process (user nobody, or root while this process serves a name):
# argv = address, JSON list of [label, destination, path, interface, member, signature, args].
CLIENT = r"""
import json, sys
import dbus, dbus.bus

def py(v):
    if isinstance(v, dbus.Boolean):
        return bool(v)
    if isinstance(v, dict):
        return {py(k): py(x) for k, x in v.items()}
    if isinstance(v, (list, tuple)):
        return [py(x) for x in v]
    if isinstance(v, str):
        return str(v)
    if isinstance(v, int):
        return int(v)
    return v

conn = dbus.bus.BusConnection(sys.argv[1])
out = {"unique_name": str(conn.get_unique_name())}
for label, dest, path, iface, member, sig, args in json.loads(sys.argv[2]):
    try:
        out[label] = {"ok": py(conn.call_blocking(dest, path, iface, member, sig, args, timeout=60))}
    except dbus.exceptions.DBusException as e:
        out[label] = {"error": e.get_dbus_name(), "message": e.get_dbus_message()}
print(json.dumps(out))
"""

# Subscribes to the Manager's signals, says "subscribed", prints the first one as JSON (10 s).
LISTENER = r"""
import json, sys
import dbus, dbus.bus
from dbus.mainloop.glib import DBusGMainLoop
from gi.repository import GLib

loop = GLib.MainLoop()
conn = dbus.bus.BusConnection(sys.argv[1], mainloop=DBusGMainLoop())
got = []

def on_signal(*args, member=None):
    got.append([str(member)] + [str(a) if isinstance(a, str) else int(a) for a in args])
    loop.quit()

conn.add_signal_receiver(on_signal, dbus_interface="org.sriovpersist1.Manager",
                         member_keyword="member")
conn.call_blocking("org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus",
                   "GetId", "", [])
print("subscribed", flush=True)
GLib.timeout_add(10000, loop.quit)
loop.run()
print(json.dumps(got[0] if got else None), flush=True)
"""


def op(label, member, *args, sig="", path=MANAGER_PATH, iface=MANAGER_IFACE, dest=BUS_NAME):
    return [label, dest, path, iface, member, sig, list(args)]


def client_process(bus, ops, nobody, pump=None):
    """Runs CLIENT in a child (as nobody or root); pump (a Client) serves this process's own
    exported objects while the child waits for replies."""
    cmd = [sys.executable, "-c", CLIENT, bus.address, json.dumps(ops)]
    if nobody:
        cmd = ["setpriv", "--reuid=nobody", "--regid=nogroup", "--clear-groups", "--", *cmd]
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if pump:
        pump.wait(lambda: p.poll() is not None, timeout=60, what="the client process")
    out, err = p.communicate(timeout=60)
    assert p.returncode == 0, err
    return json.loads(out)


def signature(v):
    """The D-Bus type of a value as dbus-python received it."""
    for cls, sig in ((dbus.Boolean, "b"), (dbus.String, "s"), (dbus.UInt32, "u"),
                     (dbus.Int32, "i"), (dbus.ObjectPath, "o")):
        if isinstance(v, cls):
            return sig
    if isinstance(v, dbus.Array):
        return "a" + v.signature
    return type(v).__name__


def main_config(h, mode="repair", policy="immediate"):
    h.main.write_text(MAIN.format(mode=mode, policy=policy))


def configured_host(make_host, fixture, layouts, mode="repair", policy="immediate"):
    """A host with layouts {pci: (n, vlan)} written as 50-<pci>.conf."""
    h = make_host(fixture)
    main_config(h, mode, policy)
    for pci, (n, vlan) in layouts.items():
        h.layout(f"50-{pci}.conf", LAYOUT.format(pci=pci, n=n, vlan=vlan))
    return h


def apply_all(c, pcis, expect=0):
    m = c.mark()
    c.call("Apply", "")
    for pci in pcis:
        assert c.wait_applied(pci, m) == expect
    return m


def drift(h, pci, vf=1, **attrs):
    """Someone changes a VF attribute behind the daemon's back (atomically, as the kernel would)."""
    def change(s):
        h.pf_of(s, pci)["vfs"][vf].update(attrs)
    return h.edit(change)


def host_matches(h, pci, n, vlan):
    pf = h.pf(pci)
    return pf["num_vfs"] == n and len(pf["vfs"]) == n and all(v["vlan"] == vlan for v in pf["vfs"])


def sync(c):
    """A round trip to the daemon: everything it did before answering is visible afterwards."""
    c.call("GetStatus")
    c.pump()


# --- the bus and the shipped policy, without the daemon ---------------------------------------

def _stand_in_class():
    class StandInService(dbus.service.Object):
        """Answers like sriov-persistd and records which calls reached it."""

        def __init__(self, conn):
            super().__init__(conn, MANAGER_PATH)
            self.calls = []

        @dbus.service.method(MANAGER_IFACE, in_signature="", out_signature="")
        def Reload(self):
            self.calls.append("Reload")

        @dbus.service.method(MANAGER_IFACE, in_signature="s", out_signature="")
        def Apply(self, pci):
            self.calls.append("Apply")

        @dbus.service.method(MANAGER_IFACE, in_signature="", out_signature="s")
        def Plan(self):
            self.calls.append("Plan")
            return '{"pfs": []}'

        @dbus.service.method(MANAGER_IFACE, in_signature="", out_signature="s")
        def GetStatus(self):
            self.calls.append("GetStatus")
            return '{"pfs": []}'

        @dbus.service.method(MANAGER_IFACE, in_signature="s", out_signature="so")
        def GetPhysicalFunction(self, name):
            self.calls.append("GetPhysicalFunction")
            return "0000:3b:00.0", dbus.ObjectPath(pf_path("0000:3b:00.0"))

        @dbus.service.method(PROPS_IFACE, in_signature="ss", out_signature="v")
        def Get(self, iface, name):
            self.calls.append("Get")
            return dbus.String("stand-in")

        @dbus.service.method(PROPS_IFACE, in_signature="s", out_signature="a{sv}")
        def GetAll(self, iface):
            self.calls.append("GetAll")
            return {"Version": dbus.String("stand-in")}

        @dbus.service.method(PROPS_IFACE, in_signature="ssv", out_signature="")
        def Set(self, iface, name, value):
            self.calls.append("Set")

        @dbus.service.method(OBJMGR_IFACE, in_signature="", out_signature="a{oa{sa{sv}}}")
        def GetManagedObjects(self):
            self.calls.append("GetManagedObjects")
            return dbus.Dictionary({}, signature="oa{sa{sv}}")

        @dbus.service.signal(MANAGER_IFACE, signature="si")
        def Applied(self, pci, result):
            pass

    return StandInService


BUS_OPS = [
    op("GetAll", "GetAll", MANAGER_IFACE, sig="s", iface=PROPS_IFACE),
    op("Get", "Get", MANAGER_IFACE, "Version", sig="ss", iface=PROPS_IFACE),
    op("GetManagedObjects", "GetManagedObjects", iface=OBJMGR_IFACE),
    op("Introspect", "Introspect", iface="org.freedesktop.DBus.Introspectable"),
    op("Plan", "Plan"),
    op("GetStatus", "GetStatus"),
    op("GetPhysicalFunction", "GetPhysicalFunction", "ens1f0", sig="s"),
    op("Reload", "Reload"),
    op("Apply", "Apply", "", sig="s"),
    op("Set", "Set", MANAGER_IFACE, "Drifted", False, sig="ssv", iface=PROPS_IFACE),
    # the interface field is optional: a bare "Reload" must not slip through the policy
    op("Reload-no-interface", "Reload", iface=None),
]
READ_OPS = {"GetAll", "Get", "GetManagedObjects", "Introspect", "Plan", "GetStatus",
            "GetPhysicalFunction"}
WRITE_OPS = {"Reload", "Apply", "Set", "Reload-no-interface"}


def test_shipped_policy_on_a_stand_in_service(system_bus, bus_client):
    c = bus_client
    svc = _stand_in_class()(c.conn)
    assert c.conn.request_name(BUS_NAME, dbus.bus.NAME_FLAG_DO_NOT_QUEUE) == \
        dbus.bus.REQUEST_NAME_REPLY_PRIMARY_OWNER

    own = op("RequestName", "RequestName", BUS_NAME, 4, sig="su", dest="org.freedesktop.DBus",
             path="/org/freedesktop/DBus", iface="org.freedesktop.DBus")
    # nobody connects and reads, but may not own the name or change anything
    r = client_process(system_bus, BUS_OPS + [own], nobody=True, pump=c)
    for label in READ_OPS:
        assert "ok" in r[label], (label, r[label])
    for label in WRITE_OPS | {"RequestName"}:
        assert r[label].get("error") == ACCESS_DENIED, (label, r[label])
        assert "Rejected" in r[label]["message"] or "not allowed" in r[label]["message"], r[label]
    assert sorted(svc.calls) == sorted(["GetAll", "Get", "GetManagedObjects", "Plan", "GetStatus",
                                        "GetPhysicalFunction"])

    # root may call everything
    svc.calls.clear()
    r = client_process(system_bus, BUS_OPS, nobody=False, pump=c)
    for label in READ_OPS | WRITE_OPS:
        assert "ok" in r[label], (label, r[label])
    assert {"Reload", "Apply", "Set"} <= set(svc.calls)


def test_nobody_is_nobody_on_the_bus(system_bus, bus_client):
    code = ("import dbus, dbus.bus, sys\n"
            "c = dbus.bus.BusConnection(sys.argv[1])\n"
            "print(int(c.call_blocking('org.freedesktop.DBus', '/org/freedesktop/DBus',"
            " 'org.freedesktop.DBus', 'GetConnectionUnixUser', 's', [c.get_unique_name()])))\n")
    r = run_as_nobody([sys.executable, "-c", code, system_bus.address])
    assert r.returncode == 0, r.stderr
    assert int(r.stdout) == 65534


def test_nobody_receives_signals(system_bus, bus_client):
    c = bus_client
    svc = _stand_in_class()(c.conn)
    c.conn.request_name(BUS_NAME, dbus.bus.NAME_FLAG_DO_NOT_QUEUE)
    p = subprocess.Popen(["setpriv", "--reuid=nobody", "--regid=nogroup", "--clear-groups", "--",
                          sys.executable, "-c", LISTENER, system_bus.address],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert p.stdout.readline().strip() == "subscribed", p.stderr.read()
        svc.Applied("0000:3b:00.0", -16)
        c.conn.flush()
        out, err = p.communicate(timeout=30)
    finally:
        if p.poll() is None:
            p.kill()
    assert json.loads(out) == ["Applied", "0000:3b:00.0", -16], err


def test_activation_file(tmp_path):
    service = ROOT / "dbus" / "org.sriovpersist1.service"
    cp = configparser.ConfigParser(interpolation=None)
    cp.optionxform = str
    cp.read_string(service.read_text())
    sect = cp["D-BUS Service"]
    assert (sect["Name"], sect["User"], sect["SystemdService"]) == \
        (BUS_NAME, "root", "sriov-persistd.service")
    assert sect["Exec"] == "/bin/false"
    # the bus itself accepts it as the activation file of org.sriovpersist1
    conf = tmp_path / "activation.conf"
    conf.write_text('<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"'
                    ' "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">\n'
                    f"<busconfig><include>{BUS_CONF}</include>"
                    f"<servicedir>{ROOT / 'dbus'}</servicedir></busconfig>\n")
    bus = Bus(conf)
    try:
        c = Client(bus.address)
        names = c.conn.call_blocking("org.freedesktop.DBus", "/org/freedesktop/DBus",
                                     "org.freedesktop.DBus", "ListActivatableNames", "", [])
        assert BUS_NAME in [str(n) for n in names]
        c.close()
    finally:
        bus.stop()


# --- the daemon: properties and objects -------------------------------------------------------

def test_manager_properties_and_types(make_host, start_daemon, bus_client):
    h = configured_host(make_host, "e810.json", {E810_A: (4, 10)})
    start_daemon(h)
    c = bus_client
    assert c.conn.name_has_owner(BUS_NAME), "READY=1 before the bus name was owned"
    apply_all(c, [E810_A])

    props = c.get_all(raw=True)
    assert set(MANAGER_TYPES) <= set(props), sorted(props)
    for name, sig in MANAGER_TYPES.items():
        assert signature(props[name]) == sig, (name, signature(props[name]))
        assert c.get(name) == c.get_all()[name]
    v = c.get_all()
    assert v["Version"] == VERSION
    assert v["State"] == "idle"
    assert (v["Drifted"], v["PendingReboot"], v["PendingRebootReasons"], v["ConfigErrors"]) == \
        (False, False, [], [])

    # introspection agrees: read-only properties of those types, methods and signals as specified
    xml = ET.fromstring(str(c.call("Introspect", iface="org.freedesktop.DBus.Introspectable")))
    iface = xml.find(f"interface[@name='{MANAGER_IFACE}']")
    assert iface is not None
    declared = {p.get("name"): (p.get("type"), p.get("access")) for p in iface.findall("property")}
    for name, sig in MANAGER_TYPES.items():
        assert declared.get(name) == (sig, "read"), (name, declared.get(name))

    def args(el, kind):
        return [(a.get("type"), a.get("direction", "in" if kind == "method" else None))
                for a in el.findall("arg")]
    methods = {m.get("name"): args(m, "method") for m in iface.findall("method")}
    assert methods.get("Reload") == []
    assert methods.get("Apply") == [("s", "in")]
    assert methods.get("Plan") == [("s", "out")]
    assert methods.get("GetStatus") == [("s", "out")]
    assert methods.get("GetPhysicalFunction") == [("s", "in"), ("s", "out"), ("o", "out")]
    signals = {s.get("name"): [a.get("type") for a in s.findall("arg")]
               for s in iface.findall("signal")}
    assert signals.get("DriftDetected") == ["s", "as"]
    assert signals.get("Applied") == ["s", "i"]
    assert xml.find(f"interface[@name='{OBJMGR_IFACE}']") is not None


def test_pf_objects(make_host, start_daemon, bus_client):
    h = configured_host(make_host, "e810.json", {E810_A: (4, 10)})
    s = h.state()
    h.pf_of(s, E810_B)["name"] = None  # no netdev: Name is ""
    h.pf_of(s, E810_B)["altnames"] = []
    h.save(s)
    start_daemon(h)
    c = bus_client
    apply_all(c, [E810_A])

    objs = c.managed_objects(raw=True)
    pf_objs = {str(p): ifaces[PF_IFACE] for p, ifaces in objs.items() if PF_IFACE in ifaces}
    assert set(pf_objs) == {pf_path(E810_A), pf_path(E810_B)}, sorted(objs)
    for path, props in pf_objs.items():
        assert set(PF_TYPES) <= set(props), sorted(props)
        for name, sig in PF_TYPES.items():
            assert signature(props[name]) == sig, (path, name, signature(props[name]))
            assert c.get(name, path, PF_IFACE) == c.call("GetAll", PF_IFACE, path=path,
                                                          iface=PROPS_IFACE)[name]
    a = c.get_all(pf_path(E810_A), PF_IFACE)
    files = a.pop("ConfigFiles")
    assert [Path(f).name for f in files] == [f"50-{E810_A}.conf"] and all(f.startswith("/")
                                                                           for f in files)
    assert {k: a[k] for k in PF_TYPES if k not in PF_LISTS} == {
        "PCIAddress": E810_A, "Name": "ens1f0", "State": "applied", "VirtualFunctions": 4,
        "DesiredVirtualFunctions": 4, "LastError": ""}
    b = c.get_all(pf_path(E810_B), PF_IFACE)
    assert {k: b[k] for k in PF_TYPES} == {
        "PCIAddress": E810_B, "Name": "", "State": "unconfigured", "VirtualFunctions": 0,
        "DesiredVirtualFunctions": 0, "LastError": "", "ConfigFiles": [], "Settings": [],
        "VirtualFunctionSettings": []}


def test_failed_apply_sets_last_error(make_host, start_daemon, bus_client):
    h = configured_host(make_host, "mixed.json", {MIXED_MLX: (3, 10), MIXED_I40E: (3, 20)})
    h.add_fault(op="set_num_vfs", pci=MIXED_MLX, errno="EIO")
    start_daemon(h)
    c = bus_client
    m = c.mark()
    with pytest.raises(dbus.exceptions.DBusException) as e:
        c.call("Apply", "")
    assert e.value.get_dbus_name() == NOT_APPLIED
    # the PF that failed, and why; not the one that was applied
    assert re.fullmatch(rf"{MIXED_MLX}: failed: .*Input/output error.*",
                        e.value.get_dbus_message()), e.value.get_dbus_message()
    assert c.wait_applied(MIXED_MLX, m) == -EIO
    assert c.wait_applied(MIXED_I40E, m) == 0
    mlx = c.get_all(pf_path(MIXED_MLX), PF_IFACE)
    assert mlx["State"] == "failed"
    assert "Input/output error" in mlx["LastError"], mlx["LastError"]
    assert c.get("State", pf_path(MIXED_I40E), PF_IFACE) == "applied"
    assert c.get("State") == "degraded"
    assert host_matches(h, MIXED_I40E, 3, 20)


# --- Plan and GetStatus are sriovctl's documents ----------------------------------------------

def test_plan_and_status_equal_sriovctl(make_host, start_daemon, bus_client):
    h = configured_host(make_host, "mixed.json", {MIXED_MLX: (3, 10)}, mode="report")
    # a held PF: VLANId out of range on line 6
    h.layout("60-held.conf", f"[Match]\nPCIAddress={MIXED_I40E}\n[PhysicalFunction]\n"
                             "VirtualFunctions=2\n[VirtualFunction]\nVLANId=5000\n")
    start_daemon(h)
    c = bus_client
    m = c.mark()
    with pytest.raises(dbus.exceptions.DBusException, match=f"{MIXED_I40E}: held: "):
        c.call("Apply", "")
    assert c.wait_applied(MIXED_MLX, m) == 0
    assert c.wait_applied(MIXED_I40E, m) == -EINVAL
    m = c.mark()
    drift(h, MIXED_MLX, vf=0, vlan=0)
    c.wait_signal("DriftDetected", m, pci=MIXED_MLX)

    direct = ["--runtime-dir", f"{h.path}.run", "--state-dir", f"{h.path}.lib"]
    r = h.run(*direct, "plan", "--json", env=NO_BUS)
    assert r.returncode in (1, 10), r.stdout + r.stderr  # 1: a layout has an error
    assert json.loads(c.call("Plan")) == json.loads(r.stdout)

    r = h.run(*direct, "status", "--json", env=NO_BUS)
    assert r.returncode == 1, r.stderr  # 1: a PF is held
    direct_status = json.loads(r.stdout)
    assert "daemon" not in direct_status
    # the commands the reasons name carry the options sriovctl was given; the daemon's none
    given = (f" --host {h.path} --config-dir {h.confdir} --main-config {h.main} "
             + " ".join(direct))
    for pf in direct_status["pfs"]:
        if pf["reason"] and given in pf["reason"]:
            pf["reason"] = pf["reason"].replace(given, "")
    status = json.loads(c.call("GetStatus"))
    daemon = status.pop("daemon")
    assert status == direct_status
    # what the layouts set, next to what the host has, and where: through the bus as well
    mlx = next(p for p in status["pfs"] if p["pci"] == MIXED_MLX)
    assert mlx["config_files"] == c.get("ConfigFiles", pf_path(MIXED_MLX), PF_IFACE)
    assert mlx["config_files"] and mlx["settings"]["VirtualFunctions"]["wanted"] == "3"
    assert mlx["vfs"][0]["settings"]["VLANId"]["now"] == "0"
    assert mlx["vfs"][0]["settings"]["VLANId"]["wanted"] == "10"
    assert mlx["vfs"][0]["settings"]["VLANId"]["source"].startswith(mlx["config_files"][0] + ":")
    assert mlx["vfs"][0]["layout"] == "differs: vlan 0 (wanted 10)", mlx["vfs"][0]
    held = next(p for p in status["pfs"] if p["pci"] == MIXED_I40E)
    assert held["state"] == "held" and held["desired_num_vfs"] is None

    props = c.get_all()
    assert daemon == {"version": VERSION, "state": props["State"], "drifted": props["Drifted"],
                      "pending_reboot_reasons": props["PendingRebootReasons"],
                      "config_errors": props["ConfigErrors"], "reboot_failed": None,
                      "host_error": None,
                      "no_reboot": None,
                      "operation": None,
                      "credentials": None, "kubernetes_api": None}
    assert (daemon["state"], daemon["drifted"]) == ("degraded", True)
    assert any(re.search(r"60-held\.conf:6: .*VLANId=5000", e) for e in daemon["config_errors"]), \
        daemon["config_errors"]


# --- Apply ------------------------------------------------------------------------------------

def _settings_changes(c, since, path):
    """Values of Settings announced by PropertiesChanged on a PF since the mark."""
    return [s.args[1]["Settings"] for s in c.matching("PropertiesChanged", since, path=path)
            if s.args[0] == PF_IFACE and "Settings" in s.args[1]]


def test_pf_settings_properties(make_host, start_daemon, bus_client):
    """Settings and VirtualFunctionSettings: the keys the layout sets, what the host has and
    where the layout says so; the rows of GetStatus's settings that a layout sets."""
    c = bus_client
    h = configured_host(make_host, "e810.json", {E810_A: (4, 10)}, mode="report")
    start_daemon(h)
    apply_all(c, [E810_A])
    pf = pf_path(E810_A)
    conf = c.get("ConfigFiles", pf, PF_IFACE)[0]
    assert c.get("Settings", pf, PF_IFACE) == [["VirtualFunctions", "4", "4", f"{conf}:4"]]
    vfs = c.get("VirtualFunctionSettings", pf, PF_IFACE)
    assert [i for i, key, *_ in vfs] == [0, 0, 1, 1, 2, 2, 3, 3], vfs
    assert [key for _, key, *_ in vfs] == ["MACAddress", "VLANId"] * 4, vfs
    assert vfs[5] == [2, "VLANId", "10", "10", f"{conf}:7"]
    status = next(p for p in json.loads(c.call("GetStatus"))["pfs"] if p["pci"] == E810_A)
    assert vfs == [[i, key, s["now"], s["wanted"], s["source"]]
                   for i, v in enumerate(status["vfs"])
                   for key, s in v["settings"].items() if s["wanted"] is not None]
    assert c.get("Settings", pf_path(E810_B), PF_IFACE) == []
    assert c.get("VirtualFunctionSettings", pf_path(E810_B), PF_IFACE) == []

    # what the host has now, not what was applied (report mode: the drift stays)
    m = c.mark()
    drift(h, E810_A, vf=2, vlan=0)
    c.wait_signal("DriftDetected", m, pci=E810_A)
    vfs = c.get("VirtualFunctionSettings", pf, PF_IFACE)
    assert vfs[5] == [2, "VLANId", "0", "10", f"{conf}:7"], vfs

    # a new key in the layout: a new row, announced
    m = c.mark()
    replace_layout(h, Path(conf).name, LAYOUT.format(pci=E810_A, n=4, vlan=10).replace(
        "VirtualFunctions=4\n", "VirtualFunctions=4\nMTUBytes=9000\n"))
    assert c.wait_applied(E810_A, m) == 0
    want = [["VirtualFunctions", "4", "4", f"{conf}:4"], ["MTUBytes", "9000", "9000", f"{conf}:5"]]
    c.wait(lambda: want in _settings_changes(c, m, pf), what="PropertiesChanged Settings")
    assert c.get("Settings", pf, PF_IFACE) == want
    assert h.pf(E810_A)["mtu"] == 9000
    vfs = c.get("VirtualFunctionSettings", pf, PF_IFACE)
    assert vfs[5] == [2, "VLANId", "10", "10", f"{conf}:8"], vfs


def test_apply_all_then_one_pf(make_host, start_daemon, bus_client):
    h = configured_host(make_host, "mixed.json", {MIXED_MLX: (3, 10), MIXED_I40E: (3, 20)}, mode="report")
    ice_before = h.pf(MIXED_ICE)
    start_daemon(h)
    c = bus_client
    apply_all(c, [MIXED_MLX, MIXED_I40E])
    assert host_matches(h, MIXED_MLX, 3, 10) and host_matches(h, MIXED_I40E, 3, 20)
    assert h.pf(MIXED_ICE) == ice_before, "an unconfigured PF was touched"

    # both drift; Apply(pci) repairs one, Apply(interface name) the other
    m = c.mark()

    def change(s):
        h.pf_of(s, MIXED_MLX)["vfs"][0]["vlan"] = 0
        h.pf_of(s, MIXED_I40E)["vfs"][0]["vlan"] = 0
    h.edit(change)
    c.wait_signal("DriftDetected", m, pci=MIXED_MLX)
    c.wait_signal("DriftDetected", m, pci=MIXED_I40E)

    m = c.mark()
    c.call("Apply", MIXED_MLX)
    assert c.wait_applied(MIXED_MLX, m) == 0
    assert host_matches(h, MIXED_MLX, 3, 10)
    sync(c)
    assert h.pf(MIXED_I40E)["vfs"][0]["vlan"] == 0, "Apply(pci) touched another PF"
    assert not c.matching("Applied", m, pci=MIXED_I40E)

    m = c.mark()
    c.call("Apply", "ens5f0")
    assert c.wait_applied(MIXED_I40E, m) == 0
    assert host_matches(h, MIXED_I40E, 3, 20)
    assert h.pf(MIXED_ICE) == ice_before


@pytest.mark.parametrize("what", ["0000:ff:1f.7", "nosuchnic0"])
def test_apply_unknown_pf(make_host, start_daemon, bus_client, what):
    h = configured_host(make_host, "e810.json", {E810_A: (2, 10)})
    start_daemon(h)
    with pytest.raises(dbus.exceptions.DBusException) as e:
        bus_client.call("Apply", what)
    assert e.value.get_dbus_name() == NO_SUCH_PF


# --- who may do what --------------------------------------------------------------------------

def drifted_e810(make_host, start_daemon, c, mode="report"):
    """e810 with a layout applied, then VF 1's MAC changed (report mode: it stays drifted)."""
    h = configured_host(make_host, "e810.json", {E810_A: (4, 10)}, mode=mode)
    d = start_daemon(h)
    apply_all(c, [E810_A])
    m = c.mark()
    drift(h, E810_A, mac="02:11:22:33:44:55")
    return h, d, c.wait_signal("DriftDetected", m, pci=E810_A)


NOBODY_OPS = [
    op("GetAll", "GetAll", MANAGER_IFACE, sig="s", iface=PROPS_IFACE),
    op("Version", "Get", MANAGER_IFACE, "Version", sig="ss", iface=PROPS_IFACE),
    op("GetManagedObjects", "GetManagedObjects", iface=OBJMGR_IFACE),
    op("PF", "GetAll", PF_IFACE, sig="s", path=pf_path(E810_A), iface=PROPS_IFACE),
    op("PFState", "Get", PF_IFACE, "State", sig="ss", path=pf_path(E810_A), iface=PROPS_IFACE),
    op("Introspect", "Introspect", iface="org.freedesktop.DBus.Introspectable"),
    op("Plan", "Plan"),
    op("GetStatus", "GetStatus"),
    op("GetPhysicalFunction", "GetPhysicalFunction", "enp59s0f0", sig="s"),
    op("Reload", "Reload"),
    op("ApplyAll", "Apply", "", sig="s"),
    op("ApplyOne", "Apply", E810_A, sig="s"),
    op("ResetAll", "Reset", "", sig="s"),
    op("ResetOne", "Reset", E810_A, sig="s"),
    op("Reload-no-interface", "Reload", iface=None),
]


def test_nobody_reads_but_cannot_change(make_host, start_daemon, bus_client, system_bus):
    c = bus_client
    h, d, _ = drifted_e810(make_host, start_daemon, c)
    before = h.path.read_bytes()
    m = c.mark()
    r = client_process(system_bus, NOBODY_OPS, nobody=True)
    for label in ("Reload", "ApplyAll", "ApplyOne", "ResetAll", "ResetOne", "Reload-no-interface"):
        assert r[label].get("error") == ACCESS_DENIED, (label, r[label])
    for label in ("GetAll", "Version", "GetManagedObjects", "PF", "PFState", "Introspect", "Plan",
                  "GetStatus", "GetPhysicalFunction"):
        assert "ok" in r[label], (label, r[label])
    assert r["GetPhysicalFunction"]["ok"] == [E810_A, pf_path(E810_A)]
    assert r["Version"]["ok"] == VERSION
    assert r["GetAll"]["ok"] == c.get_all()
    assert r["PF"]["ok"] == c.get_all(pf_path(E810_A), PF_IFACE)
    assert r["PFState"]["ok"] == "drifted"
    assert json.loads(r["Plan"]["ok"]) == json.loads(c.call("Plan"))
    assert json.loads(r["GetStatus"]["ok"]) == json.loads(c.call("GetStatus"))
    sync(c)
    assert h.path.read_bytes() == before, "a refused call changed the host"
    assert not c.matching("Applied", m)
    assert c.get("Drifted") is True


def test_daemon_checks_the_callers_credentials_itself(make_host, sriovpersistd_bin, tmp_path):
    """On a bus whose policy lets everyone send to org.sriovpersist1, the daemon still refuses
    Reload and Apply from a non-root caller."""
    conf = tmp_path / "permissive.conf"
    conf.write_text('<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"'
                    ' "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">\n'
                    f"<busconfig><include>{BUS_CONF}</include><policy context=\"default\">"
                    f"<allow send_destination=\"{BUS_NAME}\"/></policy></busconfig>\n")
    bus = Bus(conf)
    c = d = None
    try:
        c = Client(bus.address)
        h = configured_host(make_host, "e810.json", {E810_A: (4, 10)}, mode="report")
        d = Daemon(sriovpersistd_bin, h, bus)
        d.start()
        apply_all(c, [E810_A])
        m = c.mark()
        drift(h, E810_A, mac="02:11:22:33:44:55")
        c.wait_signal("DriftDetected", m, pci=E810_A)
        before = h.path.read_bytes()
        m = c.mark()
        r = client_process(bus, NOBODY_OPS, nobody=True)
        for label in ("Reload", "ApplyAll", "ApplyOne", "ResetAll", "ResetOne"):
            assert r[label].get("error") == ACCESS_DENIED, (label, r[label])
            assert "Rejected send message" not in r[label]["message"], "the bus refused, not the daemon"
        # sd-bus does not dispatch a call without an interface: refused all the same
        assert "error" in r["Reload-no-interface"], r["Reload-no-interface"]
        assert "ok" in r["Plan"] and "ok" in r["GetStatus"]
        sync(c)
        assert h.path.read_bytes() == before
        assert not c.matching("Applied", m)
    finally:
        try:
            if d and d.running():
                d.stop()
        finally:
            if c:
                c.close()
            bus.stop()


# --- drift ------------------------------------------------------------------------------------

def test_drift_is_detected_and_repaired(make_host, start_daemon, bus_client):
    c = bus_client
    h = configured_host(make_host, "e810.json", {E810_A: (4, 10)}, mode="repair")
    d = start_daemon(h)
    apply_all(c, [E810_A])
    expected = h.pf(E810_A)
    other = h.pf(E810_B)
    m = c.mark()
    drift(h, E810_A, mac="02:11:22:33:44:55")
    sig = c.wait_signal("DriftDetected", m, pci=E810_A)
    what = sig.args[1]
    assert what and all(isinstance(w, str) and w for w in what), what
    assert any(re.search(r"\bVF 1\b", w) for w in what), what
    after = c.signals.index(sig)
    assert c.wait_applied(E810_A, after) == 0
    assert h.pf(E810_A) == expected, "repair did not restore the layout"
    assert h.pf(E810_B) == other
    c.wait_property("Drifted", False)
    assert c.get("State", pf_path(E810_A), PF_IFACE) == "applied"
    # the log names the PF and what drifted
    c.wait(lambda: re.search(rf"{re.escape(E810_A)}.*VF 1", d.log_text()), timeout=10,
           what="a log line naming the drifted VF")


def test_the_daemon_never_fights_an_apply_in_progress(make_host, start_daemon, bus_client):
    """Another process holding the PF's lock (an apply unit, sriovctl apply) has the PF: the
    daemon neither reports nor repairs what it sees meanwhile, and looks again once that process
    writes the PF's status record, as apply units do when they finish."""
    c = bus_client
    h = configured_host(make_host, "e810.json", {E810_A: (4, 10)}, mode="repair")
    start_daemon(h)
    apply_all(c, [E810_A])
    expected = h.pf(E810_A)
    run = Path(f"{h.path}.run")
    with open(run / "lock" / f"{E810_A}.lock", "a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        m = c.mark()
        drift(h, E810_A, mac="02:11:22:33:44:55")
        c.wait(lambda: c.get("State", pf_path(E810_A), PF_IFACE) == "applying", timeout=10,
               what="the PF shown as being applied by someone else")
        sync(c)
        assert h.pf(E810_A)["vfs"][1]["mac"] == "02:11:22:33:44:55", "applied under a held lock"
        assert not [s for s in c.signals[m:] if s.member in ("Applied", "DriftDetected")]
    record = run / "pf" / f"{E810_A}.json"
    tmp = record.with_suffix(".tmp")
    tmp.write_text(record.read_text())
    tmp.rename(record)
    assert c.wait_applied(E810_A, m) == 0
    assert h.pf(E810_A) == expected


def test_plan_and_status_answer_a_change_made_just_before(make_host, start_daemon, bus_client):
    """Plan() and GetStatus() answer from the daemon's cache of the host, not from a read of
    the whole host: a change that reached the daemon before the call (its event still inside
    the coalescing window, the PF not yet checked) is in the answer all the same."""
    c = bus_client
    h = configured_host(make_host, "e810.json", {E810_A: (2, 10)}, mode="report")
    start_daemon(h)
    apply_all(c, [E810_A])
    for i in range(20):
        drift(h, E810_A, vf=0, vlan=100 + i)
        status = json.loads(c.call("GetStatus"))
        vf0 = next(p for p in status["pfs"] if p["pci"] == E810_A)["vfs"][0]
        assert vf0["vlan"] == 100 + i, (i, vf0)
        plan = next(p for p in json.loads(c.call("Plan"))["pfs"] if p["pci"] == E810_A)
        assert [a["description"] for a in plan["actions"]] == ["VF 0: vlan 10 qos 0 802.1Q"], (i, plan)


def test_drift_in_report_mode_waits_for_apply(make_host, start_daemon, bus_client):
    c = bus_client
    h, d, sig = drifted_e810(make_host, start_daemon, c, mode="report")
    assert any(re.search(r"\bVF 1\b", w) for w in sig.args[1]), sig.args
    m = c.signals.index(sig)
    c.wait_property("Drifted", True)
    # one description per plan action
    plan = next(p for p in json.loads(c.call("Plan"))["pfs"] if p["pci"] == E810_A)
    # (each the plan's description, and what the host has now)
    assert [w.split(" (now ")[0] for w in sig.args[1]] == \
        [a["description"] for a in plan["actions"]], (sig.args, plan)
    assert all(" (now " in w for w in sig.args[1]), sig.args
    assert c.get("State", pf_path(E810_A), PF_IFACE) == "drifted"
    assert c.get("State") == "degraded"
    sync(c)
    assert h.pf(E810_A)["vfs"][1]["mac"] == "02:11:22:33:44:55", "report mode repaired"
    assert not c.matching("Applied", m, pci=E810_A)

    m = c.mark()
    c.call("Apply", "")
    assert c.wait_applied(E810_A, m) == 0
    assert h.pf(E810_A)["vfs"][1]["mac"] != "02:11:22:33:44:55"
    assert host_matches(h, E810_A, 4, 10)
    c.wait_property("Drifted", False)
    assert c.get("State", pf_path(E810_A), PF_IFACE) == "applied"
    assert c.get("State") == "idle"


def _drifted_changes(c, since):
    """Values of Drifted announced by PropertiesChanged on the manager since the mark (an
    invalidation counts as the value Get returns)."""
    values = []
    for s in c.matching("PropertiesChanged", since, path=MANAGER_PATH):
        iface, changed, invalidated = s.args
        if iface != MANAGER_IFACE:
            continue
        if "Drifted" in changed:
            values.append(changed["Drifted"])
        elif "Drifted" in invalidated:
            values.append(c.get("Drifted"))
    return values


def test_properties_changed_when_drifted_changes(make_host, start_daemon, bus_client):
    c = bus_client
    h = configured_host(make_host, "e810.json", {E810_A: (4, 10)}, mode="report")
    start_daemon(h)
    apply_all(c, [E810_A])
    m = c.mark()
    drift(h, E810_A, vf=2, vlan=0)
    c.wait(lambda: True in _drifted_changes(c, m), what="PropertiesChanged Drifted=true")
    m = c.mark()
    c.call("Apply", E810_A)
    c.wait(lambda: False in _drifted_changes(c, m), what="PropertiesChanged Drifted=false")
    assert c.get("Drifted") is False


def test_disruptive_drift_is_deferred_by_policy_never(make_host, start_daemon, bus_client):
    c = bus_client
    h = configured_host(make_host, "e810.json", {E810_A: (4, 10)}, mode="repair", policy="never")
    start_daemon(h)
    apply_all(c, [E810_A])  # creating VFs where there were none is live

    def shrink(s):
        pf = h.pf_of(s, E810_A)
        pf["num_vfs"], pf["vfs"] = 2, pf["vfs"][:2]  # someone wrote 2 to sriov_numvfs
    m = c.mark()
    drifted = h.edit(shrink)
    sig = c.wait_signal("DriftDetected", m, pci=E810_A)
    assert sig.args[1], sig.args
    assert c.wait_applied(E810_A, c.signals.index(sig)) == -EBUSY
    assert c.get("State", pf_path(E810_A), PF_IFACE) == "deferred"
    assert c.get("State") == "degraded"
    assert h.state()["pfs"] == drifted["pfs"], "a deferred PF was changed"
    assert c.get("VirtualFunctions", pf_path(E810_A), PF_IFACE) == 2
    assert c.get("DesiredVirtualFunctions", pf_path(E810_A), PF_IFACE) == 4


# --- layout files change under the daemon -----------------------------------------------------

def replace_layout(h, name, text):
    """Writes a layout the way configuration management does: a temporary file renamed over it."""
    tmp = h.dir / f".{name}.new"
    tmp.write_text(text)
    os.rename(tmp, h.confdir / name)


def test_layout_edits_are_applied_without_a_call(make_host, start_daemon, bus_client):
    c = bus_client
    h = configured_host(make_host, "e810.json", {}, mode="repair")
    untouched = h.pf(E810_B)
    start_daemon(h)
    name = "50-a.conf"
    m = c.mark()
    h.layout(name, LAYOUT.format(pci=E810_A, n=4, vlan=10))
    assert c.wait_applied(E810_A, m) == 0
    assert host_matches(h, E810_A, 4, 10)
    pf = pf_path(E810_A)
    assert c.get("State", pf, PF_IFACE) == "applied"
    assert [Path(f).name for f in c.get("ConfigFiles", pf, PF_IFACE)] == [name]

    # a broken edit holds the PF: nothing of it is applied, not even the new VF count
    before = h.pf(E810_A)
    m = c.mark()
    replace_layout(h, name, f"[Match]\nPCIAddress={E810_A}\n[PhysicalFunction]\nVirtualFunctions=6\n"
                            "[VirtualFunction]\nVLANId=5000\n")
    assert c.wait_applied(E810_A, m) == -EINVAL
    assert h.pf(E810_A) == before
    assert c.get("State", pf, PF_IFACE) == "held"
    errors = c.get("ConfigErrors")
    assert any(re.search(rf"{re.escape(name)}:6: .*VLANId=5000", e) for e in errors), errors
    assert all(re.match(r"[^:]+:\d+: \S", e) for e in errors), errors
    assert c.get("State") == "degraded"

    m = c.mark()
    replace_layout(h, name, LAYOUT.format(pci=E810_A, n=4, vlan=20))
    assert c.wait_applied(E810_A, m) == 0
    assert host_matches(h, E810_A, 4, 20)
    assert c.get("ConfigErrors") == []
    assert c.get("State", pf, PF_IFACE) == "applied"
    assert h.pf(E810_B) == untouched


def test_removed_layout_keeps_its_vfs_until_reset(make_host, start_daemon, bus_client):
    c = bus_client
    h = configured_host(make_host, "mixed.json", {MIXED_MLX: (3, 10)}, mode="repair")
    # the ice PF already has 2 VFs that sriov-persist did not create; the layout only sets VLANs
    h.layout("50-ice.conf", f"[Match]\nPCIAddress={MIXED_ICE}\n[VirtualFunction]\nVLANId=30\n")
    ice_vfs = [v["pci"] for v in h.pf(MIXED_ICE)["vfs"]]
    assert len(ice_vfs) == 2
    start_daemon(h)
    apply_all(c, [MIXED_MLX, MIXED_ICE])
    assert host_matches(h, MIXED_MLX, 3, 10) and host_matches(h, MIXED_ICE, 2, 30)
    # a layout that leaves the count alone desires the count there is
    assert c.get("DesiredVirtualFunctions", pf_path(MIXED_ICE), PF_IFACE) == 2
    # Reset is for what a removed layout left, never for a PF a layout selects
    with pytest.raises(dbus.exceptions.DBusException) as e:
        c.call("Reset", MIXED_MLX)
    assert e.value.get_dbus_name() == "org.sriovpersist1.Error.NotReset"
    assert "a layout selects it" in e.value.get_dbus_message()
    assert host_matches(h, MIXED_MLX, 3, 10)

    (h.confdir / "50-ice.conf").unlink()
    c.wait_property("State", "unconfigured", pf_path(MIXED_ICE), PF_IFACE)
    sync(c)
    assert [v["pci"] for v in h.pf(MIXED_ICE)["vfs"]] == ice_vfs
    assert c.get("LastError", pf_path(MIXED_ICE), PF_IFACE) == ""

    mlx = h.pf(MIXED_MLX)
    (h.confdir / f"50-{MIXED_MLX}.conf").unlink()
    c.wait_property("State", "unconfigured", pf_path(MIXED_MLX), PF_IFACE)
    sync(c)
    assert h.pf(MIXED_MLX) == mlx, "removing a layout changed its PF"
    assert c.get("LastError", pf_path(MIXED_MLX), PF_IFACE) == "3 VFs left from a removed layout"
    st = {p["pci"]: p for p in json.loads(c.call("GetStatus"))["pfs"]}
    assert st[MIXED_MLX]["state"] == "unconfigured"
    assert st[MIXED_MLX]["reason"] == "3 VFs left from a removed layout"

    # VFs that are not ours: nothing to reset
    m = c.mark()
    c.call("Reset", MIXED_ICE)
    assert h.pf(MIXED_ICE)["num_vfs"] == 2, "VFs sriov-persist did not create were removed"
    c.call("Reset", MIXED_MLX)
    assert c.wait_applied(MIXED_MLX, m) == 0
    assert h.pf(MIXED_MLX)["num_vfs"] == 0
    c.wait_property("LastError", "", pf_path(MIXED_MLX), PF_IFACE)
    assert h.pf(MIXED_ICE)["num_vfs"] == 2


def test_sriovctl_reset_through_the_daemon_says_who_has_the_vfs(make_host, start_daemon,
                                                                  bus_client, system_bus):
    """sriovctl reset PF through the daemon: "nothing reset" and why, when nothing of
    sriov-persist's is left; VFs that are not its own stay."""
    c = bus_client
    h = configured_host(make_host, "mixed.json", {MIXED_MLX: (3, 10)}, mode="repair")
    start_daemon(h)
    apply_all(c, [MIXED_MLX])
    (h.confdir / f"50-{MIXED_MLX}.conf").unlink()
    c.wait_property("State", "unconfigured", pf_path(MIXED_MLX), PF_IFACE)
    env = dict(os.environ, DBUS_SYSTEM_BUS_ADDRESS=system_bus.address)

    def reset(pf):
        return subprocess.run([h.binary, "--no-color", "reset", pf], capture_output=True,
                              text=True, timeout=120, env=env)

    r = reset(MIXED_ICE)  # its 2 VFs were there before sriov-persist
    assert r.returncode == 0 and r.stdout == \
        f"{MIXED_ICE} (ens1f0): nothing reset: 2 VF(s) exist, none of them sriov-persist's to " \
        "remove (made, or their count changed, outside sriov-persist); left as they are\n", r
    assert h.pf(MIXED_ICE)["num_vfs"] == 2
    r = reset(MIXED_MLX)
    assert r.returncode == 0 and \
        r.stdout == f"{MIXED_MLX} (ens2f0np0): reset, 1 action(s); 0 VFs\n", r
    assert h.pf(MIXED_MLX)["num_vfs"] == 0
    r = reset(MIXED_MLX)
    assert r.returncode == 0 and r.stdout == \
        f"{MIXED_MLX} (ens2f0np0): nothing reset: it has no VFs, and nothing that " \
        "sriov-persist created is left on it\n", r


def test_sriovctl_apply_through_the_daemon_says_when_no_layout_selects(make_host, start_daemon,
                                                                      bus_client, system_bus):
    """sriovctl apply through the daemon, of a PF no layout selects, and of a host none of whose
    PFs a layout selects: said as without the daemon, not passed over in silence."""
    c = bus_client
    h = configured_host(make_host, "mixed.json", {MIXED_MLX: (3, 10)}, mode="repair")
    start_daemon(h)
    apply_all(c, [MIXED_MLX])
    env = dict(os.environ, DBUS_SYSTEM_BUS_ADDRESS=system_bus.address)

    def apply(*args):
        return subprocess.run([h.binary, "--no-color", "apply", *args], capture_output=True,
                              text=True, timeout=120, env=env)

    r = apply(MIXED_ICE)
    assert r.returncode == 0 and r.stdout == \
        f"{MIXED_ICE} (ens1f0): unconfigured (no layout selects it): nothing to apply\n", r
    (h.confdir / f"50-{MIXED_MLX}.conf").unlink()
    c.wait_property("State", "unconfigured", pf_path(MIXED_MLX), PF_IFACE)
    r = apply()
    assert r.returncode == 0 and r.stdout == \
        "No layout selects a PF on this host; nothing applied\n", r


def test_a_layout_moved_out_and_back_changes_nothing(make_host, start_daemon, bus_client):
    """Moving a layout out for 200 ms once made the daemon tear down 16 VFs and recreate them."""
    c = bus_client
    h = configured_host(make_host, "e810.json", {E810_A: (16, 10)}, mode="repair")
    d = start_daemon(h)
    apply_all(c, [E810_A])
    before = h.pf(E810_A)
    path = h.confdir / f"50-{E810_A}.conf"
    aside = h.dir / "aside.conf"
    m = c.mark()
    reloads = d.log_text().count("Reloading the configuration")

    seen = []
    os.rename(path, aside)
    t0 = time.monotonic()
    while time.monotonic() - t0 < 0.2:
        seen.append(h.pf(E810_A)["num_vfs"])
        time.sleep(0.02)
    os.rename(aside, path)
    # an editor's burst: written in steps, with a backup file beside it
    (h.confdir / f"50-{E810_A}.conf~").write_text(path.read_text())
    text = path.read_text()
    path.write_text(text[: len(text) // 2])
    time.sleep(0.05)
    path.write_text(text)
    t0 = time.monotonic()
    while time.monotonic() - t0 < 2:
        seen.append(h.pf(E810_A)["num_vfs"])
        c.pump()
        time.sleep(0.02)
    sync(c)
    assert set(seen) == {16}, f"the VF count left 16: {sorted(set(seen))}"
    assert h.pf(E810_A) == before
    assert d.log_text().count("Reloading the configuration") == reloads + 1, d.log_text()
    assert not [s for s in c.matching("Applied", m) if s.args[1] != 0]
    assert c.get("State", pf_path(E810_A), PF_IFACE) == "applied"


def test_a_module_removed_by_hand_is_not_loaded_again_on_its_own(make_host, start_daemon,
                                                                  bus_client):
    """modprobe -r iavf on the way to reloading a driver, where the layout binds the VFs to it:
    the daemon reports the drift and waits, instead of loading the module again under the
    operator's hands; Apply() does it. (Without Driver=, a VF on no driver is left so.)"""
    c = bus_client
    h = configured_host(make_host, "e810.json", {E810_A: (4, 10)}, mode="repair")
    h.layout(f"50-{E810_A}.conf", LAYOUT.format(pci=E810_A, n=4, vlan=10) + "Driver=iavf\n")
    start_daemon(h)
    apply_all(c, [E810_A])
    m = c.mark()

    def unload(st):
        st["modules"] = [x for x in st["modules"] if x != "iavf"]
        for vf in h.pf_of(st, E810_A)["vfs"]:
            vf["driver"], vf["name"] = None, None
    h.edit(unload)
    c.wait_signal("DriftDetected", m, pci=E810_A)
    sync(c)
    c.wait_property("State", "drifted", pf_path(E810_A), PF_IFACE)
    assert "module iavf is not loaded" in c.get("LastError", pf_path(E810_A), PF_IFACE)
    t0 = time.monotonic()
    while time.monotonic() - t0 < 1.5:
        c.pump()
        time.sleep(0.05)
    assert not c.matching("Applied", m), "the daemon loaded the module again on its own"
    assert "iavf" not in h.state()["modules"]
    apply_all(c, [E810_A])
    assert "iavf" in h.state()["modules"] and host_matches(h, E810_A, 4, 10)
    assert [v["driver"] for v in h.pf(E810_A)["vfs"]] == ["iavf"] * 4


def test_an_unbound_vf_that_wants_rdma_is_drift_the_daemon_repairs(make_host, start_daemon,
                                                                   bus_client):
    """Someone unbinds a VF whose layout wants RDMA (Driver= unset): the daemon logs the drift
    and binds the kernel's VF driver again, as it does for a VF on the wrong driver, instead of
    calling the PF degraded for an RDMA device the firmware turned off."""
    c = bus_client
    h = make_host("e810.json")
    main_config(h, "repair")
    h.layout("50-rdma.conf", f"[Match]\nPCIAddress={E810_A}\n[PhysicalFunction]\n"
             "VirtualFunctions=4\n[VirtualFunction]\nMACAddress=stable\n"
             "[VirtualFunction 0]\nDriver=vfio-pci\n[VirtualFunction 1-3]\nRDMA=yes\n")
    d = start_daemon(h)
    apply_all(c, [E810_A])
    expected = h.pf(E810_A)
    assert [v["driver"] for v in expected["vfs"]] == ["vfio-pci", "iavf", "iavf", "iavf"]
    m = c.mark()

    def unbind(st):
        vfs = h.pf_of(st, E810_A)["vfs"]
        vfs[2].update(driver=None, name=None, mtu=0, rdma=False)
        vfs[0].update(driver="iavf", name="ens1f0v0", mtu=1500)
    h.edit(unbind)
    sig = c.wait_signal("DriftDetected", m, pci=E810_A)
    assert "VF 2: bind iavf (now no driver)" in sig.args[1], sig.args[1]
    assert "VF 0: bind vfio-pci (now iavf)" in sig.args[1], sig.args[1]
    assert c.wait_applied(E810_A, c.signals.index(sig)) == 0
    assert h.pf(E810_A) == expected, "repair did not bind the VFs again"
    c.wait_property("Drifted", False)
    assert c.get("State", pf_path(E810_A), PF_IFACE) == "applied"
    log = d.log_text()
    assert re.search(rf"{re.escape(E810_A)} .*drifted from its layout: .*VF 0: bind vfio-pci "
                     r"\(now iavf\); VF 2: bind iavf \(now no driver\)", log), log
    assert "RDMA may be turned off" not in log, log


def test_a_main_configuration_with_errors_applies_nothing(make_host, start_daemon, bus_client):
    """[Disruption] Polcy=never: which policy was meant cannot be told, so nothing is applied."""
    c = bus_client
    h = configured_host(make_host, "e810.json", {E810_A: (4, 10)}, mode="repair")
    h.main.write_text("[Drift]\nMode=repair\n[Disruption]\nPolcy=never\n")
    before = h.path.read_bytes()
    start_daemon(h)
    sync(c)
    assert any("unknown key 'Polcy' in [Disruption]; did you mean 'Policy'?" in e
               for e in c.get("ConfigErrors")), c.get("ConfigErrors")
    assert c.get("State", pf_path(E810_A), PF_IFACE) == "held"
    assert "main configuration has errors" in c.get("LastError", pf_path(E810_A), PF_IFACE)
    with pytest.raises(dbus.exceptions.DBusException) as e:
        c.call("Apply", "")
    assert "main configuration has errors" in e.value.get_dbus_message()
    # Plan() holds the PF as sriovctl plan does
    plan = next(p for p in json.loads(c.call("Plan"))["pfs"] if p["pci"] == E810_A)
    assert plan["held"] and "main configuration has errors" in plan["held_reason"], plan
    c.call("Reload")
    assert h.path.read_bytes() == before
    # fixed: applied
    m = c.mark()
    main_config(h)
    assert c.wait_applied(E810_A, m) == 0
    assert host_matches(h, E810_A, 4, 10)
    assert c.get("ConfigErrors") == []


def test_apply_waits_for_another_process_without_blocking_the_loop(make_host, start_daemon,
                                                                    bus_client):
    """Apply() while another process holds the PF's lock once blocked the event loop for up to
    TimeoutSec: property reads took seconds. The loop goes on; the call is answered once the
    lock is free, and the PF applied then."""
    c = bus_client
    h = configured_host(make_host, "e810.json", {E810_A: (4, 10)}, mode="report")
    start_daemon(h)
    apply_all(c, [E810_A])
    m = c.mark()
    drift(h, E810_A, vf=0, vlan=0)
    c.wait_signal("DriftDetected", m, pci=E810_A)
    lock = os.open(Path(f"{h.path}.run") / "lock" / f"{E810_A}.lock", os.O_RDWR | os.O_CLOEXEC)
    fcntl.flock(lock, fcntl.LOCK_EX)
    answer = {}
    try:
        c.conn.call_async(BUS_NAME, MANAGER_PATH, MANAGER_IFACE, "Apply", "s", (E810_A,),
                          reply_handler=lambda *a: answer.setdefault("ok", True),
                          error_handler=lambda e: answer.setdefault("error", e), timeout=120)
        slowest = 0.0
        for _ in range(10):
            t0 = time.monotonic()
            c.get("State", pf_path(E810_A), PF_IFACE)
            c.get("State")
            slowest = max(slowest, time.monotonic() - t0)
            c.pump()
            time.sleep(0.05)
        print(f"\nslowest pair of property reads while Apply() waits for a lock: "
              f"{slowest * 1000:.1f} ms")
        assert slowest < 0.1, f"property reads took {slowest:.3f} s while Apply() waited"
        assert not answer, answer
        assert c.get("State", pf_path(E810_A), PF_IFACE) == "applying"
        assert h.pf(E810_A)["vfs"][0]["vlan"] == 0, "applied under another process's lock"
    finally:
        os.close(lock)
    c.wait(lambda: answer, timeout=20, what="the answer to Apply() once the lock is free")
    assert answer == {"ok": True}, answer
    assert host_matches(h, E810_A, 4, 10)
    assert c.get("State", pf_path(E810_A), PF_IFACE) == "applied"


# --- pending reboot ---------------------------------------------------------------------------

def test_pending_reboot_survives_a_restart(make_host, start_daemon, bus_client):
    c = bus_client
    h = make_host("cx6dx.json")  # firmware NUM_OF_VFS 8
    main_config(h)
    h.layout("50.conf", f"[Match]\nPCIAddress={CX6_A}\n[PhysicalFunction]\nVirtualFunctions=16\n")
    d = start_daemon(h)
    m = c.mark()
    c.call("Apply", "")
    c.wait_signal("Applied", m, pci=CX6_A)
    c.wait_property("PendingReboot", True)
    reasons = c.get("PendingRebootReasons")
    assert reasons == [f"{CX6_A}: firmware VF limit raised to 16, waiting for a reboot"], reasons
    assert json.loads(c.call("GetStatus"))["daemon"]["pending_reboot_reasons"] == reasons
    # no VFs until the reboot: pending, never applied
    c.wait_property("State", "pending", pf_path(CX6_A), PF_IFACE)
    assert c.get("LastError", pf_path(CX6_A), PF_IFACE) == \
        "firmware VF limit raised to 16, waiting for a reboot"
    pf = next(p for p in json.loads(c.call("GetStatus"))["pfs"] if p["pci"] == CX6_A)
    assert pf["state"] == "pending" and pf["reason"] == pf["pending_reboot_reasons"][0]
    record = h.dir / "host.json.lib" / "reboot.json"  # <state-dir>: FILE.lib with --host
    assert record.is_file() and CX6_A in record.read_text()

    d.stop()
    d.start()
    assert c.get("PendingReboot") is True
    assert c.get("PendingRebootReasons") == reasons


def test_vfio_without_iommu_is_degraded_never_a_reboot(make_host, start_daemon, bus_client):
    """A reboot would not add the kernel arguments: the PF is degraded, with the arguments to
    add, and no reboot is asked for."""
    c = bus_client
    h = make_host("igb-82576.json")  # "iommu": false
    main_config(h)
    h.layout("50.conf", f"[Match]\nPCIAddress={IGB_A}\n[PhysicalFunction]\nVirtualFunctions=2\n"
                        "[VirtualFunction 0]\nDriver=vfio-pci\n")
    start_daemon(h)
    m = c.mark()
    with pytest.raises(dbus.exceptions.DBusException) as e:
        c.call("Apply", "")
    assert e.value.get_dbus_name() == NOT_APPLIED
    assert e.value.get_dbus_message().startswith(f"{IGB_A}: degraded: "), e.value
    assert c.wait_applied(IGB_A, m) == -EOPNOTSUPP
    c.wait_property("State", "degraded", pf_path(IGB_A), PF_IFACE)
    assert "intel_iommu=on" in c.get("LastError", pf_path(IGB_A), PF_IFACE)
    assert c.get("PendingReboot") is False and c.get("PendingRebootReasons") == []
    assert c.get("State") == "degraded"
    assert not (h.dir / "host.json.lib" / "reboot.json").exists() or \
        IGB_A not in (h.dir / "host.json.lib" / "reboot.json").read_text()


# --- sriovctl through the daemon --------------------------------------------------------------

def test_sriovctl_goes_through_the_daemon(make_host, start_daemon, bus_client, system_bus):
    c = bus_client
    h = configured_host(make_host, "e810.json", {E810_A: (4, 10)}, mode="report")
    start_daemon(h)
    env = dict(os.environ, DBUS_SYSTEM_BUS_ADDRESS=system_bus.address)

    def ctl(*args, nobody=False):
        cmd = [h.binary, "--no-color", *args]  # no --host, --config-dir, ...: the daemon's
        if nobody:
            return run_as_nobody(cmd, env={"DBUS_SYSTEM_BUS_ADDRESS": system_bus.address})
        return subprocess.run(cmd, capture_output=True, text=True, timeout=120, env=env)

    r = ctl("status", "--json")
    assert r.returncode == 0, r.stderr
    assert "daemon" in json.loads(r.stdout), "sriovctl did not ask the daemon"
    assert json.loads(r.stdout) == json.loads(c.call("GetStatus"))

    m = c.mark()
    r = ctl("apply")
    assert r.returncode == 0, r.stdout + r.stderr
    assert c.wait_applied(E810_A, m) == 0
    assert host_matches(h, E810_A, 4, 10)

    m = c.mark()
    drift(h, E810_A, mac="02:11:22:33:44:55")
    c.wait_signal("DriftDetected", m, pci=E810_A)
    r = ctl("plan", "--json")
    assert r.returncode == 10, r.stdout + r.stderr
    assert json.loads(r.stdout) == json.loads(c.call("Plan"))
    r = ctl("plan")
    assert r.returncode == 10 and "VF 1" in r.stdout, r.stdout
    r = ctl("status")
    assert r.returncode == 0 and E810_A in r.stdout, r.stdout

    # nobody reads through the daemon but cannot apply
    r = ctl("status", "--json", nobody=True)
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["daemon"]["drifted"] is True
    before = h.path.read_bytes()
    m = c.mark()
    r = ctl("apply", nobody=True)
    assert r.returncode == 1, r.stdout + r.stderr
    sync(c)
    assert h.path.read_bytes() == before
    assert not c.matching("Applied", m)

    m = c.mark()
    r = ctl("apply", E810_A)
    assert r.returncode == 0, r.stdout + r.stderr
    assert c.wait_applied(E810_A, m) == 0
    assert host_matches(h, E810_A, 4, 10)
    assert h.pf(E810_A)["vfs"][1]["mac"] != "02:11:22:33:44:55"


def test_apply_names_each_pf_not_applied(make_host, start_daemon, bus_client, system_bus):
    """Apply() fails with NotApplied naming each PF that is held or failed and why, one a line;
    sriovctl apply prints and exits the same through the daemon as when it does the work."""
    c = bus_client
    h = configured_host(make_host, "mixed.json", {MIXED_I40E: (2, 10)})
    held = h.layout("50-ice.conf", f"[Match]\nPCIAddress={MIXED_ICE}\n[PhysicalFunction]\n"
                                   "VirtualFunctions=2\n[VirtualFunction]\nVLANId=5000\n")
    h.layout("50-mlx.conf", LAYOUT.format(pci=MIXED_MLX, n=3, vlan=7))
    h.add_fault(op="set_num_vfs", pci=MIXED_MLX, errno="EIO")
    start_daemon(h)
    with pytest.raises(dbus.exceptions.DBusException) as e:
        c.call("Apply", "")
    assert e.value.get_dbus_name() == NOT_APPLIED
    lines = e.value.get_dbus_message().split("\n")
    assert lines[0] == f"{MIXED_ICE}: held: {held}:6: VLANId=5000: must be 0..4095", lines
    assert len(lines) == 2 and lines[1].startswith(f"{MIXED_MLX}: failed: "), lines
    assert "Input/output error" in lines[1], lines
    # a PF that is applied replies with success; one named that is held, with the error
    c.call("Apply", MIXED_I40E)
    with pytest.raises(dbus.exceptions.DBusException) as e:
        c.call("Apply", "enp59s0f0")  # the ice PF's alternative name
    assert e.value.get_dbus_message() == lines[0]

    env = dict(os.environ, DBUS_SYSTEM_BUS_ADDRESS=system_bus.address)
    by_daemon = subprocess.run([h.binary, "--no-color", "apply"], capture_output=True, text=True,
                               timeout=120, env=env)
    here = h.run("apply", env=NO_BUS)
    assert by_daemon.returncode == here.returncode == 1, (by_daemon, here)
    assert f"{MIXED_ICE} (ens1f0): held (nothing applied): {held}:6: VLANId=5000: must be " \
           "0..4095\n" in by_daemon.stdout, by_daemon.stdout
    assert f"{MIXED_I40E} (ens5f0): already applied\n" in by_daemon.stdout, by_daemon.stdout
    # the same lines (the mlx5 PF's apply fails again in each: its own line, times aside)
    assert [l for l in by_daemon.stdout.splitlines() if MIXED_MLX not in l] == \
        [l for l in here.stdout.splitlines() if l.startswith("0000:") and MIXED_MLX not in l]
    assert f"{MIXED_MLX} (ens2f0np0): failed" in by_daemon.stdout, by_daemon.stdout
    assert by_daemon.stderr == here.stderr == f"{held}:6: VLANId=5000: must be 0..4095\n", \
        (by_daemon.stderr, here.stderr)


def test_status_and_plan_find_a_pf_by_any_name_through_the_daemon(make_host, start_daemon,
                                                                   bus_client, system_bus):
    """The daemon resolves the name (GetPhysicalFunction) as Apply() does: PCI address in any
    case, interface name, alternative name."""
    c = bus_client
    h = configured_host(make_host, "e810.json", {E810_A: (2, 10)}, mode="report")
    start_daemon(h)
    apply_all(c, [E810_A])
    env = dict(os.environ, DBUS_SYSTEM_BUS_ADDRESS=system_bus.address)

    def ctl(*args):
        return subprocess.run([h.binary, "--no-color", *args], capture_output=True, text=True,
                              timeout=120, env=env)

    for verb in ("status", "plan"):
        want = ctl(verb, E810_A, "--json")
        assert want.returncode == 0, want
        for name in ("ens1f0", "enp59s0f0", E810_A.upper()):
            r = ctl(verb, name, "--json")
            assert (r.returncode, r.stdout) == (want.returncode, want.stdout), (verb, name, r)
            assert [p["pci"] for p in json.loads(r.stdout)["pfs"]] == [E810_A]
            # as sriovctl finds it when it does the work itself
            assert h.run(verb, name, "--json", env=NO_BUS).returncode == want.returncode
        r = ctl(verb, "enp59s0f9")
        assert r.returncode == 1 and r.stderr == "No PF 'enp59s0f9' on this host\n", r
    assert c.call("GetPhysicalFunction", "enp59s0f1") == [E810_B, pf_path(E810_B)]
    with pytest.raises(dbus.exceptions.DBusException) as e:
        c.call("GetPhysicalFunction", "ens9")
    assert e.value.get_dbus_name() == NO_SUCH_PF
    assert e.value.get_dbus_message() == "No PF 'ens9' on this host"


def test_rdma_netns_mode_refused_is_not_retried_on_its_own(make_host, start_daemon, bus_client):
    """[RDMA] NetnsMode= that the kernel refuses (other network namespaces exist): the PF fails
    with the reason, its VFs are configured, and the daemon does not try again by itself."""
    c = bus_client
    h = configured_host(make_host, "e810.json", {})
    h.main.write_text(h.main.read_text() + "[RDMA]\nNetnsMode=exclusive\n")
    h.layout("50-rdma.conf", f"[Match]\nPCIAddress={E810_A}\n[PhysicalFunction]\n"
                             "VirtualFunctions=2\n[VirtualFunction]\nRDMA=yes\nVLANId=5\n")
    h.add_fault(op="set_rdma_netns_mode", errno="EBUSY")
    start_daemon(h)
    m = c.mark()
    with pytest.raises(dbus.exceptions.DBusException) as e:
        c.call("Apply", "")
    assert e.value.get_dbus_name() == NOT_APPLIED
    assert e.value.get_dbus_message().startswith(f"{E810_A}: failed: "), e.value
    assert c.wait_applied(E810_A, m) < 0
    pf = c.get_all(pf_path(E810_A), PF_IFACE)
    assert pf["State"] == "failed" and "set RDMA netns mode exclusive" in pf["LastError"], pf
    assert host_matches(h, E810_A, 2, 5)
    assert h.state()["rdma_netns_mode"] == "shared"
    time.sleep(2)
    sync(c)
    assert len(c.matching("Applied", m, pci=E810_A)) == 1, c.signals[m:]


# --- sriov-persistd(8): the private bus of EXAMPLES, run as written ---------------------------

def manual_example(page, title):
    """The lines of the .nf block after .SS "title" in a manual page, unescaped."""
    text = page.read_text()
    start = text.index(f'.SS "{title}"')
    block = text[text.index(".nf\n", start) + 4:text.index("\n.fi\n", start)]
    for roff, plain in (("\\-", "-"), ("\\(aq", "'"), ("\\&", ""), ("\\e", "\\")):
        block = block.replace(roff, plain)
    assert "\\" not in block.replace("\\n", ""), block
    return block + "\n"


def run_manual_private_bus_example(sriovctl_bin, sriovpersistd_bin, policy, check):
    """Every line of sriov-persistd(8)'s example, as user nobody, with the shipped policy's path
    replaced by policy and the built programs; check(result, work directory) runs before cleanup."""
    import shutil
    import tempfile
    script = manual_example(ROOT / "man" / "sriov-persistd.8",
                            "Trying it on a simulated host, on a private bus")
    shipped = "/usr/share/dbus-1/system.d/org.sriovpersist1.conf"
    assert script.count(shipped) == 1
    script = script.replace(shipped, policy)
    top = Path(tempfile.mkdtemp(prefix="sriov-example-"))  # pytest's tmp_path is root's alone
    try:
        top.chmod(0o755)
        bindir, work = top / "bin", top / "tmp"
        bindir.mkdir()
        work.mkdir()
        shutil.chown(work, "nobody")
        (bindir / "sriovctl").symlink_to(sriovctl_bin)
        (bindir / "sriov-persistd").symlink_to(sriovpersistd_bin)
        (top / "example.sh").write_text(script)
        r = run_as_nobody(["bash", str(top / "example.sh")], timeout=120,
                          env={"PATH": f"{bindir}:/usr/sbin:/usr/bin:/sbin:/bin",
                               "ASAN_OPTIONS": "detect_leaks=1", "TMPDIR": str(work)})
        check(r, work)
    finally:
        shutil.rmtree(top, ignore_errors=True)


def test_manual_private_bus_example_runs_as_written(sriovctl_bin, sriovpersistd_bin):
    """The example with the tree's policy: it runs, and its output is what the manual says."""
    def check(r, work):
        out = r.stdout
        assert r.returncode == 0, (out, r.stderr)
        assert "is not on the bus" not in out, out
        statuses = out.split("sriov-persistd: idle\n")
        assert len(statuses) == 3, out  # the two sriovctl status, through the daemon
        for text, vlan in ((statuses[1], 100), (statuses[2], 200)):
            assert re.search(r"^0000:3b:00\.0 +ens1f0 +ice +4 +4 +128 +applied ", text, re.M), text
            vfs = [line.split() for line in text.splitlines()
                   if re.match(r" +\d +0000:3b:01\.", line)]
            assert len(vfs) == 4 and all(v[5] == str(vlan) for v in vfs), text
        assert "0000:3b:00.0 (ens1f0): nothing to do\n  files: 50-e810.conf\nb false\n" \
               "exit status 1\n" in out, out
        assert "drifted from its layout: VF 0: vlan 200" in out, out
        assert out.endswith("applied after 1 action(s)\n"), out
        # the bus refused it, and sriovctl says so in its own words
        assert r.stderr == ("apply: permission denied: changing the host needs root "
                            "(run it with sudo)\n"), r.stderr
        # the daemon stopped (the script waits for it) and said nothing more
        log = next(work.iterdir()) / "daemon.log"
        assert log.read_text() == out[out.index("sriov-persistd: 0000:3b:00.0"):], log.read_text()
        assert not any(m in out + r.stderr for m in SANITIZER_MARKS), out + r.stderr
    run_manual_private_bus_example(sriovctl_bin, sriovpersistd_bin,
                                   str(ROOT / "dbus" / "org.sriovpersist1.conf"), check)


def test_manual_private_bus_example_without_policy_says_so(sriovctl_bin, sriovpersistd_bin):
    """The policy missing (not installed): the bus and the wait loop say so, and the lines end."""
    def check(r, work):
        assert 'Failed to open "/nonexistent/org.sriovpersist1.conf"' in r.stderr, r.stderr
        assert "sriov-persistd is not on the bus; daemon.log:\n" in r.stdout, r.stdout
        assert "sriov-persistd:" in r.stdout.split("daemon.log:\n", 1)[1], r.stdout
    run_manual_private_bus_example(sriovctl_bin, sriovpersistd_bin,
                                   "/nonexistent/org.sriovpersist1.conf", check)
