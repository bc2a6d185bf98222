# SPDX-License-Identifier: LGPL-2.1-or-later
"""The fleet examples of packaging/fleet and the migration guide sriov-persist-migration(7).

Each example (an OpenShift MachineConfig, a cloud-init write_files list, an Ansible
playbook) is parsed as YAML and its files decoded: they go to the paths the manuals name,
with the modes the manuals ask for, the kubeconfig before the first layout (README), none
of them a file the packages install; and the files, written under a root directory, pass
the real sriovctl check. The guide's sriovctl commands name verbs and options that exist.
"""
import os
import re
import shlex
import shutil
import subprocess
import urllib.parse
from pathlib import Path

import pytest
import yaml

from conftest import ROOT, FIXTURES, _binary

FLEET = ROOT / "packaging" / "fleet"
GUIDE = ROOT / "man" / "sriov-persist-migration.7"
LAYOUT_DIR = "/etc/sriov-persist/conf.d/"
DROPIN_DIR = "/etc/sriov-persist/sriov-persist.conf.d/"


def _page(name):
    return (ROOT / "man" / name).read_text()


def _unroff(text):
    return re.sub(r"\\f[BIRP]", "", text).replace("\\-", "-").replace("\\e", "\\").replace("\\(aq", "'")


def kubeconfig_path():
    """The default [Kubernetes] Kubeconfig= of sriov-persist.conf(5)."""
    page = _page("sriov-persist.conf.5")
    section = page[page.index(".BI Kubeconfig= PATH"):]
    return re.search(r"Default: \\fI(/[^\\]+)\\fR", section).group(1)


def _data_url(source):
    head, _, data = source.partition(",")
    assert head.startswith("data:"), source[:40]
    if head.endswith(";base64"):
        import base64
        return base64.b64decode(data).decode()
    return urllib.parse.unquote(data)


ROLE = "machineconfiguration.openshift.io/role"


def machineconfig_docs():
    """The MachineConfigPool and the MachineConfig of machineconfig.yaml, by kind."""
    docs = list(yaml.safe_load_all((FLEET / "machineconfig.yaml").read_text()))
    assert all(d["apiVersion"] == "machineconfiguration.openshift.io/v1" for d in docs)
    kinds = {d["kind"]: d for d in docs}
    assert sorted(kinds) == ["MachineConfig", "MachineConfigPool"] and len(docs) == 2
    return kinds["MachineConfigPool"], kinds["MachineConfig"]


def machineconfig():
    doc = machineconfig_docs()[1]
    assert doc["metadata"]["labels"][ROLE]
    config = doc["spec"]["config"]
    assert re.fullmatch(r"3\.\d+\.\d+", config["ignition"]["version"])
    files = []
    for entry in config["storage"]["files"]:
        assert entry["overwrite"] is True, entry["path"]
        assert isinstance(entry["mode"], int), entry["path"]
        files.append((entry["path"], entry["mode"], _data_url(entry["contents"]["source"])))
    return files


def cloud_init():
    text = (FLEET / "cloud-init.yaml").read_text()
    assert text.startswith("#cloud-config\n")
    files = []
    for entry in yaml.safe_load(text)["write_files"]:
        assert entry["owner"] == "root:root", entry["path"]
        assert "encoding" not in entry and "defer" not in entry, entry["path"]
        files.append((entry["path"], int(entry["permissions"], 8), entry["content"]))
    return files


def ansible_play():
    plays = yaml.safe_load((FLEET / "ansible-playbook.yml").read_text())
    assert len(plays) == 1 and plays[0]["become"] is True
    return plays[0]


def _render(value, play):
    """A task's string with the play's plain vars ({{ name }}) put in."""
    plain = {k: v for k, v in play["vars"].items() if "{{" not in v}
    return re.sub(r"\{\{\s*(\w+)\s*\}\}", lambda m: plain.get(m.group(1), m.group(0)), value)


def _copies(play):
    for task in play["tasks"]:
        copy = task.get("ansible.builtin.copy")
        if copy is not None:
            yield task, {k: _render(v, play) if isinstance(v, str) else v for k, v in copy.items()}


def ansible():
    """(dest, mode, content or None for a file the administrator supplies) per file the
    play puts into /etc; a file staged on the node and copied from there has its content."""
    play = ansible_play()
    staged = {copy["dest"]: copy.get("content") for _, copy in _copies(play)}
    files = []
    for _, copy in _copies(play):
        assert (copy["owner"], copy["group"]) == ("root", "root"), copy["dest"]
        assert isinstance(copy["mode"], str), copy["dest"]  # "0644", never the decimal 644
        assert ("src" in copy) != ("content" in copy), copy["dest"]
        if copy["dest"] in {c["src"] for _, c in _copies(play) if c.get("remote_src")}:
            continue
        content = staged[copy["src"]] if copy.get("remote_src") else copy.get("content")
        files.append((copy["dest"], int(copy["mode"], 8), content))
    return files


EXAMPLES = {"machineconfig": machineconfig, "cloud-init": cloud_init, "ansible": ansible}


def _roles(files):
    kubeconfig = kubeconfig_path()
    kube = [i for i, f in enumerate(files) if f[0] == kubeconfig]
    dropins = [i for i, f in enumerate(files) if f[0].startswith(DROPIN_DIR)]
    layouts = [i for i, f in enumerate(files) if f[0].startswith(LAYOUT_DIR)]
    return kube, dropins, layouts


@pytest.mark.parametrize("name", EXAMPLES)
def test_paths_modes_and_order(name):
    files = EXAMPLES[name]()
    kube, dropins, layouts = _roles(files)
    assert len(kube) == 1, f"{name}: one kubeconfig at {kubeconfig_path()}"
    assert dropins and layouts, f"{name}: a drop-in in {DROPIN_DIR} and a layout in {LAYOUT_DIR}"
    assert kube[0] < min(layouts) and kube[0] < min(dropins), f"{name}: the kubeconfig comes first"
    assert files[kube[0]][1] == 0o600
    for i in dropins + layouts:
        path, mode, _ = files[i]
        assert path.endswith(".conf") and os.path.dirname(path) + "/" in (LAYOUT_DIR, DROPIN_DIR), path
        assert mode == 0o644, f"{name}: {path} mode {mode:o}"
    for path, mode, _ in files:
        assert path.startswith("/etc/sriov-persist/"), path
        assert not mode & 0o022, f"{name}: {path} writable by group or others"


def test_machineconfig_is_for_its_own_pool():
    """The custom-pool pattern: the MachineConfig reaches the nodes labelled into the pool,
    never the whole worker pool, whose MachineConfigs the pool inherits."""
    pool, mc = machineconfig_docs()
    name = pool["metadata"]["name"]
    assert name != "worker"
    assert mc["metadata"]["labels"] == {ROLE: name}
    assert pool["spec"]["machineConfigSelector"] == {
        "matchExpressions": [{"key": ROLE, "operator": "In", "values": ["worker", name]}]}
    label = f"node-role.kubernetes.io/{name}"
    assert pool["spec"]["nodeSelector"] == {"matchLabels": {label: ""}}
    guide = _unroff(GUIDE.read_text())
    assert f"kubectl label node worker-8 {label}=\n" in guide
    assert f"{label}=" in (FLEET / "machineconfig.yaml").read_text()


@pytest.mark.parametrize("name", sorted(p.name for p in FLEET.iterdir()))
def test_examples_say_their_layout_stands_for_the_imported_ones(name):
    """Each example, and the guide, says its layout is to be replaced with import's files."""
    head = " ".join(line.lstrip("# ") for line in (FLEET / name).read_text().splitlines()
                    if line.startswith("#"))
    for words in ("stands for the files that sriovctl import wrote and sriovctl compare passed",
                  "makes the plan disruptive"):
        assert words in head, f"{name}: {words}"
    guide = " ".join(_unroff(GUIDE.read_text()).split())
    assert "it stands for the files that sriovctl import wrote and sriovctl compare passed" in guide


def test_the_manuals_name_these_directories():
    assert "/etc/sriov-persist/sriov-persist.conf.d/*.conf" in _page("sriov-persist.conf.5")
    assert "/etc/sriov-persist/conf.d/*.conf" in _page("sriovctl.8")


def test_the_examples_carry_the_same_files():
    """One drop-in and the shipped E810 example layout, alike in all three."""
    seen = {}
    for name, load in EXAMPLES.items():
        files = load()
        _, dropins, layouts = _roles(files)
        seen[name] = {files[i][0]: files[i][2] for i in dropins + layouts}
    assert seen["machineconfig"] == seen["cloud-init"] == seen["ansible"]
    layout = seen["ansible"][LAYOUT_DIR + "50-e810-rdma.conf"]
    assert layout == (ROOT / "conf.d" / "50-e810-rdma.conf").read_text()
    kube = kubeconfig_path()
    mc = {p: c for p, _, c in machineconfig()}
    assert mc[kube] == {p: c for p, _, c in cloud_init()}[kube]


def _expand(path, macros):
    return re.sub(r"%\{(\w+)\}", lambda m: macros[m.group(1)], path)


def shipped_files():
    """Every file the packages install, from the RPM's %files and the .deb's .install lists."""
    spec = (ROOT / "packaging" / "rpm" / "sriov-persist.spec").read_text()
    macros = {"_sysconfdir": "/etc", "_sbindir": "/usr/sbin", "_libexecdir": "/usr/libexec",
              "_unitdir": "/usr/lib/systemd/system", "_presetdir": "/usr/lib/systemd/system-preset",
              "_udevrulesdir": "/usr/lib/udev/rules.d", "_datadir": "/usr/share",
              "_mandir": "/usr/share/man", "_docdir": "/usr/share/doc", "name": "sriov-persist",
              "bash_completions_dir": "/usr/share/bash-completion/completions"}
    files, dirs, in_files = set(), set(), False
    for line in spec.splitlines():
        if line.startswith("%files"):
            in_files = True
            continue
        if line.startswith("%changelog"):
            in_files = False
        if not in_files or not line.strip() or line.startswith(("%license", "%doc")):
            continue
        words = line.split()
        path = _expand(words[-1], macros).rstrip("*")
        (dirs if words[0] == "%dir" else files).add(path)
    for install in (ROOT / "packaging" / "deb" / "debian").glob("*.install"):
        for line in install.read_text().splitlines():
            path = "/" + line.split()[0]
            if not path.startswith("/${") and path not in dirs:
                files.add(path)
    assert "/etc/sriov-persist/sriov-persist.conf" in files
    return files


@pytest.mark.parametrize("name", EXAMPLES)
def test_no_shipped_file_is_replaced(name):
    shipped = shipped_files()
    for path, _, _ in EXAMPLES[name]():
        assert path not in shipped, f"{name}: {path} is the package's own file"


def _write_root(root, files):
    """The node's /etc as the package leaves it, with the example's files."""
    etc = root / "etc" / "sriov-persist"
    (etc / "conf.d").mkdir(parents=True)
    shutil.copy(ROOT / "conf" / "sriov-persist.conf", etc / "sriov-persist.conf")
    for path, mode, content in files:
        if content is None:
            continue
        target = root / path.lstrip("/")
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(content)
        target.chmod(mode)


@pytest.mark.parametrize("name", EXAMPLES)
def test_sriovctl_check_accepts_the_files(name, tmp_path, sriovctl_bin):
    root = tmp_path / "node"
    _write_root(root, EXAMPLES[name]())
    out = subprocess.run([sriovctl_bin, "--root", str(root), "check", "--strict"],
                         capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    assert "1 layout file(s) and the main configuration checked: 0 error(s)" in out.stdout
    host = tmp_path / "e810.json"
    shutil.copy(FIXTURES / "e810.json", host)
    out = subprocess.run([sriovctl_bin, "--root", str(root), "--host", str(host), "check", "--strict"],
                         capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    out = subprocess.run([sriovctl_bin, "--root", str(root), "--host", str(host), "plan"],
                         capture_output=True, text=True, timeout=60)
    assert out.returncode == 10, out.stdout + out.stderr
    assert "0000:3b:00.0 (ens1f0): 47 action(s), all live" in out.stdout


def test_sriovctl_check_finds_a_broken_layout(tmp_path, sriovctl_bin):
    """The check above is one that fails: the same files with a mistyped key."""
    files = [(p, m, c.replace("VirtualFunctions=16", "VirtualFuntions=16") if p.startswith(LAYOUT_DIR) else c)
             for p, m, c in machineconfig()]
    root = tmp_path / "node"
    _write_root(root, files)
    out = subprocess.run([sriovctl_bin, "--root", str(root), "check", "--strict"],
                         capture_output=True, text=True, timeout=60)
    assert out.returncode == 1
    assert "did you mean 'VirtualFunctions'?" in out.stderr


def test_ansible_validates_the_dropin_with_sriovctl(tmp_path, sriovctl_bin):
    """Each validate: command, run as the copy module runs it (%s: its temporary file)."""
    root = tmp_path / "node"
    _write_root(root, ansible())
    validated = 0
    for _, copy in _copies(ansible_play()):
        if "validate" not in copy:
            continue
        # validate: judges a file named as Ansible's temporary file, not as the file it
        # replaces, which sriovctl check reads beside it when that is a layout
        assert copy["dest"].startswith(DROPIN_DIR), f"{copy['dest']}: a layout is checked staged"
        source = tmp_path / "source"
        source.write_text(copy["content"])
        argv = shlex.split(copy["validate"].replace("%s", str(source)))
        assert argv[0] == "/usr/sbin/sriovctl"
        # the node's files: its layouts beside the new drop-in; --root keeps the credentials
        # (another root's files) out of it
        out = subprocess.run([sriovctl_bin, "--root", str(root)] + argv[1:], capture_output=True,
                             text=True, timeout=60)
        assert out.returncode == 0, f"{copy['dest']}: {out.stderr}"
        validated += 1
    assert validated == 1


def _node_sriovctl(sriovctl_bin, root, argv):
    """A sriovctl command of the play, run on the node ROOT: its paths are the node's."""
    assert argv[0] == "/usr/sbin/sriovctl", argv
    args = [str(root) + a if a.startswith("/") else a for a in argv[1:]]
    return subprocess.run([sriovctl_bin, "--root", str(root)] + args, capture_output=True,
                          text=True, timeout=60)


def _copy_layout(copy, root, text, sriovctl_bin, checks):
    """A copy of the layout's content: its validate: on the module's temporary file, then the
    file written; False when the validate refused it."""
    if "validate" in copy:
        source = root / "root" / ".ansible" / "tmp" / "source"
        source.parent.mkdir(parents=True, exist_ok=True)
        source.write_text(text)
        argv = shlex.split(copy["validate"].replace("%s", "/" + str(source.relative_to(root))))
        checks.append(_node_sriovctl(sriovctl_bin, root, argv))
        if checks[-1].returncode != 0:
            return False
    target = root / copy["dest"].lstrip("/")
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(text)
    return True


def _play_layout(root, text, sriovctl_bin):
    """The play's tasks that bring the example layout to the node, run with TEXT as its new
    content on the node ROOT, which has the version of the last run: whether the play
    installs it, and the checks it ran on the way."""
    play = ansible_play()
    example = (ROOT / "conf.d" / "50-e810-rdma.conf").read_text()
    layout = LAYOUT_DIR + "50-e810-rdma.conf"
    checks = []
    for task in play["tasks"]:
        copy = task.get("ansible.builtin.copy")
        command = task.get("ansible.builtin.command")
        if copy is not None:
            copy = {k: _render(v, play) if isinstance(v, str) else v for k, v in copy.items()}
        if copy is not None and copy.get("remote_src") and copy["dest"] == layout:
            shutil.copy(root / copy["src"].lstrip("/"), root / layout.lstrip("/"))
            return True, checks
        if copy is not None and copy.get("content") == example:
            if not _copy_layout(copy, root, text, sriovctl_bin, checks):
                return False, checks
            if copy["dest"] == layout:
                return True, checks
        if command is not None:
            argv = [_render(a, play) for a in command["argv"]] if "argv" in command \
                else shlex.split(_render(command["cmd"], play))
            if argv[0].endswith("sriovctl"):
                checks.append(_node_sriovctl(sriovctl_bin, root, argv))
                if checks[-1].returncode != 0:
                    return False, checks
    raise AssertionError("the play never installs the layout")


# the fresh-eyes trial's edits of an installed layout: a valid one (16 VFs to 8, the VF sections
# numbered anew) and a broken one (QualityOfService= left without its VLANId=)
LAYOUT_EDITS = {
    "valid": (lambda t: t.replace("VirtualFunctions=16", "VirtualFunctions=8")
              .replace("[VirtualFunction 0-7]", "[VirtualFunction 0-3]")
              .replace("[VirtualFunction 8-15]", "[VirtualFunction 4-7]"), True),
    "broken": (lambda t: t.replace("VLANId=100\n", ""), False),
}


@pytest.mark.parametrize("edit", LAYOUT_EDITS)
def test_ansible_checks_a_changed_layout_in_place_of_the_old(edit, tmp_path, sriovctl_bin):
    """The play's check judges the new layout in place of the installed one it replaces."""
    root = tmp_path / "node"
    _write_root(root, ansible())
    installed = root / (LAYOUT_DIR + "50-e810-rdma.conf").lstrip("/")
    old = installed.read_text()
    change, accepted = LAYOUT_EDITS[edit]
    new = change(old)
    assert new != old
    done, checks = _play_layout(root, new, sriovctl_bin)
    assert checks, "the play checks the layout before it installs it"
    said = "".join(c.stdout + c.stderr for c in checks)
    assert done == accepted, said
    assert installed.read_text() == (new if accepted else old)
    # the installed version is replaced in the check, never read beside the new one
    assert str(installed) not in said, said
    if accepted:
        assert "1 layout file(s) checked: 0 error(s)" in said, said
    else:
        assert "50-e810-rdma.conf:34: VFs 8-15: QualityOfService=3 needs a VLANId= other than 0" in said
        assert "1 layout file(s) checked: 1 error(s)" in said


def test_ansible_handler_reloads_the_daemon():
    play = ansible_play()
    handlers = {h["name"]: h for h in play["handlers"]}
    units = {p.name for p in (ROOT / "units").iterdir()}
    for task in play["tasks"]:
        if "notify" in task:
            handler = handlers[task["notify"]]["ansible.builtin.systemd"]
            assert handler == {"name": "sriov-persistd.service", "state": "reloaded"}
        systemd = task.get("ansible.builtin.systemd")
        if systemd:
            assert systemd["name"] in units
    assert "ExecReload=/bin/kill -HUP $MAINPID" in (ROOT / "units" / "sriov-persistd.service").read_text()
    notified = [t["ansible.builtin.copy"]["dest"] for t in play["tasks"] if "notify" in t]
    assert any(d.startswith(LAYOUT_DIR) for d in notified) and any(d.startswith(DROPIN_DIR) for d in notified)


def test_kubeconfig_is_k8s_notify_s():
    """The kubeconfig as kubeconfig.example makes it: https, a CA file and a token file."""
    kube = yaml.safe_load({p: c for p, _, c in machineconfig()}[kubeconfig_path()])
    assert kube["kind"] == "Config"
    context = {c["name"]: c["context"] for c in kube["contexts"]}[kube["current-context"]]
    cluster = {c["name"]: c["cluster"] for c in kube["clusters"]}[context["cluster"]]
    user = {u["name"]: u["user"] for u in kube["users"]}[context["user"]]
    example = yaml.safe_load((ROOT / "packaging" / "k8s" / "kubeconfig.example").read_text())
    assert cluster["server"].startswith("https://")
    assert cluster["certificate-authority"] == example["clusters"][0]["cluster"]["certificate-authority"]
    assert user == {"tokenFile": example["users"][0]["user"]["tokenFile"]}


def test_k8s_notify_reads_the_kubeconfig(tmp_path):
    """k8s-notify parses it and goes on to the CA file it names, which each node supplies."""
    k8s_notify = _binary("K8S_NOTIFY", "build/asan/k8s-notify")
    kube = tmp_path / "kubeconfig"
    kube.write_text({p: c for p, _, c in cloud_init()}[kubeconfig_path()])
    kube.chmod(0o600)
    ca = yaml.safe_load(kube.read_text())["clusters"][0]["cluster"]["certificate-authority"]
    if os.path.exists(ca):
        pytest.skip(f"{ca} exists on this machine")
    out = subprocess.run([k8s_notify, "--kubeconfig", str(kube), "credentials"],
                         capture_output=True, text=True, timeout=60)
    assert out.returncode == 1
    assert f"cannot read CA {ca}: No such file or directory" in out.stdout


# --- the migration guide ---------------------------------------------------------------

# options that take a value, as sriovctl --help lists them
VALUE_OPTIONS = {"--host", "--config-dir", "--main-config", "--runtime-dir", "--state-dir", "--root",
                 "--machine-id", "--timeout", "--k8s-notify", "--output", "--output-dir", "--node"}


def _guide_commands():
    text = _unroff(GUIDE.read_text())
    text = re.sub(r"\\\n\s*", " ", text)
    commands = []
    for line in text.splitlines():
        m = re.match(r"[$#] (sriovctl .*)", line)
        if m:
            commands.append(shlex.split(m.group(1)))
    return commands


def _help(sriovctl_bin):
    out = subprocess.run([sriovctl_bin, "--help"], capture_output=True, text=True, timeout=30)
    assert out.returncode == 0
    commands, options = out.stdout.split("Options:")
    verbs = set(re.findall(r"^  (\w+)", commands, re.M))
    return verbs, set(re.findall(r"(--[\w-]+)", options))


def _verbs_and_options():
    found = []
    for argv in _guide_commands():
        verb, skip = None, False
        for word in argv[1:]:
            if skip:
                skip = False
            elif word.startswith("--"):
                found.append(("option", word.split("=")[0]))
                skip = word in VALUE_OPTIONS
            elif verb is None:
                verb = word
                found.append(("verb", word))
        assert verb, argv
    return sorted(set(found))


def test_guide_has_commands():
    kinds = {k for k, _ in _verbs_and_options()}
    assert kinds == {"verb", "option"}
    verbs = {w for k, w in _verbs_and_options() if k == "verb"}
    assert {"import", "check", "plan", "compare", "snapshot", "status"} <= verbs


@pytest.mark.parametrize("kind,word", _verbs_and_options())
def test_guide_names_what_sriovctl_has(kind, word, sriovctl_bin):
    verbs, options = _help(sriovctl_bin)
    have = verbs if kind == "verb" else options
    assert word in have, f"sriov-persist-migration(7) names sriovctl {kind} {word}, which --help does not list"


def test_guide_names_real_units_and_examples():
    text = _unroff(GUIDE.read_text())
    units = {p.name for p in (ROOT / "units").iterdir()}
    for unit in re.findall(r"\b(sriov-persist[\w@.-]*\.(?:service|timer))", text):
        assert unit in units, unit
    for package, rel in re.findall(r"/usr/share/doc/(sriov-persist(?:-k8s)?)/examples/?([\w./-]*)", text):
        base = {"sriov-persist-k8s": ROOT / "packaging" / "k8s"}.get(package, ROOT / "conf.d")
        if rel.startswith("fleet"):
            base, rel = FLEET, rel[len("fleet"):].lstrip("/")
        assert (base / rel).exists(), f"{package}/examples/{rel}"
    for path, _, _ in machineconfig():
        assert path in text, f"the guide names {path}"
    for example in FLEET.iterdir():
        assert example.name in text, f"the guide names {example.name}"


def _transcript(first):
    """The commands and output of the guide's example block that starts with FIRST."""
    text = _unroff(GUIDE.read_text())
    block = text[text.index(first):]
    block = block[:block.index(".EE")]
    steps = []
    for line in block.splitlines():
        if line.startswith("$ "):
            steps.append((line[2:], []))
        else:
            steps[-1][1].append(line)
    return steps


def test_guide_import_example_is_real(tmp_path, sriovctl_bin):
    """Step 2 as the page shows it: the policy, import's files and messages, check's verdict."""
    steps = _transcript("$ cat policies.yaml")
    assert [cmd.split()[0] for cmd, _ in steps] == ["cat", "mkdir", "sriovctl", "sriovctl"]
    for cmd, expected in steps:
        argv = shlex.split(cmd)
        if argv[0] == "cat":
            (tmp_path / argv[1]).write_text("\n".join(expected) + "\n")
            continue
        if argv[0] == "mkdir":
            (tmp_path / argv[1]).mkdir()
            continue
        out = subprocess.run([sriovctl_bin] + argv[1:], cwd=tmp_path, capture_output=True,
                             text=True, timeout=60)
        assert out.returncode == 0, out.stderr
        got = out.stdout.splitlines() + out.stderr.splitlines()
        assert sorted(got) == sorted(expected), cmd
    layout = (tmp_path / "layouts" / "89-e810-rdma.conf").read_text()
    assert "VirtualFunctions=8" in layout and "ResourceName=e810_rdma" in layout
