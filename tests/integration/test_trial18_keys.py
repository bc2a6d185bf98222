# SPDX-License-Identifier: LGPL-2.1-or-later
"""Trial 18: an unknown key says every section it belongs in ([Drift] Policy= belongs in
[Disruption] or [Reboot]), and a misspelt key of another section is suggested with its section
("did you mean 'VirtualFunctions' of [PhysicalFunction]?"), in the main configuration and in
layouts alike; a near key of the section itself still comes first."""

E810 = "0000:3b:00.0"


def check_errors(h):
    """sriovctl check's exit code and its error lines."""
    c = h.run("check")
    return c.returncode, [ln for ln in c.stderr.splitlines() if ": unknown key " in ln], c


def test_a_main_key_of_two_other_sections_names_both(make_host):
    h = make_host("e810.json")
    h.main.write_text("[Apply]\nTimeoutSec=2min\n[Drift]\nPolicy=never\n")
    rc, errors, c = check_errors(h)
    assert rc == 1 and errors == [
        f"{h.main}:4: unknown key 'Policy' in [Drift]; it belongs in [Disruption] or [Reboot]"
    ], c.stdout + c.stderr
    # a key of one other section names that one alone
    h.main.write_text("[Disruption]\nKernelArguments=check\n")
    rc, errors, c = check_errors(h)
    assert rc == 1 and errors == [
        f"{h.main}:2: unknown key 'KernelArguments' in [Disruption]; it belongs in [Reboot]"
    ], c.stdout + c.stderr


def test_a_misspelt_main_key_of_another_section_is_suggested_with_it(make_host):
    h = make_host("e810.json")
    h.main.write_text("[Drift]\nPolcy=never\n[Apply]\nNodeNme=worker-1\n[Reboot]\nPolcy=never\n")
    rc, errors, c = check_errors(h)
    assert rc == 1 and errors == [
        f"{h.main}:2: unknown key 'Polcy' in [Drift]; did you mean 'Policy' of [Disruption] "
        "or [Reboot]?",
        f"{h.main}:4: unknown key 'NodeNme' in [Apply]; did you mean 'NodeName' of "
        "[Kubernetes]?",
        # the section's own key is nearer than any other's
        f"{h.main}:6: unknown key 'Polcy' in [Reboot]; did you mean 'Policy'?",
    ], c.stdout + c.stderr
    # nothing near anywhere: no guess
    h.main.write_text("[Drift]\nFoo=1\n")
    rc, errors, c = check_errors(h)
    assert rc == 1 and errors == [f"{h.main}:2: unknown key 'Foo' in [Drift]"], c.stderr


def test_a_misspelt_layout_key_of_another_section_is_suggested_with_it(make_host):
    h = make_host("e810.json")
    p = h.layout("x.conf", f"[Match]\nPCIAddress={E810}\n[PhysicalFunction]\nVirtualFunctions=4\n"
                           "[VirtualFunction 0]\nVirtualFuntions=4\nFoo=1\n"
                           "[PhysicalFunction]\nspoofchk=off\nDrivr=iavf\n"
                           "[VirtualFunction 1]\nTrsut=yes\n")
    rc, errors, c = check_errors(h)
    assert rc == 1 and errors == [
        f"{p}:6: unknown key 'VirtualFuntions' in [VirtualFunction 0]; did you mean "
        "'VirtualFunctions' of [PhysicalFunction]?",
        f"{p}:7: unknown key 'Foo' in [VirtualFunction 0]",
        f"{p}:9: unknown key 'spoofchk' in [PhysicalFunction]; did you mean 'MACSpoofCheck' of "
        "[VirtualFunction]?",
        f"{p}:10: unknown key 'Drivr' in [PhysicalFunction]; did you mean 'Driver' of [Match] "
        "or [VirtualFunction]?",
        f"{p}:12: unknown key 'Trsut' in [VirtualFunction 1]; did you mean 'Trust'?",
    ], c.stdout + c.stderr
    # the PF stays held: nothing is applied
    before = h.path.read_bytes()
    a = h.run("apply")
    assert a.returncode == 1 and h.path.read_bytes() == before, a.stdout + a.stderr


def test_a_layout_key_of_two_other_sections_names_both(make_host):
    h = make_host("e810.json")
    p = h.layout("x.conf", "[Match]\nMTUBytes=9000\n")
    rc, errors, c = check_errors(h)
    assert rc == 1 and errors == [
        f"{p}:2: unknown key 'MTUBytes' in [Match]; it belongs in [PhysicalFunction] or "
        "[VirtualFunction]"
    ], c.stdout + c.stderr
