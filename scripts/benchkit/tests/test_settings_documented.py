"""Every setting a user can give in the environment is documented, and every one the docs tell a user to give is
read: drift between the two shows here, not when a newcomer sets a variable that nothing reads."""
import re
import sys

from benchkit import ROOT, catalogue, registry
from benchkit.core import load

DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
# Read by the scripts, set by other scripts or by the test harness, never by a user: plumbing, not settings.
PLUMBING = {
    "LOCAL_DIR": "where the local stack keeps its state: lib.sh and demo.sh set it for benchkit",
    "NODE_DIR": "make test-cluster's node directory, set by its test.sh",
    "NODE_PROCESSES": "the test node's pid files, set by its test.sh",
    "LOAD_IMAGE_PULL_POLICY": "k8s.sh sets it beside LOAD_IMAGE for benchkit",
    "CONTROL_PORT": "the local infrastructure's control port, lib.sh's own constant",
    "SAMPLES_FILE": "benchkit tells the load generator where to write its samples",
    "OPEN": "the load generator's probe mode, run by its own tests",
    "DROPPED": "the load generator's probe mode, run by its own tests",
    "HOME": "the user's home directory, where tools keep their caches",
    "VERSION": "benchkit tells the load generator which build it loads",
    "BASE_URL": "benchkit (or the load Job) tells the load generator where the build answers",
    "SHARD_COUNT": "a load split over pods: the load Job's template tells each pod its share",
    "SHARD_INDEX": "a load split over pods: the load Job's template tells each pod its share",
    "JOB_COMPLETION_INDEX": "Kubernetes gives each pod of an indexed Job its index",
    "E2E_LOAD_ENDED": "make test tells test-e2e which file to make once its last timed load has run",
    "START_DEPLOYS_AFTER": "make test tells test-cluster which file to wait for before its first deploy",
    "CPU_ACCOUNTS": "make test tells each part's cpu-accounted.sh under which cgroup its CPU is counted",
}
# Read by the JVM, Quarkus or a tool, not by this project's scripts: a doc may name them.
READ_BY_OTHERS = re.compile(r"^(QUARKUS_|JDK_JAVA_OPTIONS$|JAVA_TOOL_OPTIONS$|KAFKA_BOOTSTRAP_SERVERS$)")


def code_reads():
    """Every environment variable the harness, the scripts, the Makefile and the load generator read."""
    found = set(load.SETTINGS) | {"SCENARIO"}  # benchkit hands these to the load generator, which reads them
    found |= {knob.name for knob in registry.KNOBS}  # each read where declared (test_knobs)
    for path in (ROOT / "scripts").rglob("*.py"):
        if "tests" not in path.parts:
            found |= set(re.findall(r"environ(?:\.get)?[(\[]\s*[\"']([A-Z][A-Z0-9_]+)[\"']", path.read_text()))
            found |= set(re.findall(r"(?:numbers|knobs\.value)\(\s*[\"']([A-Z][A-Z0-9_]+)[\"']", path.read_text()))
    for path in [*(ROOT / "scripts").rglob("*.sh"), ROOT / "minikube" / "profile.env"]:
        text = path.read_text()
        found |= set(re.findall(r"\$\{([A-Z][A-Z0-9_]+):?[-+?=]", text))
        found |= set(re.findall(r"values_files ([A-Z][A-Z0-9_]+)", text))
    makefile = (ROOT / "Makefile").read_text()
    found |= set(re.findall(r"^([A-Z][A-Z0-9_]+) \?=", makefile, re.M))
    for path in (ROOT / "load").glob("*.go"):
        found |= set(re.findall(r"(?:Getenv|\bor)\(\"([A-Z][A-Z0-9_]+)\"", path.read_text()))
    return found


def documented():
    """Every name README.md and docs/ mention, and those the Makefile's help (the catalogue's experiments' with it) or
    its pinned versions explain."""
    text = "\n".join(path.read_text() for path in DOCS)
    makefile = (ROOT / "Makefile").read_text()
    helps = "\n".join([*(line for line in makefile.splitlines() if "##" in line),
                       *(f"{e.help} {e.cluster_help}" for e in catalogue.EXPERIMENTS)])
    pinned = set(re.findall(r"^([A-Z][A-Z0-9_]+) [?:]?=", makefile, re.M))  # the version block, the tool paths
    return set(re.findall(r"\b([A-Z][A-Z0-9_]{2,})\b", text + helps)) | pinned


def told_to_set():
    """The names the docs tell a user to set: `NAME=…` before a make command, or a row of a table of variables."""
    found = set()
    for path in DOCS:
        text = path.read_text()
        for assignments in re.findall(r"((?:\b[A-Z][A-Z0-9_]+=\S*\s+)+)make\b", text):
            found |= set(re.findall(r"\b([A-Z][A-Z0-9_]+)=", assignments))
        for cell in re.findall(r"^\| ((?:`[A-Z][A-Z0-9_]+`(?:, )?)+) \|", text, re.M):
            found |= set(re.findall(r"`([A-Z][A-Z0-9_]+)`", cell))
    return found


def test_every_setting_the_code_reads_is_documented():
    undocumented = code_reads() - documented() - set(PLUMBING)
    assert not undocumented, f"read but documented nowhere in README.md, docs/ or make help: {sorted(undocumented)}"


def test_every_setting_the_docs_tell_a_user_to_give_is_read():
    unread = {name for name in told_to_set() - code_reads() if not READ_BY_OTHERS.match(name)}
    assert not unread, f"the docs tell a user to set what nothing reads: {sorted(unread)}"


def test_the_check_bites(tmp_path, monkeypatch):
    """A doc that tells a user to set a name nothing reads (the harness reads USERS, not VUS) is found, and a setting
    the code reads drops out of what is documented when the doc that named it goes."""
    stale = tmp_path / "stale.md"
    stale.write_text("Fewer users: `VUS=20 make demo`.\n\n| `PLATFORM_VALUES` | none | sizing |\n")
    monkeypatch.setattr(sys.modules[__name__], "DOCS", [stale])
    assert told_to_set() == {"VUS", "PLATFORM_VALUES"} and told_to_set() - code_reads() == {"VUS"}
    monkeypatch.setattr(sys.modules[__name__], "DOCS", [])
    assert "WARMUP_MAX_WINDOWS" in code_reads() - documented()
