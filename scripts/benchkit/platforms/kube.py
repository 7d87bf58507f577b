"""Kubernetes through kubectl and helm: pods and their states, exec, rolling a Deployment with other variables or
resources, port-forwards, what the cluster runs. What a pod's containers counted is podreadings.py's; the load
generator as a Job, loadjobs.py's."""
import atexit
import json
import re
import subprocess
import time

from benchkit import ROOT
from benchkit.core import knobs


def helm_template(release, chart, *args, namespace=None):
    """The manifests of charts/<chart> as helm renders them for KUBE_VERSION (the Makefile's pin), parsed."""
    command = [knobs.tool("HELM"), "template", release, str(ROOT / "charts" / chart), "--kube-version",
               knobs.tool("KUBE_VERSION"), *args]
    rendered = subprocess.run([*command, *(["--namespace", namespace] if namespace else [])],
                              capture_output=True, text=True)
    if rendered.returncode:
        raise SystemExit(f"helm template {chart} failed: {rendered.stderr.strip()}")
    return [document for document in yaml().safe_load_all(rendered.stdout) if document]


def yaml():
    """PyYAML, imported when asked: make benchkit's interpreter has it; scripts/cluster/k8s.sh's calls need only the
    standard library."""
    try:
        import yaml
    except ImportError:
        raise SystemExit("reading charts needs PyYAML: run it on make benchkit's interpreter (.tools/benchkit)")
    return yaml


def cpu(quantity):
    """A CPU quantity ("100m", "1", None) in CPUs (0 for none)."""
    text = str(quantity or 0)
    return int(text[:-1]) / 1000 if text.endswith("m") else float(text)


def kubectl(namespace, *args, check=True):
    return subprocess.run(["kubectl", "-n", namespace, *args], capture_output=True, text=True, check=check).stdout


def pods(namespace, selector=None):
    """The pods of the namespace (of a label selector), as the API server has them."""
    return json.loads(kubectl(namespace, "get", "pods", *(["-l", selector] if selector else []), "-o", "json"))["items"]


def pod_exec(namespace, target, *command, text=True, **options):
    """A command in the target's container (kubectl exec), its output captured unless options say where it goes."""
    options.setdefault("stdout", subprocess.PIPE)
    return subprocess.run(["kubectl", "-n", namespace, "exec", target, "--", *command], stderr=subprocess.PIPE,
                          text=text, **options)


def set_environment(namespace, variables_by_deployment, timeout=360):
    """Sets (a value) or removes (None) environment variables of Deployments' containers, {deployment: {name: value}},
    all rolled at once, and waits until they have rolled (rolled)."""
    for deployment, variables in variables_by_deployment.items():
        kubectl(namespace, "set", "env", deployment,
                *[f"{name}-" if value is None else f"{name}={value}" for name, value in variables.items()])
    rolled(namespace, variables_by_deployment, timeout)


def set_resources(namespace, resources_by_deployment, timeout=360):
    """Replaces the resources of Deployments' first container, {deployment: resources}, and waits until they have
    rolled."""
    for deployment, resources in resources_by_deployment.items():
        kubectl(namespace, "patch", deployment, "--type=json", "-p", json.dumps(
            [{"op": "add", "path": "/spec/template/spec/containers/0/resources", "value": resources}]))
    rolled(namespace, resources_by_deployment, timeout)


def rolled(namespace, deployments, timeout=360):
    """Waits until the Deployments' new pods serve and the old ones are gone (a target such as deploy/x must not lead
    to a pod that is stopping)."""
    deadline = time.monotonic() + timeout
    for deployment in deployments:
        kubectl(namespace, "rollout", "status", deployment, f"--timeout={timeout}s")
        spec = json.loads(kubectl(namespace, "get", deployment, "-o", "json"))
        selector = ",".join(f"{k}={v}" for k, v in spec["spec"]["selector"]["matchLabels"].items())
        while len(kubectl(namespace, "get", "pods", "-l", selector, "-o", "name").split()) > spec["spec"]["replicas"]:
            if time.monotonic() > deadline:
                raise SystemExit(f"{deployment}: its old pods did not stop within {timeout} s")
            time.sleep(2)


def pod_states(namespace):
    """Restarts, the last termination reason and the node of every container in the namespace, per pod."""
    states = {}
    for pod in pods(namespace):
        for status in pod.get("status", {}).get("containerStatuses", []):
            last = status.get("lastState", {}).get("terminated", {})
            states[f"{pod['metadata']['name']}/{status['name']}"] = {
                "restarts": status.get("restartCount", 0), "last_reason": last.get("reason"),
                "node": pod.get("spec", {}).get("nodeName")}
    return states


def restarts_between(before, after):
    """The containers that restarted between two pod_states, how often, and whether one was OOM-killed."""
    changed = {}
    for container, state in after.items():
        restarts = state["restarts"] - before.get(container, {}).get("restarts", 0)
        if restarts > 0:
            changed[container] = {"restarts": restarts, "last_reason": state["last_reason"]}
    return changed


# What the scheduler says of a pod whose claim waits for its volume: it tries again by itself once a provisioner made
# one (seconds), so it is no reason to stop waiting; a claim that never binds ends at the wait's own deadline. Seen on
# make test-cluster's node: PostgreSQL's pod of a second deploy, its claim made again under the same name just before.
VOLUME_NOT_YET_BOUND = "unbound immediate PersistentVolumeClaims"


def unschedulable(namespace, selector=None):
    """Why the pods (of a selector) cannot start: unschedulable (a claim still waiting for its volume aside), or no
    image. An empty string if none. Also used by scripts/cluster/k8s.sh while helm waits for a rollout."""
    reasons = []
    for pod in pods(namespace, selector):
        for condition in pod.get("status", {}).get("conditions", []):
            if condition["type"] == "PodScheduled" and condition.get("reason") == "Unschedulable" and \
                    VOLUME_NOT_YET_BOUND not in condition.get("message", ""):
                reasons.append(f"{pod['metadata']['name']} is unschedulable: {condition.get('message', '')}")
        for status in pod.get("status", {}).get("containerStatuses", []):
            waiting = status.get("state", {}).get("waiting", {}).get("reason", "")
            if waiting in ("ErrImageNeverPull", "ImagePullBackOff", "ErrImagePull", "InvalidImageName"):
                reasons.append(f"{pod['metadata']['name']} has no image {status['image']} ({waiting})")
    return "; ".join(reasons)


class PortForward:
    """A service's API port (url) and its management port, health and metrics (management), forwarded here."""
    PORTS = {"8080": "url", "9000": "management"}

    def __init__(self, namespace, service):
        self.process = subprocess.Popen(["kubectl", "-n", namespace, "port-forward", f"svc/{service}",
                                         *(f":{port}" for port in self.PORTS)],
                                        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        found = {}
        while len(found) < len(self.PORTS):  # "Forwarding from 127.0.0.1:41235 -> 8080", then [::1]'s, per port
            line = self.process.stdout.readline()
            match = re.search(r"127\.0\.0\.1:(\d+) -> (\d+)", line)
            if not line or not (match or line.startswith("Forwarding from [")):
                self.process.kill()
                raise SystemExit(f"port-forward to {service} failed: {line}")
            if match and match.group(2) in self.PORTS:
                found[self.PORTS[match.group(2)]] = f"http://127.0.0.1:{match.group(1)}"
        self.url, self.management = found["url"], found["management"]
        # A build whose platform handed it out and never closed it (a warm-up's, a reconfiguration's) must not leave
        # its kubectl behind: three of v2's outlived make test-cluster's chaos-cluster by minutes, orphaned.
        atexit.register(self.close)

    def close(self):
        if self.process.poll() is None:
            self.process.terminate()


def deployed(namespace, versions):
    """The builds whose release (bench-<version>) is deployed in the namespace, in builds.conf's order."""
    listed = subprocess.run([knobs.tool("HELM"), "list", "--namespace", namespace, "--short"], capture_output=True, text=True)
    releases = set(listed.stdout.split()) if listed.returncode == 0 else set()
    return tuple(version for version in versions if f"bench-{version}" in releases)


# e_machine of an ELF header, as Kubernetes names a node's architecture (GOARCH)
ELF_MACHINES = {62: "amd64", 183: "arm64", 3: "386", 40: "arm", 243: "riscv64", 21: "ppc64le", 22: "s390x"}


def elf_architecture(path):
    """The architecture a program was built for, from its ELF header (what a node's kernel would refuse to run)."""
    with open(path, "rb") as file:
        header = file.read(20)
    if len(header) < 20 or header[:4] != b"\x7fELF":
        raise SystemExit(f"{path}: not an ELF program")
    machine = int.from_bytes(header[18:20], "little" if header[5] == 1 else "big")
    return ELF_MACHINES.get(machine, f"ELF machine {machine}")


def current_context():
    found = subprocess.run(["kubectl", "config", "current-context"], capture_output=True, text=True)
    return found.stdout.strip() or "no context"


def node_label(pair):
    """key=value of LOAD_NODE_SELECTOR as helm's --set takes it (the dots of a label's key escaped)."""
    key, separator, value = pair.strip().partition("=")
    if not separator or not key or not value:
        raise SystemExit(f"LOAD_NODE_SELECTOR: {pair.strip()!r} is not key=value")
    return f"{key.replace('.', chr(92) + '.')}={value}"


def helm_escaped(value):
    """helm's --set splits at commas: a list value (AUTHOR_NAMES) keeps them escaped."""
    return str(value).replace(",", "\\,")
