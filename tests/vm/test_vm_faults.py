# SPDX-License-Identifier: LGPL-2.1-or-later
"""The harness's reading of the emulator's lost-interrupt fault (no VM needed).

The monitor texts are what QEMU 10.0 printed for a real hang of this kind
(both vCPUs halted, vCPU 0 with the local timer vector 236 in service),
shortened to the lines the harness reads and a few around them.
"""

import vm as vmlib

REGS = """CPU#0
RAX=ffffffff8dc59180 RBX=0000000000000000 RCX=0000000000000000 RDX=4000000000000000
RIP=ffffffff8dc592eb RFL=00000216 [----AP-] CPL=0 II=0 A20=1 SMM=0 HLT=1
ES =0000 0000000000000000 00000000 00000000
CPU#1
RAX=ffffffff8dc59180 RBX=0000000000000000 RCX=ff486447c6b906e0 RDX=4000000000000000
RIP=ffffffff8dc592eb RFL=00000206 [-----P-] CPL=0 II=0 A20=1 SMM=0 HLT=1
ES =0000 0000000000000000 00000000 00000000"""

LAPIC_STUCK = """dumping local APIC state for CPU 0

LVTT\t 0x000000ec active-hi edge                 one-shot     Fixed  (vec 236)
Timer\t DCR=0x3 (divide by 16) initial_count = 30677 current_count = 0
ISR\t 236 
IRR\t 37 236 

APR 0x00 TPR 0x10 DFR 0x0f LDR 0x01 PPR 0xe0"""

LAPIC_IDLE = """dumping local APIC state for CPU 1

LVTT\t 0x000000ec active-hi edge                 one-shot     Fixed  (vec 236)
Timer\t DCR=0x3 (divide by 16) initial_count = 221580 current_count = 7393
ISR\t (none)
IRR\t (none)

APR 0x01 TPR 0x10 DFR 0x0f LDR 0x02 PPR 0x10"""


class FakeMonitor(vmlib.VM):
    """A VM whose monitor answers from a table, one answer list per command."""

    def __init__(self, answers):  # pylint: disable=super-init-not-called
        self.answers = {k: list(v) for k, v in answers.items()}
        self.name = "fake"

    def monitor(self, cmd, timeout=15):
        seq = self.answers[cmd]
        return seq.pop(0) if len(seq) > 1 else seq[0]


def test_vcpu_states_parse():
    vm = FakeMonitor({"info registers -a": [REGS], "info lapic 0": [LAPIC_STUCK],
                      "info lapic 1": [LAPIC_IDLE]})
    cpus = vm.vcpu_states()
    assert [c["cpu"] for c in cpus] == [0, 1]
    assert cpus[0]["halted"] and cpus[0]["irq_enabled"]
    assert cpus[0]["isr"] == [236] and cpus[0]["irr"] == [37, 236] and cpus[0]["ppr"] == "0xe0"
    assert cpus[1]["isr"] == [] and cpus[1]["irr"] == [] and cpus[1]["ppr"] == "0x10"
    assert cpus[1]["rip"] == "ffffffff8dc592eb"


def test_lost_eoi_is_a_fault():
    vm = FakeMonitor({"info registers -a": [REGS], "info lapic 0": [LAPIC_STUCK],
                      "info lapic 1": [LAPIC_IDLE]})
    fault, states = vm.emulator_fault(interval=0)
    assert fault and "vCPU 0" in fault and "[236]" in fault, fault
    assert "vCPU 1:" in states and "PPR=0xe0" in states


def test_an_idle_guest_is_no_fault():
    vm = FakeMonitor({"info registers -a": [REGS], "info lapic 0": [LAPIC_IDLE],
                      "info lapic 1": [LAPIC_IDLE]})
    fault, _ = vm.emulator_fault(interval=0)
    assert fault is None


def test_an_interrupt_that_ends_is_no_fault():
    # In service at the first look, ended at the second: a handler that ran.
    vm = FakeMonitor({"info registers -a": [REGS], "info lapic 0": [LAPIC_STUCK, LAPIC_IDLE],
                      "info lapic 1": [LAPIC_IDLE]})
    fault, _ = vm.emulator_fault(interval=0)
    assert fault is None


def test_a_running_vcpu_is_no_fault():
    running = REGS.replace("RFL=00000216 [----AP-] CPL=0 II=0 A20=1 SMM=0 HLT=1",
                           "RFL=00000216 [----AP-] CPL=0 II=0 A20=1 SMM=0 HLT=0")
    vm = FakeMonitor({"info registers -a": [running], "info lapic 0": [LAPIC_STUCK],
                      "info lapic 1": [LAPIC_IDLE]})
    fault, _ = vm.emulator_fault(interval=0)
    assert fault is None


# Both vCPUs running with interrupts disabled and the timer pending: what QEMU
# showed for a kernel that stopped early in boot (tests/vm/README.md).
REGS_SPINNING = (REGS.replace("RFL=00000216 [----AP-] CPL=0 II=0 A20=1 SMM=0 HLT=1",
                              "RFL=00000046 [---Z-P-] CPL=0 II=0 A20=1 SMM=0 HLT=0")
                 .replace("RFL=00000206 [-----P-] CPL=0 II=0 A20=1 SMM=0 HLT=1",
                          "RFL=00000046 [---Z-P-] CPL=0 II=0 A20=1 SMM=0 HLT=0"))


class SilentGuest(FakeMonitor):
    """A guest whose console printed `console` and then nothing more."""

    def __init__(self, console):
        super().__init__({"info registers -a": [REGS_SPINNING], "info lapic 0": [LAPIC_IDLE],
                          "info lapic 1": [LAPIC_IDLE]})
        self._cond = vmlib.threading.Condition()
        self.console = vmlib._Port("console", "/nonexistent", "/nonexistent")
        self.shell = vmlib._Port("shell", "/nonexistent", "/nonexistent")
        self.console.buf += console
        self.console_log_path = self.shell_log_path = "/nonexistent"
        self.proc = None

    def emulator_fault(self, interval=1.0):
        return super().emulator_fault(interval=0)


def wait_boot_of(guest, timeout):
    return guest._wait_for(vmlib.READY_RE, 0, timeout, "the guest's root shell", boot=True,
                           kstart=0)


def test_a_kernel_silent_before_init_is_a_fault(monkeypatch):
    monkeypatch.setattr(vmlib, "EARLY_HANG_SECONDS", 0.5)
    guest = SilentGuest(b"[    1.468845] pnp: PnP ACPI: found 6 devices\n")
    try:
        wait_boot_of(guest, timeout=30)
    except vmlib.VMEmulatorFault as e:
        assert "before it started init" in str(e) and "IF=0" in str(e), str(e)
    else:
        raise AssertionError("no VMEmulatorFault")


def test_silence_after_init_is_no_fault(monkeypatch):
    # Once init runs, our programs run: silence is then the test's to judge.
    monkeypatch.setattr(vmlib, "EARLY_HANG_SECONDS", 0.5)
    guest = SilentGuest(b"[    2.493135] Run /init as init process\n")
    try:
        wait_boot_of(guest, timeout=2)
    except vmlib.VMEmulatorFault as e:
        raise AssertionError(f"taken for the emulator: {e}") from e
    except vmlib.VMBootError as e:
        assert "gave up after 2 s" in str(e), str(e)
    else:
        raise AssertionError("no VMBootError")


class DeadQemu:
    def poll(self):
        return -6


def test_qemu_aborting_on_its_own_assertion_is_a_fault(tmp_path):
    # seen under load in CI: QEMU's TCG aborts in its IOTLB code while the kernel enumerates PCI
    log = tmp_path / "qemu.log"
    log.write_text("qemu-system-x86_64: system/physmem.c:2678: iotlb_to_section: "
                   "Assertion `section_index < d->map.sections_nb' failed.\n")
    guest = SilentGuest(b"[    1.421500] pci 0000:00:04.0: [1b36:000c] type 01\n")
    guest.proc, guest.qemu_log_path = DeadQemu(), str(log)
    try:
        wait_boot_of(guest, timeout=30)
    except vmlib.VMEmulatorFault as e:
        assert "QEMU aborted on its own assertion" in str(e), str(e)
    else:
        raise AssertionError("no VMEmulatorFault")


def test_qemu_going_away_otherwise_is_no_fault(tmp_path):
    log = tmp_path / "qemu.log"
    log.write_text("qemu-system-x86_64: terminating on signal 15 from pid 1\n")
    guest = SilentGuest(b"[    1.421500] pci 0000:00:04.0: [1b36:000c] type 01\n")
    guest.proc, guest.qemu_log_path = DeadQemu(), str(log)
    try:
        wait_boot_of(guest, timeout=30)
    except vmlib.VMEmulatorFault as e:
        raise AssertionError(f"taken for the emulator: {e}") from e
    except vmlib.VMBootError as e:
        assert "QEMU went away (rc -6)" in str(e), str(e)
    else:
        raise AssertionError("no VMBootError")
