#!/usr/bin/env python3
"""Runs the k6 scenarios against web-api, v1 then v2 (never both at once), and records what each run
cost: the k6 summary, CPU seconds and peak RSS of every process of that build, and the downstream calls
the services themselves counted. Writes results/<timestamp>/runs/*.json; scripts/report.py renders them.

The local stack must be up (scripts/stack.sh up): its inventory .local/stack.json says what runs where.
"""
import argparse
import datetime
import json
import os
import pathlib
import platform
import re
import resource
import subprocess
import sys
import time
import urllib.request

ROOT = pathlib.Path(__file__).resolve().parent.parent
CLOCK_TICKS = os.sysconf("SC_CLK_TCK")
K6_SETTINGS = ("VUS", "ITERATIONS", "RATE", "DURATION", "WARMUP_ITERATIONS", "MAX_VUS", "MAX_DURATION")


def step(message):
    print(f"\033[36m==>\033[0m {message}", flush=True)


def info(message):
    print(f"    {message}", flush=True)


# ---------- what the processes used (from /proc)

def cpu_ticks(pid):
    """user + system CPU of a process, and of its children that ended, in clock ticks."""
    try:
        fields = pathlib.Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except (FileNotFoundError, ProcessLookupError):
        return 0
    utime, stime, cutime, cstime = (int(fields[i]) for i in (11, 12, 13, 14))
    return utime + stime + cutime + cstime


def postgres_ticks(postmaster):
    """PostgreSQL runs one process per connection: the postmaster's ticks plus every backend's."""
    total = cpu_ticks(postmaster)
    for stat in pathlib.Path("/proc").glob("[0-9]*/stat"):
        try:
            text = stat.read_text()
        except (FileNotFoundError, ProcessLookupError, PermissionError):
            continue
        ppid = int(text.rsplit(")", 1)[1].split()[1])
        if ppid == postmaster:
            total += cpu_ticks(int(stat.parent.name))
    return total


def reset_peak_rss(pid):
    try:
        pathlib.Path(f"/proc/{pid}/clear_refs").write_text("5")  # 5 resets VmHWM, the peak RSS
    except OSError:
        pass


def peak_rss_mib(pid):
    try:
        for line in pathlib.Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    except FileNotFoundError:
        pass
    return None


# ---------- what the services counted (Prometheus text from /q/metrics)

def scrape(url):
    """A service's Prometheus text from /q/metrics (one request per service and snapshot)."""
    return urllib.request.urlopen(f"{url}/q/metrics", timeout=10).read().decode()


def served(metrics, method, uri):
    """How many requests a service has answered for one method and route, whatever the status."""
    total = 0.0
    for line in metrics.splitlines():
        if line.startswith("http_server_requests_seconds_count{") and f'uri="{uri}"' in line \
                and f'method="{method}"' in line:
            total += float(line.rsplit(" ", 1)[1])
    return total


def counter(metrics, name):
    """A counter's value (0 when it was never incremented)."""
    return sum(float(line.rsplit(" ", 1)[1]) for line in metrics.splitlines()
               if line.startswith(name + " ") or line.startswith(name + "{"))


FALLBACKS = "webapi_author_lookup_fallbacks_total"


def requests_served(version, metrics):
    """The requests each service of a build has served so far, and web-api's author fall-backs."""
    return {
        "web-api": served(metrics["web-api"], "GET", f"/{version}/articles"),
        "articles": served(metrics["articles"], "GET", f"/{version}/articles"),
        "authors": served(metrics["authors"], "GET", f"/{version}/authors"),
        "fallbacks": counter(metrics["web-api"], FALLBACKS),
    }


class Build:
    """The processes of one version on the local stack: its three services, and the PostgreSQL and
    Kafka they share. k6 runs here, as a child process."""

    def __init__(self, stack, version, k6):
        self.version = version
        self.k6 = k6
        self.services = {name: stack["services"][f"{name}-{version}"] for name in ("web-api", "articles", "authors")}
        self.postgres = stack["postgres"]["pid"]
        self.kafka = stack["kafka"]["pid"]

    def web_api_url(self):
        return self.services["web-api"]["url"]

    def run(self, scenario, summary):
        return run_k6(self.k6, self.version, scenario, self.web_api_url(), summary)

    def close(self):
        pass

    def snapshot(self):
        counts = requests_served(self.version, {name: scrape(service["url"]) for name, service in self.services.items()})
        ticks = {name: cpu_ticks(service["pid"]) for name, service in self.services.items()}
        ticks["postgres"] = postgres_ticks(self.postgres)
        ticks["kafka"] = cpu_ticks(self.kafka)
        return {"time": time.monotonic(), "requests": counts,
                "cpu_seconds": {name: value / CLOCK_TICKS for name, value in ticks.items()}}

    def reset_peaks(self):
        for service in self.services.values():
            reset_peak_rss(service["pid"])

    def peaks(self):
        return {name: peak_rss_mib(service["pid"]) for name, service in self.services.items()}

    def memory(self):
        return None  # peaks() is the figure here: each process's peak RSS (VmHWM), reset before the run

    def restarts(self, before, after):
        return None  # processes of the local stack are not restarted by anything


# ---------- one k6 run

def run_k6(k6, version, scenario, base_url, summary):
    env = dict(os.environ, VERSION=version, SCENARIO=scenario, BASE_URL=base_url, SUMMARY_FILE=str(summary))
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.monotonic()
    log = summary.with_suffix(".log")
    with open(log, "w") as output:
        process = subprocess.Popen([k6, "run", "--quiet", "--no-color", str(ROOT / "k6" / "articles.js")],
                                   env=env, stdout=output, stderr=subprocess.STDOUT)
        try:
            while True:
                try:
                    code = process.wait(timeout=15)
                    break
                except subprocess.TimeoutExpired:
                    info(f"… {version} {scenario}: {time.monotonic() - started:.0f}s")
        finally:
            if process.poll() is None:  # interrupted or failed: never leave k6 running
                process.terminate()
                process.wait(timeout=30)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    sys.stdout.write("".join("    " + line for line in log.read_text().splitlines(keepends=True)[-3:]))
    # 99: thresholds crossed; the summary is still written and the report shows why.
    if code not in (0, 99) or not summary.exists():
        sys.exit(f"k6 failed ({code}) for {version} {scenario}; see {log}")
    return code, (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime)


def expected_calls(build):
    """What one request must cost downstream: one articles call, one call per distinct author it shows."""
    url = f"{build.web_api_url()}/{build.version}/articles"
    articles = json.loads(urllib.request.urlopen(url, timeout=10).read())
    return {"articles": 1, "authors": len({article["authorName"] for article in articles})}


def measure(build, scenario, runs_dir, run):
    name = f"{build.version}-{scenario}-{run}"
    expected = expected_calls(build)
    time.sleep(1)  # the look-ups of that request are counted by authors a moment after web-api answered
    build.reset_peaks()
    before = build.snapshot()
    code, k6_cpu = build.run(scenario, runs_dir / f"{name}.json")
    after = build.snapshot()
    cost = {
        "version": build.version, "scenario": scenario, "run": run, "k6_exit_code": code,
        "seconds": after["time"] - before["time"],
        "requests_served": {k: after["requests"][k] - before["requests"][k] for k in before["requests"]},
        "expected_calls_per_request": expected,
        "cpu_seconds": {k: after["cpu_seconds"][k] - before["cpu_seconds"][k] for k in before["cpu_seconds"]},
        "k6_cpu_seconds": k6_cpu,
        "peak_rss_mib": build.peaks(),
        "memory_mib": build.memory(),
        "restarts": build.restarts(before, after),
    }
    (runs_dir / f"{name}.cost.json").write_text(json.dumps(cost, indent=2))


# ---------- the environment, for the report

def command_output(*command):
    try:
        result = subprocess.run(command, capture_output=True, text=True, timeout=30)
        return result.stdout + result.stderr
    except (OSError, subprocess.TimeoutExpired):
        return ""


def build_settings():
    """The pool and executor sizes each build runs with, from its application.properties."""
    wanted = re.compile(r"^(quarkus\.thread-pool\.max-threads|"
                        r"quarkus\.datasource\.(jdbc|reactive)\.max-size|quarkus\.datasource\.reactive\.[a-z.-]+|"
                        r"web-api\.author-lookups\.max-concurrency|quarkus\.rest-client\.[a-z]+\.connection-pool-size)=")
    settings = {}
    for properties in sorted(ROOT.glob("services/*/v[12]/src/main/resources/application.properties")):
        build = f"{properties.parents[3].parent.name}-{properties.parents[3].name}"
        settings[build] = [line for line in properties.read_text().splitlines() if wanted.match(line)]
    return settings


def environment(k6, stack, args):
    cpu = next((line.split(":", 1)[1].strip() for line in pathlib.Path("/proc/cpuinfo").read_text().splitlines()
                if line.startswith("model name")), platform.processor())
    java = pathlib.Path(os.readlink(f"/proc/{stack['services']['web-api-v1']['pid']}/exe"))  # what the services run on
    pom = (ROOT / "services" / "pom.xml").read_text()
    return {
        "timestamp": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        "where": args.where,
        "cpu": cpu, "cores": os.cpu_count(),
        "memory_gib": round(os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 2**30, 1),
        "kernel": platform.release(),
        "jdk": command_output(str(java), "-version").splitlines()[0] if java.exists() else "unknown",
        "quarkus": re.search(r"<quarkus.platform.version>([^<]+)<", pom).group(1),
        "k6": command_output(k6, "version").strip().splitlines()[0],
        "git_commit": command_output("git", "-C", str(ROOT), "rev-parse", "--short", "HEAD").strip(),
        "java_opts": stack.get("java_opts", ""),
        "k6_settings": {key: os.environ[key] for key in K6_SETTINGS if key in os.environ},
        "runs": args.runs, "warmup": not args.no_warmup,
        "builds": build_settings(),
    }


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--results", type=pathlib.Path, required=True)
    parser.add_argument("--versions", default="v1,v2")
    parser.add_argument("--scenarios", default="closed,open")
    parser.add_argument("--runs", type=int, default=int(os.environ.get("RUNS", "1")))
    parser.add_argument("--no-warmup", action="store_true", help="skip the warm-up (smoke runs only)")
    parser.add_argument("--k6", default=os.environ.get("K6", "k6"))
    parser.add_argument("--stack", type=pathlib.Path,
                        default=pathlib.Path(os.environ.get("LOCAL_DIR", ROOT / ".local")) / "stack.json")
    parser.add_argument("--where", default="local stack (one machine, loopback)")
    parser.add_argument("--kubernetes", metavar="NAMESPACE", help="run k6 as Jobs in this namespace instead")
    args = parser.parse_args()

    runs_dir = args.results / "runs"
    runs_dir.mkdir(parents=True, exist_ok=True)
    if args.kubernetes:
        import kubernetes_runs  # the in-cluster variant: k6 Jobs, cgroup CPU, port-forwards
        builds = {version: kubernetes_runs.KubernetesBuild(args.kubernetes, version) for version in args.versions.split(",")}
        env = kubernetes_runs.environment(args.kubernetes, args)
    else:
        stack = json.loads(args.stack.read_text())
        builds = {version: Build(stack, version, args.k6) for version in args.versions.split(",")}
        env = environment(args.k6, stack, args)
    (args.results / "environment.json").write_text(json.dumps(env, indent=2))

    for version, build in builds.items():
        try:
            if not args.no_warmup:
                step(f"{version}: warm-up ({os.environ.get('VUS', '100')} VUs x {os.environ.get('WARMUP_ITERATIONS', '900')}"
                     " requests, not measured)")
                build.run("warmup", runs_dir / f"{version}-warmup.json")
            for scenario in args.scenarios.split(","):
                for run in range(1, args.runs + 1):
                    step(f"{version}: {scenario} run {run}/{args.runs}")
                    measure(build, scenario, runs_dir, run)
        finally:
            build.close()
    step(f"Raw results in {args.results}")


if __name__ == "__main__":
    main()
