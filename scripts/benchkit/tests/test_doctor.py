"""make doctor says what is missing, each requirement removed or simulated in turn: a PATH of this machine's commands
with some left out or replaced by a stand-in that answers as the missing thing would. What it says is printed (pytest
-s shows it), and each case must name its requirement as missing."""
import os
import pathlib
import re
import shutil
import subprocess

import pytest

from benchkit import ROOT

STAND_INS = {  # what a machine without the requirement answers
    "one core": {"nproc": "echo 1"},
    "Docker CE's containerd": {"dpkg-query": 'echo "install ok installed"'},
    "a Docker daemon": {"pgrep": 'case "$*" in *dockerd*) echo 4242 ;; *) exit 1 ;; esac'},
    # curl answers 404 for every artefact, go lists no module (and still tells its version)
    "no registry reachable": {"curl": "echo 404", "go": f'case "$1" in list) exit 1 ;; *) exec {shutil.which("go")} "$@" ;; esac'},
}
LEFT_OUT = {"no ss or ip": ("ss", "ip")}
EXPECTED = {"one core": ["2 cores"], "Docker CE's containerd": ["no Docker CE containerd"],
            "a Docker daemon": ["no Docker daemon running"],
            "no registry reachable": ["Maven's repository reachable", "the Go module proxy reachable",
                                      "Debian's archive reachable"],
            "no ss or ip": ["ss (iproute2", "ip (iproute2"]}


def machine(tmp_path, left_out=(), stand_ins=None):
    """A PATH of every command this machine has but those left out, the stand-ins first."""
    shims = tmp_path / "bin"
    shims.mkdir()
    for name, body in (stand_ins or {}).items():
        (shims / name).write_text(f"#!/bin/bash\n{body}\n")
        (shims / name).chmod(0o755)
    for directory in os.environ["PATH"].split(os.pathsep):
        for command in pathlib.Path(directory).glob("*") if pathlib.Path(directory).is_dir() else ():
            if command.name not in left_out and not (shims / command.name).exists() and os.access(command, os.X_OK):
                (shims / command.name).symlink_to(command.resolve())
    return str(shims)


def said(tmp_path, case):
    path = machine(tmp_path, LEFT_OUT.get(case, ()), STAND_INS.get(case))
    done = subprocess.run(["bash", str(ROOT / "scripts" / "checks" / "doctor.sh"), "test"], capture_output=True, text=True,
                          env={**os.environ, "PATH": path}, cwd=ROOT)
    print(f"--- {case}:\n{done.stdout}{done.stderr}")
    plain = re.sub(r"\x1b\[[0-9;]*m", "", done.stdout)
    return done.returncode, [line.split("missing", 1)[1].strip() for line in plain.splitlines()
                             if line.strip().startswith("missing")]


@pytest.mark.parametrize("case", sorted(EXPECTED))
def test_doctor_names_each_requirement_missing(tmp_path, case):
    returncode, missing = said(tmp_path, case)
    assert returncode == 1
    for requirement in EXPECTED[case]:
        assert any(line.startswith(requirement) for line in missing), (requirement, missing)


def test_a_machine_whose_package_lists_are_not_fetched_yet_still_reaches_debian_s_archive(tmp_path):
    """A fresh Debian has no package lists until make test's apt-get update: doctor then asks the first source's
    Release file, and does not call the archive unreachable."""
    if not [*pathlib.Path("/etc/apt").glob("sources.list*"), *pathlib.Path("/etc/apt").glob("sources.list.d/*.sources")]:
        pytest.skip("not a Debian machine: no apt sources (make test needs Debian 12, make doctor says so)")
    path = machine(tmp_path, stand_ins={"apt-get": "exit 0"})  # prints no URI, as with no lists
    done = subprocess.run(["bash", str(ROOT / "scripts" / "checks" / "doctor.sh"), "test"], capture_output=True, text=True,
                          env={**os.environ, "PATH": path}, cwd=ROOT)
    plain = re.sub(r"\x1b\[[0-9;]*m", "", done.stdout)
    print(plain)
    assert "ok       Debian's archive reachable" in plain
