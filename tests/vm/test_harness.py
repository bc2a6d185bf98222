# SPDX-License-Identifier: LGPL-2.1-or-later
"""Proves the VM harness on the real guest kernel (no sriov-persist code yet).

(a) igb PF with 7 VFs, IOMMU groups, VFs created, VF attributes over netlink,
    a VF bound to vfio-pci;
(b) a reboot keeps the disk (and the kernel forgets the VFs);
(c) a second igb hotplugged and unplugged through the QEMU monitor, seen by udev;
(d) netdevsim built out of tree: 64 VFs with attributes, and switchdev
    representors.
Each step's wall time is printed ([time] lines, and a table at the end).
"""

import hashlib
import json
import os
import re
import uuid

import pytest


def sriov_pfs(vm):
    """{netdev: (pci, totalvfs)} of the guest's netdevs whose device does SR-IOV."""
    out = vm.check(
        "for d in /sys/class/net/*; do [ -e $d/device/sriov_totalvfs ] || continue; "
        "echo $(basename $d) $(basename $(readlink -f $d/device)) "
        "$(cat $d/device/sriov_totalvfs); done")
    res = {}
    for line in out.splitlines():
        f = line.split()
        if len(f) == 3:
            res[f[0]] = (f[1], int(f[2]))
    return res


def vf_info(vm, dev):
    """The vfinfo_list of `ip -j -d link show dev`, by VF index."""
    out = vm.check(f"ip -j -d link show dev {dev}")
    data = json.loads(out)
    return {v["vf"]: v for v in data[0].get("vfinfo_list", [])}


def test_igb_sriov_vfs_attributes_vfio(vm, steps):
    with steps("find the igb PF"):
        pfs = sriov_pfs(vm)
    assert len(pfs) == 1, pfs
    pf, (pci, total) = next(iter(pfs.items()))
    assert total == 7
    assert vm.check(f"basename $(readlink /sys/bus/pci/devices/{pci}/driver)").strip() == "igb"

    groups = vm.check("ls /sys/kernel/iommu_groups").split()
    assert groups, "no IOMMU groups: intel-iommu not active"
    assert vm.run(f"test -e /sys/bus/pci/devices/{pci}/iommu_group")[0] == 0

    with steps("echo 2 > sriov_numvfs"):
        vm.check(f"echo 2 > /sys/bus/pci/devices/{pci}/sriov_numvfs")
    with steps("virtfn0/1 and their netdevs appear"):
        vm.wait_until(f"ls /sys/bus/pci/devices/{pci}/virtfn0/net/* && "
                      f"ls /sys/bus/pci/devices/{pci}/virtfn1/net/*", timeout=30)
    with steps("udevadm settle"):
        vm.check("udevadm settle -t 30")
    assert vm.check(f"cat /sys/bus/pci/devices/{pci}/sriov_numvfs").strip() == "2"
    vfs = {}
    for i in (0, 1):
        out = vm.check(f"basename $(readlink -f /sys/bus/pci/devices/{pci}/virtfn{i}); "
                       f"ls /sys/bus/pci/devices/{pci}/virtfn{i}/net; "
                       f"basename $(readlink /sys/bus/pci/devices/{pci}/virtfn{i}/driver)")
        vf_pci, vf_dev, drv = out.split()
        assert drv == "igbvf"
        vfs[i] = (vf_pci, vf_dev)
    print(f"PF {pf} {pci}: VFs {vfs}")
    # udev renamed them after the PF (enp1s0v0 ...), as VM-TESTING.md says.
    assert all(d.startswith(pf) for _, d in vfs.values()), vfs

    with steps("VF 0 mac/vlan/trust over ip link"):
        vm.check(f"ip link set {pf} vf 0 mac 02:00:00:5a:00:10 && "
                 f"ip link set {pf} vf 0 vlan 100 qos 2 && "
                 f"ip link set {pf} vf 0 trust on && "
                 f"ip link set {pf} vf 1 spoofchk off")
    text = vm.check(f"ip -d link show {pf}")
    assert re.search(r"vf 0\s+link/ether 02:00:00:5a:00:10 .*vlan 100, qos 2,.*trust on", text), text
    assert re.search(r"vf 1\s+link/ether .*spoof checking off.*trust off", text), text
    info = vf_info(vm, pf)
    assert info[0]["address"] == "02:00:00:5a:00:10"
    assert info[0]["vlan_list"][0] == {"vlan": 100, "qos": 2}
    assert info[0]["trust"] is True and info[1]["spoofchk"] is False

    vf1 = vfs[1][0]
    with steps("bind VF 1 to vfio-pci (driver_override + drivers_probe)"):
        vm.check("modprobe vfio-pci")
        vm.check(f"echo vfio-pci > /sys/bus/pci/devices/{vf1}/driver_override && "
                 f"echo {vf1} > /sys/bus/pci/devices/{vf1}/driver/unbind && "
                 f"echo {vf1} > /sys/bus/pci/drivers_probe")
    drv = vm.check(f"basename $(readlink /sys/bus/pci/devices/{vf1}/driver)").strip()
    assert drv == "vfio-pci"
    group = vm.check(f"basename $(readlink /sys/bus/pci/devices/{vf1}/iommu_group)").strip()
    with steps("/dev/vfio/<group> appears"):
        vm.wait_until(f"test -c /dev/vfio/{group}", timeout=20)
    # VF 0 is untouched and keeps its netdev.
    assert vm.check(f"basename $(readlink /sys/bus/pci/devices/{vfs[0][0]}/driver)").strip() \
        == "igbvf"


def test_reboot_keeps_disk(vm, steps, tmp_path):
    token = uuid.uuid4().hex
    pci = next(iter(sriov_pfs(vm).values()))[0]
    old_boot = vm.boot_id
    payload = tmp_path / "payload.bin"
    payload.write_bytes(os.urandom(300000))
    digest = hashlib.sha256(payload.read_bytes()).hexdigest()
    with steps("copy_in 300 kB through 9p, install it on the disk"):
        guest = vm.copy_in(str(payload))
        vm.check(f"install -m 0644 {guest} /root/payload.bin")
    with steps("write a file + 2 VFs before reboot"):
        vm.check(f"echo {token} > /root/persist-check && sync && "
                 f"echo 2 > /sys/bus/pci/devices/{pci}/sriov_numvfs")
    with steps("systemctl reboot back to the shell"):
        vm.reboot()
    assert vm.boot_id != old_boot
    assert vm.check("cat /root/persist-check").strip() == token
    assert vm.check("sha256sum /root/payload.bin").split()[0] == digest
    out = vm.copy_out("/root/persist-check", str(tmp_path / "back"))
    assert open(out).read().strip() == token
    # The kernel forgot the VFs: the very thing sriov-persist exists for.
    assert vm.check(f"cat /sys/bus/pci/devices/{pci}/sriov_numvfs").strip() == "0"
    assert vm.check("cat /proc/sys/kernel/random/boot_id").strip() == vm.boot_id


def test_hotplug_igb(vm, steps):
    before = sriov_pfs(vm)
    vm.check("udevadm monitor --udev --subsystem-match=net > /run/udev-mon.log 2>&1 & "
             "echo $! > /run/udev-mon.pid")
    vm.wait_until("grep -q '^UDEV' /run/udev-mon.log", timeout=20)

    with steps("device_add igb on rp1 (monitor)"):
        dev = vm.hotplug_igb("rp1")
    with steps("new PF netdev visible in the guest"):
        vm.wait_until(f"[ $(ls -d /sys/class/net/*/device/sriov_totalvfs | wc -l) -gt {len(before)} ]",
                      timeout=60)
    with steps("udev net add event processed"):
        vm.wait_until("grep -qE '^UDEV.* add .*/net/[^ ]+ \\(net\\)' /run/udev-mon.log", timeout=60)
    vm.check("udevadm settle -t 30")
    after = sriov_pfs(vm)
    new = {k: v for k, v in after.items() if k not in before}
    assert len(new) == 1, (before, after)
    name, (pci, total) = next(iter(new.items()))
    assert total == 7
    print(f"hotplugged {dev}: {name} at {pci}")
    with steps("3 VFs on the hotplugged PF"):
        vm.check(f"echo 3 > /sys/bus/pci/devices/{pci}/sriov_numvfs")
        vm.wait_until(f"ls /sys/bus/pci/devices/{pci}/virtfn2/net/*", timeout=30)

    with steps("device_del until QEMU has removed it"):
        vm.unplug(dev)
    with steps("PF gone in the guest + udev remove event"):
        vm.wait_until(f"! test -e /sys/bus/pci/devices/{pci}", timeout=30)
        vm.wait_until(f"grep -qE '^UDEV.* remove .*/net/{name} \\(net\\)' /run/udev-mon.log",
                      timeout=30)
    assert set(sriov_pfs(vm)) == set(before)
    log = vm.check("kill $(cat /run/udev-mon.pid); cat /run/udev-mon.log")
    print(log)
    # The port is free again: the same device can be plugged a second time.
    with steps("second device_add on the same port"):
        dev2 = vm.hotplug_igb("rp1", dev_id="hp1b")
        vm.wait_until(f"test -e /sys/bus/pci/devices/{pci}/sriov_totalvfs", timeout=60)
    vm.unplug(dev2)


def test_netdevsim_64_vfs(vm, steps):
    sysdev = "/sys/bus/netdevsim/devices/netdevsim10"
    dbg = "/sys/kernel/debug/netdevsim/netdevsim10"
    with steps("modprobe netdevsim + new_device"):
        vm.check("modprobe netdevsim && echo '10 1' > /sys/bus/netdevsim/new_device")
        vm.wait_until(f"ls {sysdev}/net/*", timeout=30)
        vm.check("udevadm settle -t 30")
    nd = vm.check(f"ls {sysdev}/net").split()
    assert len(nd) == 1, nd
    nd = nd[0]
    assert vm.check("modinfo -F filename netdevsim").strip().endswith("/extra/netdevsim.ko")
    # 6.1 netdevsim: no sriov_totalvfs; the limit is debugfs max_vfs, 4 by default.
    assert vm.run(f"test -e {sysdev}/sriov_totalvfs")[0] != 0
    assert vm.check(f"cat {dbg}/max_vfs").strip() == "4"
    with steps("max_vfs 64 + echo 64 > sriov_numvfs"):
        vm.check(f"echo 64 > {dbg}/max_vfs && echo 64 > {sysdev}/sriov_numvfs")
    assert vm.check(f"cat {sysdev}/sriov_numvfs").strip() == "64"

    with steps("set VF attributes on 64 VFs over ip link"):
        cmds = [f"ip link set {nd} vf {i} mac 02:00:00:00:10:{i:02x}" for i in range(64)]
        cmds += [f"ip link set {nd} vf 10 vlan 42 qos 3 proto 802.1ad",
                 f"ip link set {nd} vf 20 trust on",
                 f"ip link set {nd} vf 30 spoofchk off",
                 f"ip link set {nd} vf 40 max_tx_rate 1000 min_tx_rate 100",
                 f"ip link set {nd} vf 50 state disable",
                 f"ip link set {nd} vf 63 vlan 4095"]
        vm.check(" && ".join(cmds), timeout=120)
    with steps("read back: ip -j -d link show"):
        info = vf_info(vm, nd)
    assert sorted(info) == list(range(64))
    assert all(info[i]["address"] == f"02:00:00:00:10:{i:02x}" for i in range(64))
    assert info[10]["vlan_list"][0] == {"vlan": 42, "qos": 3, "protocol": "802.1ad"}
    assert info[63]["vlan_list"][0]["vlan"] == 4095
    assert info[20]["trust"] is True and info[21]["trust"] is False
    assert info[30]["spoofchk"] is False
    assert info[40]["rate"] == {"max_tx": 1000, "min_tx": 100}
    assert info[50]["link_state"] == "disable"
    text = vm.check(f"ip -d link show {nd}")
    assert len(re.findall(r"^\s+vf \d+ ", text, re.M)) == 64
    assert re.search(r"vf 10\s+link/ether 02:00:00:00:10:0a .*vlan 42, qos 3, vlan protocol 802.1ad",
                     text), text
    # Kernel rules sriov-persist must follow: non-zero to non-zero is EBUSY.
    rc, out = vm.run(f"echo 2 > {sysdev}/sriov_numvfs")
    assert rc != 0 and "busy" in out.lower(), out

    with steps("switchdev: 0 VFs, eswitch switchdev, 2 VFs -> representors"):
        vm.check(f"echo 0 > {sysdev}/sriov_numvfs && "
                 "devlink dev eswitch set netdevsim/netdevsim10 mode switchdev && "
                 f"echo 2 > {sysdev}/sriov_numvfs")
        vm.wait_until(f"[ $(ls {sysdev}/net | wc -l) -eq 3 ]", timeout=30)
    assert "mode switchdev" in vm.check("devlink dev eswitch show netdevsim/netdevsim10")
    ports = vm.check("devlink port show")
    assert len(re.findall(r"flavour pcivf", ports)) == 2, ports
    names = sorted(vm.check(f"cat {sysdev}/net/*/phys_port_name").split())
    # the uplink port (p<index>) and one representor per VF
    assert len(names) == 3 and re.fullmatch(r"p\d+", names[0]), names
    assert names[1:] == ["pf0vf0", "pf0vf1"], names
