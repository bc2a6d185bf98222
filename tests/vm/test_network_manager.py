# SPDX-License-Identifier: LGPL-2.1-or-later
"""NetworkManager on the node: the VFs of a layout with a resource name (and one set
HostNetworkStack=unmanaged) are unmanaged and get no DHCP, when they appear while
NetworkManager runs and across a reboot; a VF that no layout keeps from it is its to manage,
which proves the checks can fail. The image has NetworkManager installed but not enabled
(build-image): only this test starts it."""

from test_scenarios import igb_pfs, install, product, wait_for_boot_gate  # noqa: F401

NM_LAYOUT = """[Match]
Vendor=0x8086
Device=0x10c9
Driver=igb

[PhysicalFunction]
VirtualFunctions=4
LinkUp=yes

[VirtualFunction 0-1]
ResourceName=pods

[VirtualFunction 2]
HostNetworkStack=unmanaged
"""
KEPT = (0, 1, 2)  # VF 3: nothing keeps it from NetworkManager


def vf_names(vm, pci):
    out = vm.check(f"for i in 0 1 2 3; do ls /sys/bus/pci/devices/{pci}/virtfn$i/net; done")
    names = out.split()
    assert len(names) == 4, out
    return names


def nm_states(vm):
    out = vm.check("nmcli -t -f DEVICE,STATE device")
    return dict(line.split(":", 1) for line in out.splitlines() if ":" in line)


def dhcp_lines(vm, name):
    """NetworkManager's DHCP messages of this boot for one interface."""
    return vm.run(f"journalctl -b -o cat -u NetworkManager | grep -F 'dhcp4 ({name})'")[1].strip()


def assert_kept(vm, names):
    # the control VF: NetworkManager manages it and starts DHCP on it
    ctl = names[3]
    vm.wait_until(f"journalctl -b -o cat -u NetworkManager | grep -qF 'dhcp4 ({ctl})'", 90)
    states = nm_states(vm)
    assert states.get(ctl) not in (None, "unmanaged"), states
    for i in KEPT:
        name = names[i]
        assert states.get(name) == "unmanaged", (name, states)
        props = vm.check(f"udevadm info -q property /sys/class/net/{name}")
        assert "NM_UNMANAGED=1" in props.splitlines(), props
        assert "ID_NET_MANAGED_BY=sriov-persist" in props.splitlines(), props
        assert dhcp_lines(vm, name) == "", dhcp_lines(vm, name)
        assert vm.check(f"ip -4 -o addr show dev {name}").strip() == ""
    props = vm.check(f"udevadm info -q property /sys/class/net/{ctl}")
    assert "NM_UNMANAGED=1" not in props.splitlines(), props


def test_network_manager_leaves_pod_vfs_alone(vm, product, steps):
    install(vm, product, layout=NM_LAYOUT, consumer=False)
    (pci, ifname), = igb_pfs(vm).items()
    with steps("NetworkManager running as the VFs appear"):
        vm.check("systemctl enable --now NetworkManager.service")
        vm.wait_until("nmcli -t -f RUNNING general | grep -qx running", 60)
        vm.check(f"systemctl start sriov-persist-apply@{pci}.service", timeout=120)
        vm.wait_until(f"test $(cat /sys/bus/pci/devices/{pci}/sriov_numvfs) = 4", 30)
        vm.check("udevadm settle")
        assert_kept(vm, vf_names(vm, pci))
    with steps("udev-helper vf, 20 runs"):
        # the running kernel's path: the VF's physfn link, then its PF alone
        helper = "/usr/libexec/sriov-persist/udev-helper vf"
        vf = {i: vm.check(f"basename $(readlink /sys/bus/pci/devices/{pci}/virtfn{i})").strip()
              for i in (0, 3)}
        assert vm.check(f"{helper} {vf[0]}") == "NM_UNMANAGED=1\nID_NET_MANAGED_BY=sriov-persist\n"
        assert vm.check(f"{helper} {vf[3]}") == ""
        assert vm.check(f"{helper} {pci}") == ""
        vm.check(f"for i in $(seq 10); do {helper} {vf[0]} && {helper} {vf[3]}; done >/dev/null")
    with steps("reboot with NetworkManager enabled"):
        vm.reboot()
        wait_for_boot_gate(vm)
        vm.wait_until("nmcli -t -f RUNNING general | grep -qx running", 90)
        assert_kept(vm, vf_names(vm, pci))
