#!/usr/bin/env python3
"""How long make test, make demo and make cpu-map took here, kept as data so that the docs render it (setting markers
of benchkit/timings.py), never typed.

    scripts/checks/timings.py publish [--cold]   docs/timings.json from the last runs' logs: make test's stages (the minute each
                                          ended) and the minute each tool of its background was ready (its file in
                                          .tools/bin), and each experiment's last run at its defaults (make demo,
                                          make cpu-map, …: a run given other settings is left out, named);
                                          --cold: that make test started from a fresh clone with empty caches
    scripts/checks/timings.py --self-test

make test writes .local/logs/make-test-times.tsv (`started` and the epoch second, then each stage and its seconds);
scripts/local/demo.sh appends each experiment's seconds to .local/logs/experiment-times.tsv."""
import json
import os
import pathlib
import re
import subprocess
import sys
import tempfile

ROOT = pathlib.Path(__file__).resolve().parents[2]
TEST_TIMES = ".local/logs/make-test-times.tsv"
# each part's own CPU-seconds, and the machine's ("machine"), where make-test.sh could count them apart (cpuacct)
CPU_BY_PART = TEST_TIMES + ".cpu"
EXPERIMENT_TIMES = ".local/logs/experiment-times.tsv"
NODE_LOG = ".local/logs/node-binaries.log"  # make test's background (the Makefile's NODE_LOG)
INSTALLED = "Installing from Debian's packages"  # what scripts/cluster/test-cluster/install-packages.sh says when it installs
# what it says of every package once it is there (its version is the archive's of that day, at least the least one)
PACKAGE = re.compile(r"debian package: (\S+) (\S+)")
PUBLISHED = "docs/timings.json"
LAST_STAGE = "passed"  # the Makefile's test: its mark once every stage passed (test-k8s and test-licenses end beside test-cluster)


def rows(path):
    return [line.split("\t") for line in path.read_text().splitlines() if line.strip()] if path.exists() else []


def minutes(seconds):
    return round(int(seconds) / 60, 1)


def make_test(root, cold):
    """make test's last run: each stage's end and each background tool's readiness, in minutes from its start; none
    when that run stopped before its last stage (a failed or interrupted run says nothing of how long make test takes)."""
    found = rows(root / TEST_TIMES)
    if not found or found[0][0] != "started":
        return None
    started, stages = int(found[0][1]), {stage: minutes(seconds) for stage, seconds, *_ in found[1:]}
    # the cores' busy share from the start to each stage's end (a mark's third column: the machine's CPU-seconds by
    # then), where the run recorded it: what the stage waited on, the CPU or something else
    cpu_seconds = {stage: int(cpu[0]) for stage, _, *cpu in found[1:] if cpu}
    busy = {stage: round(cpu_seconds[stage] / int(seconds) / (os.cpu_count() or 1), 2)
            for stage, seconds, *_ in found[1:] if stage in cpu_seconds and int(seconds) > 0}
    if LAST_STAGE not in stages:
        print(f"left out: make test at {found[0][2] if len(found[0]) > 2 else '?'} stopped after "
              f"{next(reversed(stages), 'its start')}: it never reached {LAST_STAGE}")
        return None
    # by name without its version: a page names a tool by a dotted path
    tools = {re.sub(r"-v?[0-9].*$", "", path.name): minutes(path.stat().st_mtime - started)
             for path in sorted((root / ".tools" / "bin").glob("*")) if path.is_file() and path.stat().st_mtime >= started}
    # whether that run installed the node's Debian packages too (a machine that never ran make test), or found them
    node_log = root / NODE_LOG
    said = node_log.read_text(errors="replace") if node_log.exists() else ""
    # what each part computed itself, its children and daemons included, and the node's pods ("node-pods", where
    # the run counted them); what the machine computed beyond their sum is the system's own. A cgroup counts the time
    # its tasks held a core, the time the hypervisor took that core from this machine (steal) included, which the
    # machine's count (/proc/stat) leaves out: where the parts add up to more, that is published as such, not as a rest.
    # The steal itself (what the hypervisor took from the machine's cores meanwhile, whoever for) is no part: it is
    # published apart, so that a slow host shows in the data.
    by_part = {part: int(seconds) for part, seconds in rows(root / CPU_BY_PART)}
    steal = by_part.pop("steal", None)
    if "machine" in by_part:
        rest = by_part["machine"] - sum(seconds for part, seconds in by_part.items() if part != "machine")
        by_part["rest" if rest >= 0 else "parts_beyond_machine"] = abs(rest)
    return {"commit": found[0][2] if len(found[0]) > 2 else None, "cores": os.cpu_count(), "cold": cold,
            "packages_installed": INSTALLED in said, "packages": dict(PACKAGE.findall(said)), "stages": stages, **({"cores_busy_by_then": busy} if busy else {}),
            # the work itself, and what it would take on cores 1.5 times slower, kept as busy as these were (its
            # CPU-seconds 1.5 times as many, at the same share of the cores: 1.5 times as long)
            **({"cpu_seconds": cpu_seconds, "minutes_on_cores_1_5x_slower": round(stages[LAST_STAGE] * 1.5, 1)}
               if LAST_STAGE in cpu_seconds else {}),
            **({"cpu_seconds_by_part": by_part} if by_part else {}),
            **({"steal_seconds": steal} if steal is not None else {}),
            "tools_ready": dict(sorted(tools.items(), key=lambda item: item[1]))}


def default_settings(name):
    """The settings a run of the experiment NAME has when none is given, as benchkit describes them (`benchkit
    settings` in an environment that sets none)."""
    python = ROOT / ".tools" / "benchkit" / "bin" / "python"
    environment = {variable: os.environ[variable] for variable in ("PATH", "HOME") if variable in os.environ}
    return subprocess.run([str(python), "-m", "benchkit", "settings", name], cwd=ROOT / "scripts", env=environment,
                          capture_output=True, text=True, check=True).stdout.strip()


def experiments(root, defaults=default_settings):
    """Each experiment's last run at its defaults: {"make-NAME": {minutes, commit, cores, settings}}, its settings as
    benchkit described them. The page says how long make NAME takes as a user runs it: a run given other settings
    (a demo of two scenarios) is left out, and named; a row of an older demo.sh, without its settings, is kept."""
    found, default = {}, {}
    for name, seconds, commit, *settings in rows(root / EXPERIMENT_TIMES):
        target = "demo" if name == "bench" else name  # make demo runs the experiment bench
        if settings and name not in default:  # a row without settings is kept, unasked
            default[name] = defaults(name)
        if settings and settings[0] != default[name]:
            print(f"left out: make {target} at {commit} ({settings[0]}): not its defaults")
            continue
        found[f"make-{target}"] = {"minutes": minutes(seconds), "commit": commit, "cores": os.cpu_count(),
                                   "settings": settings[0] if settings else None}
    return found


def publish(root, cold, defaults=default_settings):
    path = root / PUBLISHED
    published = json.loads(path.read_text()) if path.exists() else {}
    tested = make_test(root, cold)
    published.update({**experiments(root, defaults), **({"make-test": tested} if tested else {})})
    path.write_text(json.dumps(dict(sorted(published.items())), indent=2) + "\n")
    return published


def self_test():
    """A make test of two stages, a tool built after it started and one before, two runs of an experiment at its
    defaults and one given other settings after them; then a make test that stopped early."""
    with tempfile.TemporaryDirectory() as directory:
        root = pathlib.Path(directory)
        (root / ".local" / "logs").mkdir(parents=True)
        (root / ".tools" / "bin").mkdir(parents=True)
        (root / "docs").mkdir()
        old, new = root / ".tools" / "bin" / "old", root / ".tools" / "bin" / "helm-v3.22.0"
        old.write_text("")
        os.utime(old, (1000, 1000))
        new.write_text("")
        os.utime(new, (2000 + 90, 2000 + 90))
        cores = os.cpu_count() or 1
        (root / TEST_TIMES).write_text(f"started\t2000\tabc1234\ntest-services\t600\t{540 * cores}\n"
                                       f"test-cluster\t2640\t{2112 * cores}\npassed\t2700\t{2160 * cores}\n")
        (root / CPU_BY_PART).write_text("test-services\t900\ntest-cluster\t800\nnode-pods\t200\nmachine\t2000\n")
        (root / NODE_LOG).write_text(f"==> {INSTALLED}: containerd=1.6.20~ds1-1+deb12u4\n"
                                     "    debian package: containerd 1.6.20~ds1-1+deb12u4\n")
        (root / EXPERIMENT_TIMES).write_text("bench\t1200\tabc1234\ncpu-map\t3000\tabc1234\tCPU_MAP_SIZES=0.5,0\n"
                                             "bench\t1260\tdef5678\tSCENARIOS=closed\n"
                                             "bench\t600\t0123abc\tSCENARIOS=profile\n")
        defaults = {"bench": "SCENARIOS=closed", "cpu-map": "CPU_MAP_SIZES=0.5,0"}.get
        found = publish(root, cold=True, defaults=defaults)
        assert found["make-test"]["stages"] == {"test-services": 10.0, "test-cluster": 44.0, "passed": 45.0}, found
        assert found["make-test"]["cores_busy_by_then"] == {"test-services": 0.9, "test-cluster": 0.8, "passed": 0.8}, found
        assert found["make-test"]["cpu_seconds"]["passed"] == 2160 * cores, found
        assert found["make-test"]["minutes_on_cores_1_5x_slower"] == 67.5, found  # 45 minutes' work, at the same 80 %
        assert found["make-test"]["tools_ready"] == {"helm": 1.5} and found["make-test"]["cold"], found
        assert found["make-test"]["cpu_seconds_by_part"] == {"test-services": 900, "test-cluster": 800, "node-pods": 200,
                                                             "machine": 2000, "rest": 100}, found
        assert found["make-test"]["packages_installed"], found
        assert found["make-test"]["packages"] == {"containerd": "1.6.20~ds1-1+deb12u4"}, found
        assert found["make-demo"]["minutes"] == 21.0 and found["make-demo"]["commit"] == "def5678", found
        assert found["make-cpu-map"]["minutes"] == 50.0 and found["make-cpu-map"]["settings"] == "CPU_MAP_SIZES=0.5,0", found
        assert found["make-demo"]["settings"] == "SCENARIOS=closed", found
        assert json.loads((root / PUBLISHED).read_text()) == found
        # a later make test that stopped after a stage, or whose checks beside test-cluster failed, leaves the whole one published
        (root / TEST_TIMES).write_text("started\t3000\tfed4321\ntest-services\t660\ntest-cluster\t2500\n")
        again = publish(root, cold=True, defaults=defaults)
        assert again["make-test"]["commit"] == "abc1234" and again["make-test"]["stages"]["passed"] == 45.0, again
        # a whole one on a machine that had the packages: its background installed nothing
        (root / TEST_TIMES).write_text("started\t4000\t5678def\npassed\t2400\n")
        (root / NODE_LOG).write_text("==> Building helm v3.22.0 with go install\n")
        older = publish(root, cold=False, defaults=defaults)["make-test"]
        assert not older["packages_installed"] and "cores_busy_by_then" not in older, older  # a run of marks without CPU
        # parts whose cgroups counted more than the machine did (the hypervisor's steal): published as such
        # (and the steal counted apart, not as a part)
        (root / CPU_BY_PART).write_text("test-services\t900\ntest-cluster\t800\nnode-pods\t400\nmachine\t2000\n"
                                        "steal\t150\n")
        stolen = publish(root, cold=False, defaults=defaults)["make-test"]
        beyond = stolen["cpu_seconds_by_part"]
        assert beyond["parts_beyond_machine"] == 100 and "rest" not in beyond and "steal" not in beyond, beyond
        assert stolen["steal_seconds"] == 150 and "steal_seconds" not in found["make-test"], stolen
    print("timings.py --self-test: ok")


def main(argv):
    if argv[:1] == ["--self-test"]:
        return self_test()
    if argv[:1] != ["publish"]:
        sys.exit(__doc__)
    found = publish(ROOT, "--cold" in argv)
    subprocess.run(["git", "-C", str(ROOT), "diff", "--stat", "--", PUBLISHED], check=False)
    print(f"{PUBLISHED}: {', '.join(found)}")


if __name__ == "__main__":
    main(sys.argv[1:])
