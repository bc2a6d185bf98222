# SPDX-License-Identifier: LGPL-2.1-or-later
"""The Debian package on a real kernel: installed with dpkg (no make install),
everything works at once (the daemon on the bus, the udev rule for a NIC
hotplugged then); the reboot brings the VFs back before a unit ordered
after the boot gate; an upgrade keeps the administrator's files and restarts
the daemon without touching the VFs; remove stops and disables everything and
keeps the conffiles and the VFs; purge leaves no file of ours.

The packages are built here from the tree (scripts/build-package, without the
build-time tests, which make check runs): the tree's version and a newer one.
"""

import json
import os
import subprocess

import pytest

from test_scenarios import CONSUMER, REPO, igb_pfs, wait_for_boot_gate

NEWER = "+upgrade1"

LAYOUT = """[Match]
Driver=igb

[PhysicalFunction]
VirtualFunctions=3
LinkUp=yes

# stable: the layout selects the igb hotplugged later too, and a literal
# address on VFs of two PFs is an error that holds both
[VirtualFunction 0]
MACAddress=stable
VLANId=100
Trust=yes
"""


@pytest.fixture(scope="session")
def debs(tmp_path_factory):
    """{version: path of sriov-persist_<version>_<arch>.deb} for the tree's and a newer one."""
    version = open(os.path.join(REPO, "VERSION")).read().strip()
    out = {}
    for v in (version, version + NEWER):
        d = tmp_path_factory.mktemp("deb")
        env = dict(os.environ, SRIOV_PERSIST_PKG_OUT=str(d), SRIOV_PERSIST_PKG_VERSION=v,
                   DEB_BUILD_OPTIONS="nocheck")
        p = subprocess.run([os.path.join(REPO, "scripts", "build-package"), "deb"], env=env,
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        assert p.returncode == 0, p.stdout[-6000:]
        found = list((d / "deb").glob(f"sriov-persist_{v}_*.deb"))
        assert len(found) == 1, found
        out[v] = found[0]
    return out


def vf_state(vm, pci):
    """num_vfs and each VF netdev's ifindex: a VF destroyed and made again has a new one."""
    out = vm.check(f"cat /sys/bus/pci/devices/{pci}/sriov_numvfs; "
                   f"for v in /sys/bus/pci/devices/{pci}/virtfn*; do "
                   f"cat $v/net/*/ifindex 2>/dev/null || echo -; done")
    return out.split()


def dpkg_install(vm, deb):
    vm.copy_in(str(deb), deb.name)
    vm.check(f"dpkg -i /mnt/share/{deb.name}", timeout=180)


def daemon_pid(vm):
    return vm.check("systemctl show -p MainPID --value sriov-persistd.service").strip()


def test_install_reboot_upgrade_remove_purge(vm, debs, steps):
    (pci, _), = igb_pfs(vm).items()
    old, new = sorted(debs, key=len)
    with steps("package: dpkg -i"):
        dpkg_install(vm, debs[old])
    # running at once, without a reboot: the bus took the policy, the daemon its name
    vm.wait_until("systemctl is-active -q sriov-persistd.service", 60)
    vm.wait_until("busctl --system status org.sriovpersist1", 30)
    log = vm.check("journalctl -b -o cat -u sriov-persistd.service")
    assert "Cannot own" not in log, log
    assert vm.check("systemctl is-enabled sriov-persistd.service sriov-persist-wait.service")\
        .split() == ["enabled", "enabled"]
    files = vm.check("dpkg -L sriov-persist").split()
    with steps("package: a layout dropped into /etc is applied"):
        with open(os.path.join(vm.share, "50-igb.conf"), "w") as f:
            f.write(LAYOUT)
        vm.check("install -m 0644 /mnt/share/50-igb.conf /etc/sriov-persist/conf.d/")
        vm.wait_until(f"test $(cat /sys/bus/pci/devices/{pci}/sriov_numvfs) -eq 3 && "
                      f"sriovctl status {pci}", 60)
    with steps("package: a NIC hotplugged now gets its layout"):
        dev = vm.hotplug_igb("rp1")
        vm.wait_until("test $(ls /run/sriov-persist/pf/ | wc -l) -eq 2", 60)
    new_pf, = (p for p in igb_pfs(vm) if p != pci)
    assert json.loads(vm.check(f"cat /run/sriov-persist/pf/{new_pf}.json"))["state"] == "applied"
    assert vm.check(f"cat /sys/bus/pci/devices/{new_pf}/sriov_numvfs").strip() == "3"
    # by its apply unit: the udev rule is live without a reboot
    log = vm.check(f"journalctl -b -o cat -u sriov-persist-apply@{new_pf}.service")
    assert "applied" in log, log
    vm.unplug(dev)
    vm.wait_until(f"! test -e /sys/bus/pci/devices/{new_pf}", 30)
    # the administrator's own settings, kept over an upgrade
    vm.check("printf '\\n[Drift]\\nSafetyScanSec=300\\n' >>/etc/sriov-persist/sriov-persist.conf && "
             "sriovctl check && systemctl reload sriov-persistd.service")

    with open(os.path.join(vm.share, "sriov-consumer.service"), "w") as f:
        f.write(CONSUMER)
    vm.check("install -m 0644 /mnt/share/sriov-consumer.service /etc/systemd/system/ && "
             "systemctl daemon-reload && systemctl enable sriov-consumer.service")
    with steps("package: reboot into the layout"):
        vm.reboot()
        wait_for_boot_gate(vm)
        vm.wait_until("test -e /run/consumer-saw", 60)
    assert vm.check("cat /run/consumer-saw").split() == ["3"], "the consumer ran before the VFs"
    vm.wait_until("systemctl is-active -q sriov-persistd.service", 60)
    vm.wait_until(f"sriovctl status {pci}", 30)

    before, pid = vf_state(vm, pci), daemon_pid(vm)
    with steps("package: upgrade"):
        dpkg_install(vm, debs[new])
    vm.wait_until("systemctl is-active -q sriov-persistd.service", 60)
    assert vm.check("dpkg-query -W -f '${Version}' sriov-persist").strip() == new
    assert daemon_pid(vm) != pid, "the daemon was not restarted by the upgrade"
    vm.check("systemctl is-active -q sriov-persist-wait.service")   # the boot gate as it was
    assert vm.check("grep -c '^SafetyScanSec=300' /etc/sriov-persist/sriov-persist.conf")\
        .strip() == "1"
    assert vm.run("test -e /etc/sriov-persist/sriov-persist.conf.dpkg-new")[0] != 0
    vm.check("test -e /etc/sriov-persist/conf.d/50-igb.conf")
    vm.wait_until(f"sriovctl status {pci}", 30)
    assert vf_state(vm, pci) == before, "the upgrade touched the VFs"

    with steps("package: apt-get remove"):
        vm.check("apt-get remove -y sriov-persist", timeout=180)
    for unit in ("sriov-persistd.service", "sriov-persist-wait.service"):
        assert vm.run(f"systemctl is-active -q {unit}")[0] != 0, unit
        assert vm.run(f"systemctl is-enabled -q {unit}")[0] != 0, unit
    assert vm.run("busctl --system status org.sriovpersist1")[0] != 0
    vm.check("test -e /etc/sriov-persist/sriov-persist.conf")   # conffiles stay
    assert vf_state(vm, pci) == before, "remove touched the VFs"

    with steps("package: dpkg --purge"):
        vm.check("dpkg --purge sriov-persist", timeout=180)
    left = vm.check("for f in " + " ".join(files) + " /var/lib/sriov-persist /run/sriov-persist; "
                    "do [ -e \"$f\" ] && [ ! -d \"$f\" -o \"$f\" = /var/lib/sriov-persist -o "
                    "\"$f\" = /run/sriov-persist ] && echo \"$f\"; done; true").split()
    assert left == [], f"purge left {left}"
    # the administrator's layout is theirs, not the package's
    vm.check("test -e /etc/sriov-persist/conf.d/50-igb.conf")
    assert vf_state(vm, pci) == before, "purge touched the VFs"
    print(json.dumps({"deb_sizes": {v: p.stat().st_size for v, p in debs.items()}}))
