# SPDX-License-Identifier: LGPL-2.1-or-later
"""sriov-persist on a real kernel: the build installed into the guest, with real
systemd and udev, an emulated igb (82576) SR-IOV PF and an emulated IOMMU.

1. cold boot with a layout: VFs with MAC/VLAN/QoS/trust/spoofchk, one on vfio-pci
   (created with autoprobe off: igbvf never probes it), and a unit ordered after
   sriov-persist-wait sees them; 2. a reboot brings the
   same state back; 3. hotplug of a second igb is applied, its unplug shows as
   gone; 4. a hand-written sriov_numvfs is planned and repaired; 5. a layout with
   an error holds the PF, its VFs untouched, the error in status and journal;
6. netdevsim with 64 VFs: every VF attribute set through the Linux backend and read back,
   hw-tc-offload, VF GUID requests as far as the kernel's driver check, and switchdev
   representors found and brought up;
7. the RDMA subsystem's netns mode (rdma_rxe brings ib_core) read, set, and refused with
   another network namespace;
8. [Reboot] KernelArguments=manage on a kernel booted with the IOMMU off: the arguments added
   through Debian's update-grub by their own unit, a pending reboot, and reset takes them out.
"""

import json
import os
import re
import subprocess
import time

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))

LAYOUT = """[Match]
Vendor=0x8086
Device=0x10c9
Driver=igb

[PhysicalFunction]
VirtualFunctions=3
# igb answers its VFs' mailbox (and so hands them the MAC set here) only while up
LinkUp=yes

[VirtualFunction 0]
MACAddress=02:00:00:00:01:00
VLANId=100
QualityOfService=2
Trust=yes
MACSpoofCheck=no

[VirtualFunction 1]
Driver=vfio-pci
MACAddress=stable

[VirtualFunction 2]
MACAddress=stable
VLANId=200
"""

# Every igb of the host, the one at boot and one hotplugged: a literal MAC
# address on the VFs of two PFs is an error that holds both, so VF 0's is stable.
HOTPLUG_LAYOUT = LAYOUT.replace("MACAddress=02:00:00:00:01:00", "MACAddress=stable")
assert HOTPLUG_LAYOUT != LAYOUT

# A unit that stands for kubelet: it must see the VFs at its first start.
CONSUMER = """[Unit]
Description=stands for kubelet in the VM tests
Wants=sriov-persist-wait.service
After=sriov-persist-wait.service

[Service]
Type=oneshot
RemainAfterExit=yes
ExecStart=/bin/sh -c 'cat /sys/bus/pci/devices/*/sriov_numvfs > /run/consumer-saw'

[Install]
WantedBy=multi-user.target
"""


@pytest.fixture(scope="session")
def product(tmp_path_factory):
    """The build, installed into a staging root and packed for the guest."""
    return build_product(tmp_path_factory.mktemp("product"))


def build_product(d):
    """Builds and installs into d/root; returns the tar of it (a pathlib.Path)."""
    b = os.path.join(REPO, "build", "vm", "product")
    common = ["make", "-s", "-C", REPO, f"BUILDDIR={b}", "WERROR=1"]
    subprocess.run(common + ["all", f"{b}/vm-nsim-vf"], check=True)
    # every directory under /usr: the guest's /lib is a link that the tar must not replace
    subprocess.run(common + ["install", f"DESTDIR={d}/root", "PREFIX=/usr",
                             "SYSTEMDUNITDIR=/usr/lib/systemd/system",
                             "SYSTEMDPRESETDIR=/usr/lib/systemd/system-preset",
                             "UDEVDIR=/usr/lib/udev"],
                   check=True, stdout=subprocess.DEVNULL)
    top = sorted(os.listdir(f"{d}/root"))
    assert top == ["etc", "usr"], f"make install wrote outside /etc and /usr: {top}"
    subprocess.run(["install", "-m", "0755", f"{b}/vm-nsim-vf", f"{d}/root/usr/sbin/"],
                   check=True)
    tar = d / "sriov-persist.tar"
    subprocess.run(["tar", "-C", str(d / "root"), "-cf", str(tar), "."], check=True)
    return tar


def install(vm, product, layout=LAYOUT, consumer=True):
    vm.copy_in(str(product), "sriov-persist.tar")
    with open(os.path.join(vm.share, "50-igb.conf"), "w") as f:
        f.write(layout)
    with open(os.path.join(vm.share, "sriov-consumer.service"), "w") as f:
        f.write(CONSUMER)
    vm.check("tar -C / --no-same-owner --no-overwrite-dir -xf /mnt/share/sriov-persist.tar && "
             "install -m 0644 /mnt/share/50-igb.conf /etc/sriov-persist/conf.d/ && "
             + ("install -m 0644 /mnt/share/sriov-consumer.service /etc/systemd/system/ && "
                "systemctl enable sriov-consumer.service && " if consumer else "")
             + "systemctl daemon-reload && systemctl enable sriov-persist-wait.service && "
             "udevadm control --reload")


def igb_pfs(vm):
    out = vm.check("for d in /sys/bus/pci/devices/*; do [ -e $d/sriov_totalvfs ] && "
                   "echo ${d##*/} $(ls $d/net); done; true")
    return dict(line.split()[:2] for line in out.splitlines() if len(line.split()) >= 2)


def vfinfo(vm, ifname):
    data = json.loads(vm.check(f"ip -j -d link show dev {ifname}"))
    return {v["vf"]: v for v in data[0].get("vfinfo_list", [])}


def vf_pci(vm, pf, i):
    return vm.check(f"basename $(readlink /sys/bus/pci/devices/{pf}/virtfn{i})").strip()


def vf_driver(vm, vf):
    return vm.check(f"basename $(readlink /sys/bus/pci/devices/{vf}/driver) 2>/dev/null; true").strip()


def assert_layout(vm, pci, ifname, mac0="02:00:00:00:01:00"):
    """The PF has LAYOUT; mac0 None: VF 0's MAC is a stable one (HOTPLUG_LAYOUT)."""
    assert vm.check(f"cat /sys/bus/pci/devices/{pci}/sriov_numvfs").strip() == "3"
    info = vfinfo(vm, ifname)
    v0 = info[0]
    if mac0 is None:
        assert int(v0["address"][:2], 16) & 0x03 == 0x02, "stable MAC: local unicast"
        mac0 = v0["address"]
    assert v0["address"] == mac0
    assert v0["vlan_list"][0]["vlan"] == 100 and v0["vlan_list"][0]["qos"] == 2, v0
    assert v0["spoofchk"] is False and v0["trust"] is True, v0
    assert info[2]["vlan_list"][0]["vlan"] == 200
    for i in (1, 2):
        assert int(info[i]["address"][:2], 16) & 0x03 == 0x02, "stable MAC: local unicast"
    vf0, vf1 = vf_pci(vm, pci, 0), vf_pci(vm, pci, 1)
    # igb: the VF netdev takes the MAC only when igbvf binds after it was set
    assert vm.check(f"cat /sys/bus/pci/devices/{vf0}/net/*/address").strip() == mac0
    assert vf_driver(vm, vf1) == "vfio-pci"
    group = vm.check(f"basename $(readlink /sys/bus/pci/devices/{vf1}/iommu_group)").strip()
    assert vm.run(f"test -c /dev/vfio/{group}")[0] == 0
    return info


def igbvf_probes(vm, vf):
    """How often igbvf probed the VF since boot: it logs this line once per probe."""
    log = vm.check("dmesg")
    return len(re.findall(rf"^\[[^\]]*\] igbvf {re.escape(vf)}: Intel\(R\) .*Virtual Function$",
                          log, re.M))


def assert_probed_once_on_its_driver(vm, pci):
    """The VFs were created with autoprobe off and bound by driver_override: the vfio-pci VF
    never saw igbvf, and autoprobe is on again."""
    vf0, vf1 = vf_pci(vm, pci, 0), vf_pci(vm, pci, 1)
    assert igbvf_probes(vm, vf1) == 0, vm.check("dmesg")
    assert igbvf_probes(vm, vf0) >= 1, vm.check("dmesg")
    assert vm.check(f"cat /sys/bus/pci/devices/{vf1}/driver_override").strip() == "vfio-pci"
    assert vm.check(f"cat /sys/bus/pci/devices/{vf0}/driver_override").strip() == "igbvf"
    assert vm.check(f"cat /sys/bus/pci/devices/{pci}/sriov_drivers_autoprobe").strip() == "1"


def report_apply(steps, what, rec):
    """One apply's wall time from its record, split into the kernel's share (time
    inside host operations: sysfs writes, netlink, module loads, waiting for
    udev) and ours (everything else)."""
    total = (rec["finished_usec"] - rec["started_usec"]) / 1e6
    kernel = rec["host_usec"] / 1e6
    steps.add(f"{what}: {rec['actions']} actions, total", total)
    steps.add(f"{what}: in the kernel", kernel)
    steps.add(f"{what}: ours", total - kernel)


def record(vm, pci):
    return json.loads(vm.check(f"cat /run/sriov-persist/pf/{pci}.json"))


def wait_for_boot_gate(vm):
    """The shell comes up before the boot is done: wait for the gate itself."""
    vm.wait_until("test \"$(systemctl show -p ActiveState --value sriov-persist-wait.service)\" "
                  "= active", 180)


def test_cold_boot_and_reboot(vm, product, steps):
    install(vm, product)
    (pci, ifname), = igb_pfs(vm).items()
    with steps("scenario 1: reboot into the layout"):
        vm.reboot()
        wait_for_boot_gate(vm)
    with steps("scenario 1: checks"):
        vm.wait_until("test -e /run/consumer-saw", 60)
        ifname = igb_pfs(vm)[pci]
        first = assert_layout(vm, pci, ifname)
        assert_probed_once_on_its_driver(vm, pci)
        assert vm.check("cat /run/consumer-saw").split() == ["3"], "kubelet's stand-in ran too early"
        rec = record(vm, pci)
        assert rec["state"] == "applied"
        report_apply(steps, "scenario 1: apply at boot", rec)
        assert vm.run("sriovctl plan")[0] == 0
        log = vm.check("journalctl -b -o cat -t sriov-persist")
        assert f"{pci}" in log and "applied" in log, log
    with steps("scenario 2: reboot again"):
        vm.reboot()
        wait_for_boot_gate(vm)
    with steps("scenario 2: checks"):
        vm.wait_until("test -e /run/consumer-saw", 60)
        again = assert_layout(vm, pci, igb_pfs(vm)[pci])
        for i in range(3):
            assert again[i]["address"] == first[i]["address"], "stable MACs changed over a reboot"
        assert vm.check("cat /run/consumer-saw").split() == ["3"]


def test_hotplug_and_unplug(vm, product, steps):
    install(vm, product, layout=HOTPLUG_LAYOUT, consumer=False)
    before = set(igb_pfs(vm))
    with steps("scenario 3: hotplug a second igb until its layout is applied"):
        t0 = time.monotonic()
        dev = vm.hotplug_igb("rp1")
        vm.wait_until("test $(ls /run/sriov-persist/pf/ | wc -l) -eq 1", 60)
        appeared = time.monotonic() - t0
    new = [p for p in igb_pfs(vm) if p not in before]
    assert len(new) == 1, igb_pfs(vm)
    pci = new[0]
    rec = record(vm, pci)
    assert rec["state"] == "applied", rec
    assert_layout(vm, pci, igb_pfs(vm)[pci], mac0=None)
    steps.add("scenario 3: device_add until applied", appeared)
    report_apply(steps, "scenario 3: apply on hotplug", rec)
    with steps("scenario 3: unplug"):
        vm.unplug(dev)
        vm.wait_until(f"! test -e /sys/bus/pci/devices/{pci}", 30)
    # a configured PF that left the host fails status (sriovctl(8) EXIT
    # STATUS) and says why, until a reset or a reboot drops its record
    rc, out = vm.run("sriovctl --no-color status")
    assert rc == 1, out
    assert re.search(rf"^{re.escape(pci)} .* gone ", out, re.M), out
    assert "no longer on the host" in out, out
    vm.check(f"sriovctl reset {pci}")
    rc, out = vm.run("sriovctl --no-color status")
    assert rc == 0 and " gone " not in out, out


def test_hand_written_numvfs_is_repaired(vm, product, steps):
    install(vm, product, consumer=False)
    (pci, ifname), = igb_pfs(vm).items()
    with steps("scenario 4: first apply"):
        assert vm.run("sriovctl apply", timeout=120)[0] == 0
    vm.check(f"echo 0 > /sys/bus/pci/devices/{pci}/sriov_numvfs && "
             f"echo 1 > /sys/bus/pci/devices/{pci}/sriov_numvfs && udevadm settle -t 30")
    rc, out = vm.run("sriovctl --no-color plan")
    assert rc == 10 and "VFs" in out, out
    with steps("scenario 4: repair"):
        rc, out = vm.run("sriovctl --no-color apply", timeout=120)
    assert rc == 0, out
    assert vm.run("sriovctl plan")[0] == 0
    assert_layout(vm, pci, igb_pfs(vm)[pci])


def test_rdma_netns_mode(vm, product, steps):
    """[RDMA] NetnsMode= on a real kernel: read from ib_core's parameter, set over RDMA netlink
    as rdma(8) does, refused with EBUSY while another network namespace exists. soft-RoCE
    (rdma_rxe) brings ib_core; the backend is driven by vm-nsim-vf, as igb VFs have no RDMA."""
    install(vm, product, consumer=False)

    def backend(how):
        return json.loads(vm.check(f"vm-nsim-vf --rdma-netns {how}"))

    assert "ib_core" not in vm.check("lsmod")
    assert backend("get")["mode"] == "none"
    assert "rdma_netns_mode" not in json.loads(vm.check("sriovctl snapshot"))
    assert "ib_core" not in vm.check("lsmod"), "reading the mode loaded ib_core"
    vm.check("modprobe rdma_rxe")
    assert backend("get") == {"mode": "shared", "errno": "0", "error": ""}
    with steps("RDMA netns mode: exclusive through the backend"):
        assert backend("exclusive")["mode"] == "exclusive"
    assert "netns exclusive" in vm.check("rdma system show")
    assert json.loads(vm.check("sriovctl snapshot"))["rdma_netns_mode"] == "exclusive"
    # another namespace: the kernel keeps the mode, and the backend says what to do
    vm.check("ip netns add sriov-test")
    out = backend("shared")
    assert out["errno"] == "EBUSY" and out["mode"] == "exclusive", out
    assert "options ib_core netns_mode=1" in out["error"], out
    vm.check("ip netns delete sriov-test")
    assert backend("shared") == {"mode": "shared", "errno": "0", "error": ""}
    assert "netns shared" in vm.check("rdma system show")


VFIO_LAYOUT = """[Match]
Driver=igb

[PhysicalFunction]
VirtualFunctions=2

[VirtualFunction 0]
Driver=vfio-pci
"""


def grub_linux_lines(vm):
    return [line.strip() for line in vm.check("cat /boot/grub/grub.cfg").splitlines()
            if line.strip().startswith("linux\t") or line.strip().startswith("linux ")]


@pytest.mark.kernel_append("intel_iommu=off")
def test_kernel_arguments_manage(vm, vm_image, product, steps):
    """KernelArguments=manage with Debian's own update-grub (the guest boots its kernel directly,
    so the grub.cfg it writes is read back, not booted): added by
    sriov-persist-kernel-arguments@add.service while the apply unit may not write /boot, a
    pending reboot in place of a degraded PF, and reset takes them out again."""
    install(vm, product, layout=VFIO_LAYOUT, consumer=False)
    assert vm.check("ls /sys/kernel/iommu_groups | wc -l").strip() == "0"
    # as the Debian installer leaves a host: the kernel image in /boot, /etc/default/grub and a
    # grub.cfg made by update-grub
    guest_image = vm.copy_in(vm_image["paths"]["kernel"], "vmlinuz")
    vm.check(f"install -m 0644 {guest_image} /boot/vmlinuz-$(uname -r) && "
             "mkdir -p /boot/grub && "
             "{ [ -e /etc/default/grub ] || cp /usr/share/grub/default/grub /etc/default/grub; } && "
             "update-grub")
    before = grub_linux_lines(vm)
    assert before and not any("iommu=pt" in line for line in before), before
    vm.check("mkdir -p /etc/sriov-persist/sriov-persist.conf.d && printf '[Reboot]\\n"
             "KernelArguments=manage\\nPolicy=never\\n' "
             ">/etc/sriov-persist/sriov-persist.conf.d/50-kargs.conf")
    (pci, _), = igb_pfs(vm).items()
    # the argument is the CPU's vendor's (-cpu max is the build machine's vendor)
    amd = "AuthenticAMD" in vm.check("grep -m1 vendor_id /proc/cpuinfo")
    args = ("amd_iommu=on" if amd else "intel_iommu=on") + " iommu=pt"
    plan = vm.run("sriovctl --no-color plan", timeout=60)[1]
    assert f"add kernel arguments {args} to the boot loader" in plan, plan
    with steps("kernel arguments: apply through update-grub"):
        rc, out = vm.run("sriovctl --no-color apply", timeout=300)
    assert rc == 0, out
    dropin = vm.check("cat /etc/default/grub.d/90-sriov-persist.cfg")
    assert f'GRUB_CMDLINE_LINUX="$GRUB_CMDLINE_LINUX {args}"' in dropin, dropin
    after = grub_linux_lines(vm)
    assert after and all(f" {args}" in line for line in after), after
    assert json.loads(vm.check("cat /var/lib/sriov-persist/kernel-arguments.json")) == \
        {"boot_loader": "grub", "added": args.split()}
    journal = vm.check("journalctl -b -o cat -u sriov-persist-kernel-arguments@add.service")
    assert f"added the kernel arguments {args} through grub" in journal, journal
    status = json.loads(vm.run("sriovctl status --json")[1])
    pf = next(p for p in status["pfs"] if p["pci"] == pci)
    # the VF is on vfio-pci only after the reboot: pending, never applied
    assert pf["state"] == "pending" and pf["pending_reboot_reasons"] == [
        f"kernel arguments {args} were added to the boot loader: the IOMMU that "
        "VF 0 wants for vfio-pci is on after a reboot"], pf
    # the applying unit itself may not write /boot: the one for kernel arguments does
    assert "ReadWritePaths=" not in vm.check("systemctl cat sriov-persist-apply@.service")
    assert vm.run("sriovctl plan")[0] == 0

    vm.check("rm /etc/sriov-persist/conf.d/50-igb.conf")
    with steps("kernel arguments: reset"):
        rc, out = vm.run(f"sriovctl --no-color reset {pci}", timeout=300)
    assert rc == 0, out
    assert vm.run("test -e /etc/default/grub.d/90-sriov-persist.cfg")[0] != 0
    assert vm.run("test -e /var/lib/sriov-persist/kernel-arguments.json")[0] != 0
    assert grub_linux_lines(vm) == before


def test_layout_error_holds_the_pf(vm, product, steps):
    install(vm, product, consumer=False)
    (pci, ifname), = igb_pfs(vm).items()
    assert vm.run("sriovctl apply", timeout=120)[0] == 0
    # the PF's link comes up a moment after LinkUp=yes: compare once it is there
    vm.wait_until(f"test $(cat /sys/class/net/{igb_pfs(vm)[pci]}/carrier) = 1", 30)
    before = vm.check(f"ip -j -d link show dev {igb_pfs(vm)[pci]}; "
                      f"ls -l /sys/bus/pci/devices/{pci}/ | grep virtfn; "
                      f"for v in /sys/bus/pci/devices/{pci}/virtfn*; do readlink $v/driver; done")
    vm.check("sed -i 's/^VLANId=100$/VLANId=5000/' /etc/sriov-persist/conf.d/50-igb.conf")
    with steps("scenario 5: apply a broken layout"):
        rc, out = vm.run("sriovctl --no-color apply", timeout=120)
    assert rc == 1 and "held" in out, out
    assert "/etc/sriov-persist/conf.d/50-igb.conf:13: VLANId=5000: must be 0..4095" in out, out
    after = vm.check(f"ip -j -d link show dev {igb_pfs(vm)[pci]}; "
                     f"ls -l /sys/bus/pci/devices/{pci}/ | grep virtfn; "
                     f"for v in /sys/bus/pci/devices/{pci}/virtfn*; do readlink $v/driver; done")
    assert after == before, "a held PF was changed"
    rc, out = vm.run("sriovctl --no-color status")
    assert rc == 1 and "held" in out and "50-igb.conf:13: VLANId=5000" in out, (rc, out)
    rc, _ = vm.run(f"systemctl start sriov-persist-apply@{pci}.service", timeout=120)
    assert rc != 0
    log = vm.check(f"journalctl -o cat -u sriov-persist-apply@{pci}.service")
    assert "VLANId=5000" in log and "held" in log, log


def test_netdevsim_64_vfs_every_attribute(vm, product, steps):
    """Attributes igb lacks (link state, 802.1ad, min rate, RSS query) on 64 VFs.

    netdevsim's VFs are not PCI functions, so sriovctl does not manage them;
    vm-nsim-vf drives the backend's VF request (one per VF, read back and
    verified inside) by the PF's ifindex, and ip(8) checks the result.
    """
    install(vm, product, consumer=False)
    sysdev = "/sys/bus/netdevsim/devices/netdevsim10"
    vm.check("modprobe netdevsim && echo '10 1' > /sys/bus/netdevsim/new_device")
    vm.wait_until(f"ls {sysdev}/net/*", timeout=30)
    nd = vm.check(f"ls {sysdev}/net").split()[0]
    # 6.1 netdevsim has no sriov_totalvfs: its limit is debugfs max_vfs (4 by default)
    vm.check(f"echo 64 > /sys/kernel/debug/netdevsim/netdevsim10/max_vfs && "
             f"echo 64 > {sysdev}/sriov_numvfs")
    with steps("scenario 6: 64 VFs, every attribute, through the backend"):
        out = vm.check(f"vm-nsim-vf {nd} 64", timeout=120)
    wanted = [json.loads(line) for line in out.splitlines() if line.startswith("{")]
    assert [w["vf"] for w in wanted] == list(range(64))
    info = vfinfo(vm, nd)
    for w in wanted:
        v = info[w["vf"]]
        vlan = v["vlan_list"][0]
        assert v["address"] == w["mac"], v
        assert (vlan["vlan"], vlan.get("qos", 0), vlan.get("protocol", "802.1Q")) == \
            (w["vlan"], w["qos"], w["proto"]), v
        assert v["spoofchk"] is w["spoofchk"] and v["trust"] is w["trust"], v
        assert v["link_state"] == w["link_state"], v
        assert v["query_rss_en"] is w["query_rss"], v
        assert v["rate"] == {"max_tx": w["max_tx"], "min_tx": w["min_tx"]}, v
    # hw-tc-offload over ethtool netlink: netdevsim has it, on and changeable; the backend turns it
    # off and on, reads it back, and ethtool(8) agrees
    def ethtool_k():
        line = next(x for x in vm.check(f"ethtool -k {nd}").splitlines()
                    if x.strip().startswith("hw-tc-offload:"))
        return line.split(":", 1)[1].strip()

    def backend(how):
        return json.loads(vm.check(f"vm-nsim-vf --hw-tc-offload {how} {nd}"))

    with steps("scenario 6: hw-tc-offload off and on through the backend"):
        assert backend("get") == {"hw_tc_offload": ethtool_k() == "on", "changeable": True}
        assert backend("off") == {"hw_tc_offload": False, "changeable": True}
        assert ethtool_k() == "off"
        assert backend("on") == {"hw_tc_offload": True, "changeable": True}
        assert ethtool_k() == "on"
    # InfiniBand GUIDs: each request of the backend (node, then port) gets through the kernel's
    # attribute policy to do_setvfinfo, which refuses it for a netdev without ndo_set_vf_guid
    # (only IPoIB has one) with EOPNOTSUPP; a malformed attribute would get EINVAL or ERANGE
    with steps("scenario 6: VF GUID requests reach the driver check"):
        out = json.loads(vm.check(f"vm-nsim-vf --guids {nd}"))
    assert out["errno"] == "EOPNOTSUPP", out
    # switchdev: each VF's representor, found by the backend among the device's netdevs by its
    # phys_port_name (pf0vf<i>), starts down (the VF has no link while it is, on mlx5 and ice)
    # and is brought up
    with steps("scenario 6: switchdev representors found and brought up"):
        vm.check(f"echo 0 > {sysdev}/sriov_numvfs && "
                 "devlink dev eswitch set netdevsim/netdevsim10 mode switchdev && "
                 f"echo 2 > {sysdev}/sriov_numvfs")
        vm.wait_until(f"[ $(ls {sysdev}/net | wc -l) -eq 3 ]", timeout=30)
        before, after = (json.loads(line) for line in
                         vm.check(f"vm-nsim-vf --representors {sysdev} 2").splitlines())
    reps = {vm.check(f"cat {sysdev}/net/{n}/phys_port_name").strip(): n
            for n in vm.check(f"ls {sysdev}/net").split()}
    assert [r["name"] for r in before] == [reps["pf0vf0"], reps["pf0vf1"]], (before, reps)
    assert [r["up"] for r in before] == [False, False]
    assert after == [{"name": r["name"], "up": True} for r in before], after
    for r in after:
        assert "UP" in json.loads(vm.check(f"ip -j link show dev {r['name']}"))[0]["flags"]
    vm.check(f"echo 0 > {sysdev}/sriov_numvfs && "
             "devlink dev eswitch set netdevsim/netdevsim10 mode legacy")
    # a feature the netdev cannot change: the backend says so, and the igb PF of the VM (an
    # 82576, older than the i350 that brought hw-tc-offload to igb) reads as fixed
    pf = next(iter(igb_pfs(vm)))
    doc = json.loads(vm.check("sriovctl snapshot"))
    assert next(p for p in doc["pfs"] if p["pci"] == pf)["hw_tc_offload_fixed"] is True

