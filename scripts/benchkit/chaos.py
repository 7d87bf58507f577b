"""Fault injection under load: for each fault and each build, the load generator reads GET /vN/articles at a steady rate, a
writer POSTs new articles, an SSE client follows /vN/articles/stream, and a real part of the system fails and
comes back. Counts every outcome, every event produced and delivered, and the time to recover; checks each
against what the build promises; writes chaos.json, chaos.md and chaos.html. Exits 1 if any expectation failed.

Two platforms, the same clients, checks and report:
  the local stack (scripts/stack.sh up): a process (authors, articles, PostgreSQL, Kafka) stopped or frozen,
      then started again with scripts/stack.sh; plus overload;
  Kubernetes (--kubernetes NAMESPACE, the builds deployed by make deploy-vN): pods deleted, a container killed,
      rolling updates, PostgreSQL's and Kafka's pods deleted, with kubectl; the clients reach web-api through its
      Service's ClusterIP, so they must run where that routes: on the node itself (the test node), or beside
      `minikube tunnel`.
"""
import argparse
import datetime
import http.client
import json
import os
import pathlib
import socket
import statistics
import sys
import threading
import time
import urllib.error
import urllib.request

from . import MAX_IN_FLIGHT, ROOT, VERSIONS, charts, documents, info, kube, load, platforms, samples, step
from .faults import KUBERNETES_QUICK, QUICK, RESTORE_LIMIT_SECONDS
from .procfs import machine_cpu, peak_rss_mib, pod_cpu_seconds, reset_peak_rss
from .prometheus import answered, calls_timed_out, circuit_openings, read_retries, scrape
from .stats import percentile
from .provenance import git_commit

OUTCOMES = samples.OUTCOMES


class CpuRecorder(threading.Thread):
    """Once a second, how busy the whole machine was and, where the kubelet runs on this machine (the test node),
    the cores each part's pods used: to tell what a fault does from what JVMs starting beside it on the same
    cores do (a redeploy starts three at once)."""

    def __init__(self, namespace=None):
        super().__init__(daemon=True)
        self.namespace, self.done, self.samples, self.parts = namespace, threading.Event(), [], {}

    def name_pods(self):
        if self.namespace is None:
            return
        for pod in json.loads(kube.kubectl(self.namespace, "get", "pods", "-o", "json"))["items"]:
            labels = pod["metadata"].get("labels", {})
            name = "postgres" if "cluster-name" in labels else labels.get("app.kubernetes.io/name", pod["metadata"]["name"])
            build = labels.get("app.kubernetes.io/instance", "").removeprefix("bench-")
            self.parts[pod["metadata"]["uid"]] = f"{name} {build}" if build in VERSIONS else name

    def run(self):
        at, machine, pods = time.time(), machine_cpu(), pod_cpu_seconds()
        self.name_pods()
        named = at
        while not self.done.wait(1.0):
            now, machine_now, pods_now = time.time(), machine_cpu(), pod_cpu_seconds()
            if now - named >= 5:  # a replaced pod has a new uid
                self.name_pods()
                named = now
            cores = {}
            for uid in set(pods) & set(pods_now):
                part = self.parts.get(uid, "other pods")
                cores[part] = round(cores.get(part, 0) + (pods_now[uid] - pods[uid]) / (now - at), 3)
            busy = (machine_now[0] - machine[0]) / max(1, machine_now[1] - machine[1])
            self.samples.append((now, round(busy, 3), cores))
            at, machine, pods = now, machine_now, pods_now

    def stop(self):
        self.done.set()
        self.join(5)
        return self.samples


def cpu_summary(samples, outcomes, start, end):
    """The machine's busy share during [start, end), and in the seconds with an answer that was not complete
    against those without; the cores of each part during [start, end)."""
    if not samples:
        return None
    bad_seconds = {int(at) for at, outcome in outcomes if outcome != "complete"}
    within = [s for s in samples if start <= s[0] < end]
    mean = lambda values: round(statistics.fmean(values), 3) if values else None  # noqa: E731
    # a sample covers the second before it was taken
    hit = [busy for at, busy, _ in samples if int(at - 1) in bad_seconds or int(at) in bad_seconds]
    clean = [busy for at, busy, _ in samples if int(at - 1) not in bad_seconds and int(at) not in bad_seconds]
    parts = sorted({part for *_, cores in within for part in cores})
    return {"machine_busy_during_fault": mean([busy for _, busy, _ in within]),
            "machine_busy_max_during_fault": max((busy for _, busy, _ in within), default=None),
            "machine_busy_when_not_complete": mean(hit), "machine_busy_when_complete": mean(clean),
            "cores_during_fault": {part: mean([cores.get(part, 0) for *_, cores in within]) for part in parts},
            "per_second": [(round(at - samples[0][0], 1), busy) for at, busy, _ in samples]}


# ---------- clients: the writer and the stream reader

class Writer(threading.Thread):
    """POSTs a new article through web-api every 1/rate s, and remembers what each answer was."""

    def __init__(self, url, rate, tag):
        super().__init__(daemon=True)
        self.url, self.period, self.tag = url, 1 / rate, tag
        self.sent = []  # (time, status, id or None, title)
        self.done = threading.Event()

    def run(self):
        n = 0
        next_at = time.time()
        while not self.done.is_set():
            n += 1
            title = f"{self.tag} #{n}"
            body = json.dumps({"title": title, "url": f"https://example.org/chaos/{n}", "author": "Ada Lovelace"})
            request = urllib.request.Request(self.url, data=body.encode(), method="POST",
                                             headers={"Content-Type": "application/json"})
            status, article_id = 0, None
            try:
                with urllib.request.urlopen(request, timeout=10) as answer:
                    status = answer.status
                    article_id = json.loads(answer.read()).get("id")
            except urllib.error.HTTPError as error:
                status = error.code
                if status == 503 and not (error.headers.get("Retry-After")
                                          and error.headers.get_content_type() == "application/problem+json"):
                    status = "503 without problem JSON and Retry-After"  # not the clear answer promised
            except (urllib.error.URLError, OSError):
                status = 0
            self.sent.append((time.time(), status, article_id, title))
            next_at += self.period
            self.done.wait(max(0, next_at - time.time()))


class StreamReader(threading.Thread):
    """Follows web-api's server-sent events and records each article event: (time, id, title). When a stream
    ends (its web-api pod stopped), it connects again after a second, as a browser's EventSource does, sending
    the id of the last event it got (Last-Event-ID); reconnections counts how often."""

    def __init__(self, base_url, path):
        super().__init__(daemon=True)
        self.host, port = base_url.removeprefix("http://").split(":")
        self.port, self.path = int(port), path
        self.connection = None
        self.events = []
        self.connected = threading.Event()
        self.stopped = threading.Event()
        self.error = None
        self.reconnections = 0

    def run(self):
        while True:
            try:
                self.follow()
            except (OSError, ValueError, http.client.HTTPException) as error:
                if not self.connected.is_set():  # the first connection failed: the caller says so
                    self.error = error
                    self.connected.set()
                    return
            if self.stopped.wait(1):
                return
            self.reconnections += 1

    def follow(self):
        self.connection = http.client.HTTPConnection(self.host, self.port, timeout=None)
        headers = {"Accept": "text/event-stream"}
        if self.events:
            headers["Last-Event-ID"] = str(self.events[-1][1])
        self.connection.request("GET", self.path, headers=headers)
        answer = self.connection.getresponse()
        if answer.status != 200:
            raise http.client.HTTPException(f"{self.path} answered {answer.status}")
        self.connected.set()
        while True:
            line = answer.fp.readline()
            if not line:
                return
            if line.startswith(b"data:"):
                event = json.loads(line[5:])
                self.events.append((time.time(), event.get("id"), event.get("title")))

    def stop(self):
        self.stopped.set()
        try:
            self.connection.sock.shutdown(socket.SHUT_RDWR)
        except (OSError, AttributeError):
            pass


# ---------- the load and what it saw

def run_load(loadgen, version, base_url, scenario, settings, work, stop=None):
    """One load run (stop: an Event that ends it early); returns ((outcomes, durations) from its samples, the
    figures of its summary). Its samples go to work/load.csv, read as they are written by the fault's timing."""
    summary = work / "load.json"
    _, _, written = load.run(loadgen, version, scenario, base_url, summary, settings, stop=stop)
    return samples.timeline(written), load.metrics(json.loads(summary.read_text()))


# ---------- one fault against one build

def complete_answer(url):
    try:
        with urllib.request.urlopen(url, timeout=5) as answer:
            articles = json.loads(answer.read())
        return len(articles) == 10 and all(a["authorBlog"] is not None for a in articles)
    except (OSError, ValueError):
        return False


def await_healthy(web_api, version, timeout=180):
    """Until three answers in a row are complete: every part is back and every circuit closed."""
    deadline, streak = time.time() + timeout, 0
    while streak < 3:
        if time.time() > deadline:
            sys.exit(f"{version} did not answer completely within {timeout} s before the next fault")
        streak = streak + 1 if complete_answer(f"{web_api}/{version}/articles") else 0
        time.sleep(0.3 if streak else 1)


def settled(outcomes, since, seconds):
    """Whether the answers so far end in `seconds` of complete ones, all after `since`."""
    if not outcomes:
        return False
    latest = max(at for at, _ in outcomes)
    last_bad = max((at for at, outcome in outcomes if outcome != "complete"), default=since)
    return latest - max(since, last_bad) >= seconds


def await_settled(samples, since, seconds, deadline):
    """Until the answers written so far end in `seconds` of complete ones since the part came back, or until the
    deadline: a build that has recovered is not kept under load for the whole `after`, one that has not gets all
    of it (and the report's checks judge it)."""
    while time.time() < deadline and not settled(samples.read().outcomes, since, seconds):
        time.sleep(1)


def run_fault(fault, version, platform, loadgen, timing, work):
    web_api = platform.web_api_url(version)
    replicas = platform.replicas(fault, version)
    await_healthy(web_api, version)
    tag = f"chaos {fault.name} {version} {time.time_ns()}"
    reader = StreamReader(web_api, f"/{version}/articles/stream")
    reader.start()
    if not reader.connected.wait(30) or reader.error:
        sys.exit(f"could not follow {web_api}/{version}/articles/stream: {reader.error}")
    metrics_before = platform.web_api_metrics(version)
    cpu = CpuRecorder(platform.namespace)
    cpu.start()

    # The load lasts until the answers have settled once the part is back (at most `after` seconds), however long
    # it took to come back: the generator is given room for the longest restart the stack waits for, and stopped then.
    duration = timing["before"] + timing["fault"] + RESTORE_LIMIT_SECONDS + timing["after"]
    load_result, enough = {}, threading.Event()
    loading = threading.Thread(target=lambda: load_result.update(zip(("samples", "summary"), run_load(
        loadgen, version, web_api, "steady", {"RATE": timing["rate"], "DURATION": f"{duration}s"}, work, enough))))
    writer = Writer(f"{web_api}/{version}/articles", timing["writes"], tag)
    loading.start()
    writer.start()
    started = time.time()

    time.sleep(timing["before"])
    injected = time.time()
    platform.act(fault.inject, fault, version)
    time.sleep(max(0, injected + timing["fault"] - time.time()))
    restoring = time.time()
    platform.act(fault.restore, fault, version)
    restored = time.time()  # a restarted service is ready; a restarted server accepts connections
    await_settled(samples.Reader(work / "load.csv"), restored, timing["settled"], restored + timing["after"])
    enough.set()
    loading.join()
    writer.done.set()
    writer.join()
    ended = time.time()

    created = {article_id: title for _, status, article_id, title in writer.sent if status == 201}
    deadline = time.time() + timing["drain"]
    while time.time() < deadline and not set(created) <= {e[1] for e in reader.events}:
        time.sleep(0.2)
    reader.stop()
    reader.join(5)
    cpu_samples = cpu.stop()
    # A new web-api pod counts from zero: its circuits' openings and its retries tell nothing then.
    metrics_after = None if replaces_web_api(fault) else platform.web_api_metrics(version)
    openings = counter_growth(metrics_before, metrics_after, circuit_openings)
    retries = counter_growth(metrics_before, metrics_after, read_retries)
    timeouts = counter_growth(metrics_before, metrics_after, calls_timed_out)

    outcomes, durations = load_result["samples"]
    return assess(fault, version, platform.restores_itself, replicas, {
        "started": started, "injected": injected, "restoring": restoring, "restored": restored, "ended": ended,
        "outcomes": outcomes, "durations": durations, "writes": writer.sent, "created": created,
        "events": [e for e in reader.events if e[2] and e[2].startswith(tag)], "circuit_openings": openings,
        "retries": retries, "timeouts": timeouts,
        "reconnections": reader.reconnections, "cpu": cpu_samples,
    })


def counter_growth(before, after, counter):
    """How much one of web-api's counters grew during a run, summed over the pods that served from its start to its
    end; None when there are none (a new pod counts from zero, and its start-up counted too)."""
    common = set(before) & set(after or {})
    if not common:
        return None
    return sum(counter(after[pod]) - counter(before[pod]) for pod in common)


def replaces_web_api(fault):
    """Whether the fault gives web-api new pods (whose counters start from zero): its own rolling update, a
    redeploy of the whole build; not a kubelet restart, whose pods run on."""
    return fault.part == "web-api" or fault.inject == "redeploy"


def assess(fault, version, restores_itself, replicas, run):
    counts = {o: sum(1 for _, outcome in run["outcomes"] if outcome == o) for o in OUTCOMES}
    bad = [at for at, outcome in run["outcomes"] if outcome != "complete"]
    bad_after = [at for at in bad if at >= run["restoring"]]
    tail = max((at for at, _ in run["outcomes"]), default=run["ended"])
    recovered = not bad_after or tail - max(bad_after) >= 3  # at least 3 s of complete answers at the end
    recovery = max(0.0, max(bad_after) - run["restoring"]) if bad_after else 0.0
    errors_outside = [at for at in bad if at < run["injected"]]
    # On Kubernetes the fault lasts until the platform has made the part whole again.
    fault_end = run["restored"] if restores_itself else run["restoring"]
    during = [ms for at, ms, _ in run["durations"] if run["injected"] <= at < fault_end]

    delivered_ids = [e[1] for e in run["events"]]
    lost = sorted(set(run["created"]) - set(delivered_ids))
    duplicates = len(delivered_ids) - len(set(delivered_ids))
    # Stored although the client saw no 201 (it timed out first): an event nobody was promised.
    unconfirmed = len(set(delivered_ids) - set(run["created"]))
    last_event = max((at for at, *_ in run["events"]), default=None)
    write_statuses = {}
    for _, status, *_ in run["writes"]:
        write_statuses[str(status)] = write_statuses.get(str(status), 0) + 1
    writes = {"sent": len(run["writes"]), "created": len(run["created"]), "statuses": write_statuses}

    checks = {
        "no errors before the fault": not errors_outside,
        "never 500: a failure is 503 problem JSON": counts["error"] == 0 and not any(
            status not in ("0", "201", "503") for status in write_statuses),
        "recovered, without restarting web-api" if fault.part != "web-api" else "recovered": recovered,
        "events lost = 0": not lost,
        "no event streamed twice": duplicates == 0,
    }
    if restores_itself:  # a part replaced by the platform stops gracefully: no write sees its connection dropped
        checks["writes: 201 or a 503 problem, never a dropped connection or a 502"] = \
            set(write_statuses) <= {"201", "503"}
    # A rolling update or a pod deleted gracefully must not show at all where another replica serves; with one,
    # the new pod takes over alone and the reads need only stay answered (the counts show how many were degraded).
    if fault.reads_complete and (replicas > 1 or fault.even_alone):
        checks["every read complete (none failed, none degraded)"] = counts["complete"] == len(run["outcomes"]) > 0
        if run["circuit_openings"] is not None:
            checks["no circuit opened"] = run["circuit_openings"] == 0
    if fault.reads_stay_ok:
        checks["every read answered 200 during the fault"] = \
            counts["shed"] + counts["unavailable"] + counts["error"] + counts["rejected"] + counts["failed"] == 0
    else:
        checks["errors fast: p99 during the fault < 3.5 s"] = (percentile(during, 99) or 0) < 3500
    if fault.name == "kafka stopped":
        checks["every write answered 201"] = writes["created"] == writes["sent"] > 0
    if fault.part == "authors" and fault.inject in ("stop", "pause", "delete-pod", "kill-container") and replicas == 1:
        checks["the circuit opened"] = run["circuit_openings"] > 0  # authors gone for a while: the breaker cut it off

    summary = {
        "fault": fault.name, "version": version, "replicas": replicas, "requests": len(run["outcomes"]), "outcomes": counts,
        "fault_seconds": round(run["restoring"] - run["injected"], 1),
        "restore_seconds": round(run["restored"] - run["restoring"], 1),
        "recovery_seconds": round(recovery, 1) if recovered else None,
        "p99_ms_during_fault": percentile(during, 99), "max_ms_during_fault": max(during, default=None),
        "writes": writes, "events": {"created": len(run["created"]), "delivered": len(set(delivered_ids) & set(run["created"])),
                                     "lost": len(lost), "duplicates": duplicates, "unconfirmed": unconfirmed,
                                     "last_delivered_after_restore_s":
                                         round(last_event - run["restoring"], 1) if last_event else None},
        "circuit_openings": run["circuit_openings"], "retries": run.get("retries"), "timeouts": run.get("timeouts"),
        "stream_reconnections": run["reconnections"],
        "cpu": cpu_summary(run.get("cpu"), run["outcomes"], run["injected"], fault_end),
        "checks": checks, "passed": all(checks.values()),
        "timeline": timeline(run),
    }
    mark = "PASS" if summary["passed"] else "FAIL"
    info(f"{mark} {fault.name} {version}: {counts}, recovery {summary['recovery_seconds']} s, "
         f"events {summary['events']['delivered']}/{summary['events']['created']}, lost {len(lost)}"
         + "".join(f"\n        FAIL {name}" for name, ok in checks.items() if not ok))
    return summary


def timeline(run):
    """Outcomes per second since the start, with the fault's window, for the chart."""
    seconds = {}
    for at, outcome in run["outcomes"]:
        second = int(at - run["started"])
        seconds.setdefault(second, dict.fromkeys(OUTCOMES, 0))[outcome] += 1
    return {"per_second": [seconds.get(s, dict.fromkeys(OUTCOMES, 0)) for s in range(max(seconds, default=-1) + 1)],
            "injected": run["injected"] - run["started"], "restoring": run["restoring"] - run["started"]}


# ---------- overload: twice what the build sustains

def run_overload(version, services, loadgen, timing, work):
    web_api = services[f"web-api-{version}"]["url"]
    step(f"overload {version}: measuring what it sustains (closed model, {timing['probe_users']} users, after the same warm-up)")
    probe_settings = {"USERS": timing["probe_users"], "ITERATIONS": timing["probe_iterations"]}
    run_load(loadgen, version, web_api, "closed", probe_settings, work)  # warms the JIT; not measured
    _, probe = run_load(loadgen, version, web_api, "closed", probe_settings, work)
    capacity = probe["rps"]
    rate = int(2 * capacity)
    info(f"{version} sustains {capacity:.0f} req/s; offering {rate}/s for {timing['overload']} s")
    pid = services[f"web-api-{version}"]["pid"]
    reset_peak_rss(pid)
    served_before = answered(scrape(web_api), "GET", "/articles", "200")
    (outcomes, durations), summary = run_load(loadgen, version, web_api, "open", {
        "RATE": rate, "DURATION": f"{timing['overload']}s", "MAX_USERS": 600}, work)
    served_after = answered(scrape(web_api), "GET", "/articles", "200")
    served, served_seconds = (after - before for after, before in zip(served_after, served_before))
    ready = answers_ready(web_api)
    accepted = [ms for _, ms, status in durations if status == "200"]
    counts = {o: sum(1 for _, outcome in outcomes if outcome == o) for o in OUTCOMES}
    peak = peak_rss_mib(pid)
    accepted_timed = sorted((at, ms) for at, ms, status in durations if status == "200")
    span = (accepted_timed[-1][0] - accepted_timed[0][0]) if len(accepted_timed) > 1 else 1
    accepted_rps = len(accepted_timed) / max(span, 1)
    third = span / 3
    first = [ms for at, ms in accepted_timed if at < accepted_timed[0][0] + third]
    last = [ms for at, ms in accepted_timed if at >= accepted_timed[-1][0] - third]
    # Little's law: with at most MAX_IN_FLIGHT admitted, the mean time an accepted request spends in web-api is at
    # most MAX_IN_FLIGHT / throughput. Measured where the bound holds, by web-api's own timer (arrival to the end of
    # the answer); 10 % for the run's edges. What the generator sees on top (its own scheduling when it drives thousands of
    # requests a second on the same cores, the connection queue ahead of the edge) is the client's mean, reported.
    little_ms = 1000 * MAX_IN_FLIGHT / accepted_rps
    server_mean_ms = 1000 * served_seconds / served if served else 0
    mean_ms = statistics.fmean(accepted) if accepted else 0
    checks = {
        "still up and ready afterwards": ready,
        "excess turned away with 503 + Retry-After": counts["shed"] > 0,
        f"accepted: web-api's mean time within Little's bound, {MAX_IN_FLIGHT} in flight / {accepted_rps:.0f} req/s "
        f"({little_ms:.0f} ms + 10 %)": served > 0 and server_mean_ms <= 1.1 * little_ms,  # no timing, no pass
        "accepted: p99 does not grow (last third <= 1.5 × first third + 50 ms)":
            (percentile(last, 99) or 0) <= 1.5 * (percentile(first, 99) or 0) + 50,
        "memory bounded: peak RSS < 1 GiB": peak is not None and peak < 1024,
        "no request without an answer": counts["failed"] == 0,
    }
    result = {"fault": "overload (2x capacity)", "version": version, "capacity_rps": round(capacity),
              "offered_rps": rate, "achieved_rps": round(summary["rps"]),
              "unsent": summary["dropped"],
              "requests": len(outcomes), "outcomes": counts, "accepted_rps": round(accepted_rps),
              "accepted_mean_ms": round(mean_ms, 1), "server_mean_ms": round(server_mean_ms, 1),
              "little_bound_ms": round(little_ms, 1), "accepted_p50_ms": percentile(accepted, 50),
              "accepted_p99_ms": percentile(accepted, 99), "peak_rss_mib": round(peak) if peak else None,
              "checks": checks, "passed": all(checks.values())}
    mark = "PASS" if result["passed"] else "FAIL"
    info(f"{mark} overload {version}: {counts}, accepted p99 {result['accepted_p99_ms']} ms, peak RSS {result['peak_rss_mib']} MiB"
         + "".join(f"\n        FAIL {name}" for name, ok in checks.items() if not ok))
    return result


def answers_ready(url):
    try:
        with urllib.request.urlopen(f"{url}/q/health/ready", timeout=5) as answer:
            return answer.status == 200
    except OSError:
        return False


# ---------- the report

def timeline_chart(title, entry):
    line = entry["timeline"]
    return charts.outcome_timeline(title, line["per_second"], line["injected"], line["restoring"], OUTCOMES)


def overload_rounds(overloads):
    """Per build, when it ran overload more than once: how many runs had a degraded answer (a look-up that gave up:
    how a stall shows) and the medians of what each run measured."""
    by_version = {}
    for r in overloads:
        by_version.setdefault(r["version"], []).append(r)
    if all(len(runs) < 2 for runs in by_version.values()):
        return []
    rows = [["build", "runs", "runs with a degraded answer", "degraded answers", "median accepted req/s",
             "median accepted p99 ms", "runs passed"]]
    for version, runs in by_version.items():
        rows.append([version, len(runs), sum(1 for r in runs if r["outcomes"]["degraded"] > 0),
                     sum(r["outcomes"]["degraded"] for r in runs), round(statistics.median(r["accepted_rps"] for r in runs)),
                     round(statistics.median(r["accepted_p99_ms"] or 0 for r in runs)), sum(1 for r in runs if r["passed"])])
    return rows


def render(results, directory, where):
    faults = [r for r in results if "timeline" in r]
    overloads = [r for r in results if "timeline" not in r]
    mark = lambda ok: "PASS" if ok else "FAIL"  # noqa: E731
    fault_rows = [["fault", "build", "replicas", "requests", "complete", "degraded", "503", "500", "no answer", "p99 during fault ms",
                   "recovery s", "writes 201 / sent", "events delivered / created", "events lost", "circuit opened",
                   "reads retried", "calls timed out", "stream reconnected", "verdict"]]
    for r in faults:
        o, e, w = r["outcomes"], r["events"], r["writes"]
        fault_rows.append([r["fault"], r["version"], r.get("replicas", 1), r["requests"], o["complete"], o["degraded"],
                           o["shed"] + o["unavailable"], o["error"], o["failed"], f"{r['p99_ms_during_fault'] or 0:.0f}",
                           "not recovered" if r["recovery_seconds"] is None else f"{r['recovery_seconds']:.1f}",
                           f"{w['created']} / {w['sent']}", f"{e['delivered']} / {e['created']}", e["lost"],
                           "–" if r["circuit_openings"] is None else f"{r['circuit_openings']:.0f}×",
                           "–" if r.get("retries") is None else f"{r['retries']:.0f}",
                           "–" if r.get("timeouts") is None else f"{r['timeouts']:.0f}",
                           f"{r.get('stream_reconnections', 0)}×", mark(r["passed"])])
    overload_rows = [["build", "sustains req/s", "offered req/s", "answered req/s", "accepted req/s", "complete",
                      "degraded", "shed 503", "other errors", "accepted mean ms (client)", "in web-api ms", "Little's bound ms",
                      "accepted p99 ms", "web-api peak RSS MiB", "verdict"]]
    for r in overloads:
        o = r["outcomes"]
        overload_rows.append([r["version"], r["capacity_rps"], r["offered_rps"], r["achieved_rps"], r["accepted_rps"],
                              o["complete"], o["degraded"], o["shed"], o["unavailable"] + o["error"] + o["failed"] + o["rejected"],
                              f"{r['accepted_mean_ms']:.1f}", f"{r['server_mean_ms']:.1f}", f"{r['little_bound_ms']:.0f}",
                              f"{r['accepted_p99_ms'] or 0:.0f}",
                              r["peak_rss_mib"], mark(r["passed"])])
    round_rows = overload_rounds(overloads)
    percent = lambda share: "–" if share is None else f"{100 * share:.0f} %"  # noqa: E731
    cpu_rows = [["fault", "build", "machine busy during fault", "max", "busy in seconds with an incomplete answer",
                 "busy in the other seconds", "cores per part during fault"]]
    for r in (r for r in faults if r.get("cpu")):
        c = r["cpu"]
        busiest = sorted(c["cores_during_fault"].items(), key=lambda item: -item[1])[:5]
        cpu_rows.append([r["fault"], r["version"], percent(c["machine_busy_during_fault"]),
                         percent(c["machine_busy_max_during_fault"]), percent(c["machine_busy_when_not_complete"]),
                         percent(c["machine_busy_when_complete"]),
                         ", ".join(f"{part} {cores:.2f}" for part, cores in busiest) or "–"])
    check_rows = [["fault", "build", "expectation", "verdict"]]
    for r in results:
        check_rows += [[r["fault"], r["version"], name, mark(ok)] for name, ok in r["checks"].items()]
    passed = all(r["passed"] for r in results)

    sections = [("Faults", "Each fault against each build, with the load on: the load generator reads at a steady rate, a writer "
                 "POSTs new articles, an SSE client follows the stream. 'complete' answers have every author "
                 "detail; 'degraded' ones are 200 with null author details (a look-up fell back); '503' "
                 "are problem JSON answers with Retry-After, '500' would be unexpected errors; 'no answer' are requests that got nothing. Recovery is the time from "
                 "giving the part back (restart command issued; on Kubernetes, the fault itself, since the platform "
                 "restores by itself) to the last answer that was not complete. 'reads retried': web-api's "
                 "second tries of its reads (articles' newest after a failure, an author look-up after its connection "
                 "failed; each a call of its own). 'calls timed out': web-api's calls to articles or authors that reached their time-out (1 s for a look-up, 1.5 s for a read, 3 s for a write): a degraded read with none came from a failed connection. "
                 "'stream reconnected': how often the SSE "
                 "client had to connect again (its web-api pod stopped), sending Last-Event-ID. "
                 "An event is delivered when the SSE client saw it; every 201 must be delivered.",
                 [("", fault_rows)])]
    if len(cpu_rows) > 1:
        sections.append(("CPU", "How busy the machine's cores were, sampled once a second (everything on it: the "
                         "pods, the load generator, this harness), and where the kubelet runs here (the test node) the cores each "
                         "part's pods used, from their cgroups: whether answers that were not complete came with "
                         "cores that were all taken.", [("", cpu_rows)]))
    if overloads:
        sections.append(("Overload", "An open-model arrival rate of twice what the build sustained in a short "
                         "closed-model probe just before. Beyond 200 requests in flight web-api turns requests away "
                         "at once with 503 + Retry-After, so those it accepts keep a bounded latency and memory: "
                         "by Little's law their mean time in web-api (its own timer) is at most 200 / the accepted "
                         "rate. The client's mean adds its side: its own scheduling at thousands of requests a "
                         "second on the same cores, and the connection queue ahead of the edge.",
                         [("", overload_rows)] + ([("Per build, over the rounds", round_rows)] if round_rows else [])))
    sections.append(("Expectations", "PASS: every expectation held." if passed else "FAIL: see below.",
                     [("", check_rows)]))
    charts = {f"chaos-{r['fault'].replace(' ', '-')}-{r['version']}": timeline_chart(f"{r['fault']}, {r['version']}", r)
              for r in faults}
    subtitle = f"{where}, {datetime.datetime.now().isoformat(timespec='seconds')}, commit {git_commit()}"
    versions = list(dict.fromkeys(r["version"] for r in results))
    documents.write(directory, "chaos", "reactive-bench: faults, " + " vs ".join(versions), subtitle, sections,
                           {"Faults": charts})
    (directory / "chaos.json").write_text(json.dumps(results, indent=2, default=str))
    return passed


def main(argv=None):
    parser = argparse.ArgumentParser(prog="benchkit chaos", description=__doc__.splitlines()[0])
    parser.add_argument("--loadgen", default=os.environ.get("LOADGEN", "loadgen"))
    parser.add_argument("--results", type=pathlib.Path,
                        default=ROOT / "results" / ("chaos-" + datetime.datetime.now().strftime("%Y%m%d-%H%M%S")))
    parser.add_argument("--quick", action="store_true",
                        help=f"only {', '.join(QUICK)} (Kubernetes: {', '.join(KUBERNETES_QUICK)}), shorter (for make test)")
    parser.add_argument("--faults", help="comma-separated fault names, 'overload' among them (default: all)")
    parser.add_argument("--versions", default=",".join(VERSIONS))
    parser.add_argument("--kubernetes", metavar="NAMESPACE", help="the builds deployed in this namespace, not the local stack")
    parser.add_argument("--rounds", type=int, default=1,
                        help="run every chosen fault (and overload) this many times, the builds in turn each round: "
                             "to count something rare, such as a stall (default: 1)")
    args = parser.parse_args(argv)
    if args.rounds < 1:
        parser.error("--rounds must be 1 or more")
    platform = platforms.select(args.kubernetes, args.loadgen, args.versions.split(","))

    # before: the generator needs a moment to start sending, which leaves a few seconds of normal service before the fault.
    # after: the longest the load goes on once the part is back (each platform says why); it ends sooner once the
    # last `settled` seconds of answers were all complete: two of web-api's breaker delays (5 s), so a circuit that
    # closed and would open again shows within them.
    timing = {"rate": 40, "writes": 4, "before": 6, "fault": platform.fault_seconds(args.quick),
              "after": platform.after_seconds(args.quick), "settled": 10, "drain": 60,
              # The short subset runs in make test after make bench has warmed every build: a third of it then.
              "warmup_users": 20, "warmup_iterations": 30 if args.quick else 100,
              "probe_users": 50, "probe_iterations": 100, "overload": 20}
    # Overload needs the local processes (their peak RSS): on Kubernetes the faults are the platform's own.
    known = [f.name for f in platform.faults] + ([] if platform.processes() is None else ["overload"])
    names = args.faults.split(",") if args.faults else platform.quick if args.quick else known
    unknown = set(names) - set(known)
    if unknown:
        sys.exit(f"unknown faults on {platform.where}: {', '.join(sorted(unknown))}; known: {', '.join(known)}")
    chosen = [f for f in platform.faults if f.name in names]
    args.results.mkdir(parents=True, exist_ok=True)
    work = args.results / "work"
    work.mkdir(exist_ok=True)

    for version in args.versions.split(","):
        step(f"warming up {version} (the same {timing['warmup_users']} × {timing['warmup_iterations']} requests for each build)")
        run_load(args.loadgen, version, platform.web_api_url(version), "warmup",
                 {"USERS": timing["warmup_users"], "WARMUP_ITERATIONS": timing["warmup_iterations"]}, work)
    results = []
    for turn in range(1, args.rounds + 1):
        if args.rounds > 1:
            step(f"round {turn} of {args.rounds}")
        for fault in chosen:
            for version in args.versions.split(","):
                step(f"{fault.name}, {version}: {fault.story}")
                results.append(run_fault(fault, version, platform, args.loadgen, timing, work))
        if "overload" in names:
            for version in args.versions.split(","):
                results.append(run_overload(version, platform.processes(), args.loadgen, timing, work))
    passed = render(results, args.results, platform.where)
    print(f"Chaos report: {args.results / 'chaos.md'} and {args.results / 'chaos.html'}")
    if not passed:
        sys.exit("Some expectation failed under a fault: see the report's Expectations section")

