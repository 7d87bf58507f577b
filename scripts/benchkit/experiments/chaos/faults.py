"""The fault catalogue: what each platform can take away under load and give back, and what a build must keep
doing meanwhile. inject and restore name actions of a platform's faults (core.plugins.Faults.act)."""


class Fault:
    """A part of the system taken away (inject) and given back (restore), and what a build must keep doing.
    inject and restore are actions of the platform's faults (core.plugins.Faults.act)."""

    def __init__(self, name, part, inject, restore, reads_stay_ok, story, reads_complete=False, even_alone=False):
        self.name, self.part, self.inject, self.restore = name, part, inject, restore
        self.reads_stay_ok = reads_stay_ok  # every read still answers 200 (maybe degraded) while it lasts
        # every read answers completely, the fault must not show at all: where another replica serves, or
        # even_alone, also with one
        self.reads_complete, self.even_alone = reads_complete, even_alone
        self.story = story

    @property
    def through_proxy(self):
        """Whether the fault is made in the latency proxy (Toxiproxy) in front of its part: the build must run behind it."""
        return self.inject.startswith("proxy-")

    def target(self, version):
        return self.part if self.part in ("postgres", "kafka") else f"{self.part}-{version}"


FAULTS = [
    Fault("authors stopped", "authors", "stop", "start", True,
          "authors' process ends; web-api answers 200 with null author details, the circuit opens, "
          "and closes again once authors is back"),
    Fault("authors frozen", "authors", "pause", "resume", True,
          "authors is frozen (SIGSTOP): connections are accepted and never answered, the slow case; "
          "web-api's 1 s timeout and the circuit keep answers coming"),
    Fault("articles stopped", "articles", "stop", "start", False,
          "articles' process ends; web-api answers 503 problem JSON at once (no pile-up), new articles "
          "cannot be stored, and everything recovers by itself once articles is back"),
    Fault("postgres restarted", "postgres", "stop", "start", False,
          "PostgreSQL stops (fast shutdown, every session ended) and starts again; no service is restarted"),
    Fault("kafka stopped", "kafka", "stop", "start", True,
          "the Kafka broker stops and starts again; reads are untouched, writes still answer 201, and every "
          "event of every 201 is streamed once the broker is back (transactional outbox)"),
]
# Made in the latency proxy in front of authors (Toxiproxy's toxics on web-api's hop to it, for the answers coming
# back), what no process can do by stopping: an authors that answers, but too late, only partly, or slowly. The build
# runs behind the proxy for them (restarted behind it on the local stack; deployed with LATENCY_PROXY=on on
# Kubernetes), and the fault is the toxic, taken off again at restore.
PROXY_FAULTS = [
    Fault("authors slower than the time-out", "authors", "proxy-slow", "proxy-clear", True,
          "every answer of authors comes back 1.5 s late, past web-api's 1 s look-up time-out: web-api answers 200 "
          "with null author details in about its time-out, the circuit opens, and closes again once the latency is gone"),
    Fault("authors answers cut", "authors", "proxy-cut", "proxy-clear", True,
          "every connection to authors is closed after 1,000 bytes of answers, in the middle of its sixth (an answer "
          "is about 180 bytes): the look-up on it is read again on another connection, or its author is null"),
    Fault("authors bandwidth limited", "authors", "proxy-throttle", "proxy-clear", True,
          "each connection to authors carries 1 KB/s of answers: a look-up takes a few hundred ms, under the time-out; "
          "reads still answer 200"),
]
PROXY_FAULT_SECONDS = 8  # how long a toxic stays (on Kubernetes too, where the platform restores nothing by itself)
QUICK = ("authors stopped", "kafka stopped")
# On Kubernetes the platform does the restoring (a Deployment replaces a pod, the kubelet restarts a container, a
# StatefulSet brings PostgreSQL or Kafka back under the same name): restore waits until it has.
KUBERNETES_FAULTS = [
    Fault("authors pod deleted", "authors", "delete-pod", "await-replaced", True,
          "authors' pod is deleted (gracefully); its Deployment starts another; web-api answers 200 (author details "
          "null while none is ready)", reads_complete=True),
    Fault("articles pod deleted", "articles", "delete-pod", "await-replaced", False,
          "articles' pod is deleted (gracefully); its Deployment starts another; web-api answers 503 problem JSON "
          "at once while none is ready", reads_complete=True),
    Fault("authors container killed", "authors", "kill-container", "await-replaced", True,
          "authors' JVM is killed (SIGKILL); the kubelet restarts the container in the same pod"),
    Fault("web-api rolling update", "web-api", "rollout-restart", "await-replaced", True,
          "kubectl rollout restart: a new web-api pod starts, and the old one stops only once it is ready "
          "(Quarkus' shutdown delay, closing its callers' connections, then its graceful shutdown); no read may fail",
          reads_complete=True),
    Fault("articles rolling update", "articles", "rollout-restart", "await-replaced", True,
          "kubectl rollout restart of articles; no read may fail", reads_complete=True),
    Fault("authors rolling update", "authors", "rollout-restart", "await-replaced", True,
          "kubectl rollout restart of authors; no read may fail", reads_complete=True),
    Fault("postgres pod deleted", "postgres", "delete-pod", "await-replaced", False,
          "PostgreSQL's pod is deleted; its StatefulSet brings it back under the same name, Patroni makes it the "
          "leader again; no service is restarted"),
    Fault("kafka pod deleted", "kafka", "delete-pod", "await-replaced", True,
          "the Kafka broker's pod is deleted and comes back under the same name; reads are untouched, and every "
          "event of every 201 is streamed once it is back (transactional outbox)"),
    Fault("redeploy (new image tag)", "build", "redeploy", "await-replaced", True,
          "make deploy-vN again: its images built anew under a new tag, and all three services rolled at once; "
          "no read may fail", reads_complete=True),
]
# Only where the node is this machine's test node (make node-up): its kubelet is a process here.
NODE_FAULTS = [
    Fault("kubelet restarted", "build", "restart-kubelet", "await-unchanged", True,
          "the node's kubelet stops and starts again (as systemctl restart kubelet would); the pods run on and "
          "nothing restarts", reads_complete=True, even_alone=True),
]
KUBERNETES_QUICK = ("articles pod deleted", "web-api rolling update")


def of(kind, on_node):
    """(the faults a platform can inject, the names of make test's short subset of them): each platform's own, the
    test node's on the node alone, and the latency proxy's everywhere."""
    if kind == "kubernetes":
        return KUBERNETES_FAULTS + (NODE_FAULTS if on_node else []) + PROXY_FAULTS, KUBERNETES_QUICK
    return FAULTS + PROXY_FAULTS, QUICK
