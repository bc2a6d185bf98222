# SPDX-License-Identifier: LGPL-2.1-or-later
"""The nineteenth fresh-eyes trial, the rest: import reports a check across a policy's fields
whenever the fields it reads have no error of their own, whatever errors the others have (4);
sriovctl(8) says when LAST APPLY/RESET is "-", as after a reset that drops the record (6); the
EXAMPLES of udev-helper(8) and k8s-notify(8) print what the programs print (7)."""

import json
import re
import subprocess
import sys

from conftest import ROOT, _binary

# --- 4: a check across fields is not hidden by an unrelated field's error ----------------------

TYPOS = """apiVersion: sriovnetwork.openshift.io/v1
kind: SriovNetworkNodePolicy
metadata:
  name: typos
spec:
  resourceName: typos
  nodeSelector: {{}}
  numVfs: 4
  priority: 100
  nicSelector:
    pfNames: ["{pf}"]
{vendor}"""


def import_policy(sriovctl_bin, tmp_path, text):
    (tmp_path / "out").mkdir()
    src = tmp_path / "p1.yaml"
    src.write_text(text)
    return subprocess.run([sriovctl_bin, "import", "--output-dir", str(tmp_path / "out"),
                           str(src)], capture_output=True, text=True, timeout=60, cwd=tmp_path)


def test_the_pf_names_range_check_is_not_hidden_by_a_bad_vendor(tmp_path, sriovctl_bin):
    r = import_policy(sriovctl_bin, tmp_path,
                      TYPOS.format(pf="ens1f0#4-9", vendor='    vendor: "8086x"\n'))
    assert r.returncode == 1
    assert r.stderr.splitlines() == [
        f"{tmp_path}/p1.yaml:9: policy typos: priority: 100: must be a number 0..99",
        f"{tmp_path}/p1.yaml:11: policy typos: nicSelector.pfNames: VFs 4-9: beyond numVfs 4",
        f"{tmp_path}/p1.yaml:12: policy typos: nicSelector.vendor: 8086x: must be four hex digits",
        "3 errors: no file written",
    ]
    assert list((tmp_path / "out").iterdir()) == []


def test_a_bad_pf_names_entry_skips_the_checks_that_read_it(tmp_path, sriovctl_bin):
    # the range of the entry that parses is beyond numVfs, but pfNames has an error of its own
    r = import_policy(sriovctl_bin, tmp_path,
                      TYPOS.format(pf='ens1f0#4-9", "ens1f1#x', vendor=""))
    assert r.returncode == 1
    assert "beyond numVfs" not in r.stderr
    assert "ens1f1#x: the VF range after '#' must be FIRST-LAST" in r.stderr


# --- 6: LAST APPLY/RESET after a reset that drops the record -----------------------------------

def man_text(page):
    """A page as plain as roff allows: no font escapes, \\- as -, lines joined."""
    text = (ROOT / "man" / page).read_text()
    return re.sub(r"\\f[BIRP]", "", text).replace("\\-", "-").replace("\\(aq", "'")


def test_last_apply_reset_is_dash_after_a_reset_and_the_manual_says_so(make_host):
    h = make_host("bnxt.json")
    h.layout("50-bnxt.conf", "[Match]\nName=eno12399np0\n\n[PhysicalFunction]\n"
             "VirtualFunctions=4\n")
    assert h.run("apply").returncode == 0
    (h.confdir / "50-bnxt.conf").unlink()
    r = h.run("reset", "eno12399np0")
    assert r.returncode == 0, r.stdout + r.stderr
    assert "0000:31:00.0 (eno12399np0): reset, 1 action(s); 0 VFs" in r.stdout
    row = next(line for line in h.run("status").stdout.splitlines()
               if line.startswith("0000:31:00.0"))
    assert row.split()[-1] == "-", row
    man = " ".join(man_text("sriovctl.8").split())
    assert ("LAST APPLY/RESET (when the PF's last apply or reset finished: the time of its status "
            "record, last_apply.finished_usec in --json; - when the PF has none, and last_apply is "
            "then null: it was never applied; or a reset removed what sriov-persist created and "
            "dropped its record, see reset;") in man
    assert ('a reset that leaves nothing of sriov-persist\'s on the PF ("reset, 1 action(s); '
            '0 VFs") drops its status record: status then shows - under LAST APPLY/RESET') in man


# --- 7: the EXAMPLES of udev-helper(8) and k8s-notify(8) ----------------------------------------

def examples(page):
    """The commands of the page's EXAMPLES, each with the lines it prints: [(argv, [lines])]."""
    text = man_text(page)
    section = re.search(r"^\.SH EXAMPLES\n(.*?)^\.SH ", text, re.S | re.M).group(1)
    out = []
    for block in re.findall(r"^\.nf\n(.*?)^\.fi\n", section, re.S | re.M):
        for line in block.splitlines():
            if line.startswith("# "):
                out.append((line[2:], []))
            else:
                out[-1][1].append(line)
    return out


README_LAYOUT = re.search(r"```ini\n(.*?)```", (ROOT / "README.md").read_text(), re.S).group(1)


def test_udev_helper_examples_print_what_the_page_shows(make_host):
    helper = _binary("SRIOV_UDEV_HELPER", "build/asan/udev-helper")
    h = make_host("e810.json")
    h.layout("50-e810.conf", README_LAYOUT.replace(
        "[VirtualFunction 8-15]\n", "[VirtualFunction 8-15]\nResourceName=e810_rdma\n"))
    r = h.run("apply")
    assert r.returncode == 0, r.stdout + r.stderr
    names = {v["pci"]: v["name"] for p in h.state()["pfs"] for v in p["vfs"]}
    ran, vf_names = 0, set()
    for cmd, lines in examples("udev-helper.8"):
        argv = cmd.split()
        if argv[0] == "/usr/libexec/sriov-persist/udev-helper" and argv[1] in ("match", "vf"):
            p = subprocess.run([helper, "--host", str(h.path), "--config-dir", str(h.confdir),
                                "--main-config", str(h.main), *argv[1:]],
                               capture_output=True, text=True, timeout=60)
            assert p.returncode == 0, p.stderr
            assert p.stdout.splitlines() == lines, cmd
            ran += 1
            if argv[1] == "vf":
                vf_names.add(names[argv[2]])
        for name in re.findall(r"\bens1f0v\d+\b", cmd + "\n".join(lines)):
            assert name in vf_names, f"{cmd}: {name} is not the VF the example ran"
    assert ran == 2


def test_k8s_notify_examples_print_what_the_page_shows(tmp_path):
    sys.path.insert(0, str(ROOT / "tests" / "k8s"))
    import test_k8s_notify as k8s  # noqa: E402
    from apiserver import ApiServer  # noqa: E402

    binary = _binary("K8S_NOTIFY", "build/asan/k8s-notify")
    srv = ApiServer(tmp_path / "apiserver").start()
    try:
        srv.add_token(k8s.TOKEN, k8s.USER)
        k8s.grant_tool(srv)
        srv.add_node("worker-7", allocatable={})
        k8s.K8S_NOTIFY = binary
        tool = k8s.Tool(srv, tmp_path)
        # the state the second example starts from: our cordon, our slot
        for setup in (["cordon"], ["lease", "acquire"]):
            assert subprocess.run(tool.argv(*setup, node="worker-7"), capture_output=True,
                                  timeout=120).returncode == 0
        ran = 0
        for cmd, lines in examples("k8s-notify.8"):
            if not cmd.startswith("./k8s-notify "):
                continue
            args = re.findall(r"'[^']*'|\S+", cmd)[1:]
            p = subprocess.run(tool.argv(*[a.strip("'") for a in args], node="worker-7"),
                               capture_output=True, text=True, timeout=120)
            assert p.returncode == 0, p.stderr
            messages = [line for line in lines if line.startswith("k8s-notify: ")]
            assert p.stderr.splitlines() == messages, cmd
            shown = json.loads("".join(line for line in lines if line not in messages))
            got = json.loads(p.stdout)
            # the credentials are the node's on the page, the test's here
            assert set(shown.pop("credentials")) == set(got.pop("credentials")), cmd
            assert got == shown, cmd
            ran += 1
        assert ran == 3
    finally:
        srv.stop()
    assert not srv.errors, "\n".join(srv.errors)
