"""The load generators' bake-off (make bakeoff): loadgen, vegeta and wrk against one build, CPU and omission.

Each candidate (docs/load-generator.md) against the same target on the running local stack (BAKEOFF_VERSION's
web-api), in interleaved rounds, measuring
  - its own CPU per request (its process's rusage), beside wrk's, the floor, in the same round;
  - the target's rate meanwhile, and the generator's share of the whole machine's CPU per request (/proc/stat);
  - the coordinated-omission test: an open run at a constant rate while the target stalls for 1 s (SIGSTOP):
    every request due during the stall must show the stall in its latency, and every request due must be sent or
    counted as unsent.
Writes bakeoff.json and bakeoff.md into --results. Needs wrk (Debian) and vegeta (go install) on PATH or given."""
import csv
import dataclasses
import json
import os
import pathlib
import resource
import signal
import statistics
import subprocess
import threading
import time

from benchkit import LOCAL_DIR, step
from benchkit.core import documents, knobs, protocol, provenance, samples
from benchkit.core.knobs import knob
from benchkit.core.kinds import Kind, document_publisher
from benchkit.core.stats import close

CLOSED_USERS = 100
OPEN_RATE = 300
STALL_RATE, STALL_SECONDS, STALL_AT, STALL_RUN = 200, 1.0, 3.0, 8
# Requests in flight allowed in the stall run: far fewer than the STALL_RATE x STALL_SECONDS due during the stall, so
# that every candidate builds a backlog and sends late, and a latency counted from sending hides the stall.
STALL_IN_FLIGHT = 20
# What each candidate's own latency counts from: when a request was due, or when it was sent.
COUNTS_FROM = {"loadgen": "due", "vegeta": "sent"}
SCHEMA = "bakeoff/1"
CANDIDATES = (("wrk", "closed"), ("vegeta", "closed"), ("loadgen", "closed"), ("vegeta", "open"), ("loadgen", "open"))


def busy_jiffies():
    """The whole machine's busy CPU time so far (/proc/stat, every state but idle and iowait), in seconds."""
    fields = [int(v) for v in pathlib.Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]]
    return (sum(fields) - fields[3] - fields[4]) / os.sysconf("SC_CLK_TCK")


def timed(command, env=None, during=None):
    """Runs command; returns (its output, its CPU seconds, the machine's busy CPU seconds meanwhile, seconds)."""
    before, machine, started = resource.getrusage(resource.RUSAGE_CHILDREN), busy_jiffies(), time.monotonic()
    process = subprocess.Popen(command, env={**os.environ, **(env or {})}, stdout=subprocess.PIPE,
                               stderr=subprocess.STDOUT, text=True)
    if during:
        threading.Thread(target=during, daemon=True).start()
    output = process.communicate()[0]
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if process.returncode != 0:
        raise SystemExit(f"{command[0]} failed ({process.returncode}):\n{output[-2000:]}")
    cpu = (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime)
    return output, cpu, busy_jiffies() - machine, time.monotonic() - started


class Candidates:
    def __init__(self, spec, url, work):
        self.spec, self.url, self.work = spec, url, work

    def loadgen_env(self, scenario, **settings):
        base = self.url.rsplit("/", 2)[0]
        return {"VERSION": self.spec.version, "SCENARIO": scenario, "BASE_URL": base,
                "SAMPLES_FILE": str(self.work / "loadgen.csv"), **{k: str(v) for k, v in settings.items()}}

    def loadgen(self, model, seconds, rate=None, during=None, in_flight=1000):
        if model == "closed":
            env = self.loadgen_env("closed", USERS=CLOSED_USERS, ITERATIONS=10**6, MAX_DURATION=f"{seconds}s")
        else:
            env = self.loadgen_env("open", RATE=rate, DURATION=f"{seconds}s", MAX_USERS=in_flight)
        _, cpu, machine, elapsed = timed([knobs.tool("LOADGEN")], env, during)
        rows = samples.read(self.work / "loadgen.csv")
        return rows, cpu, machine, elapsed

    def vegeta(self, model, seconds, rate=None, during=None, in_flight=None):
        results = self.work / "vegeta.bin"
        pace = ["-rate=0", f"-workers={CLOSED_USERS}", f"-max-workers={CLOSED_USERS}"] if model == "closed" \
            else [f"-rate={rate}/s", *([f"-workers={in_flight}", f"-max-workers={in_flight}"] if in_flight else [])]
        (self.work / "targets.txt").write_text(f"GET {self.url}\n")
        _, cpu, machine, elapsed = timed([knobs.tool("VEGETA"), "attack", f"-targets={self.work / 'targets.txt'}",
                                          f"-duration={seconds}s", "-timeout=60s", *pace, f"-output={results}"],
                                         during=during)
        encoded = subprocess.run([knobs.tool("VEGETA"), "encode", "-to=csv", str(results)], capture_output=True,
                                 text=True, check=True).stdout
        return vegeta_samples(encoded, rate if model == "open" else None), cpu, machine, elapsed

    def wrk(self, model, seconds, rate=None, during=None):
        output, cpu, machine, elapsed = timed([self.spec.wrk, "-t2", f"-c{CLOSED_USERS}", f"-d{seconds}s", self.url])
        count = int(next(line for line in output.splitlines() if "requests in" in line).split()[0])
        return count, cpu, machine, elapsed


def vegeta_samples(encoded, rate=None):
    """vegeta's CSV (timestamp: ns, when sent; code; latency: ns, from when sent; bytes out; bytes in; error; body;
    attack; seq; …) as samples. At a constant rate its request seq was due seq / rate after the first one was: its
    latency is then counted from that instant, as loadgen's is (vegeta itself counts it from sending)."""
    parsed = [r for r in csv.reader(encoded.splitlines()) if r]
    origin = min((int(r[0]) for r in parsed), default=0)
    rows = []
    for r in parsed:
        sent, answered = int(r[0]) // 1000, (int(r[0]) + int(r[2])) // 1000
        due = origin // 1000 + int(int(r[8]) * 1e6 / rate) if rate else sent
        rows.append(samples.Sample(intended_us=due, start_us=sent, latency_us=answered - due, status=int(r[1]),
                                   outcome="complete" if r[1] == "200" else "failed", bytes=int(r[4])))
    return rows


def first_line(text):
    return (text.strip().splitlines() or ["unknown"])[0]


def cost_row(name, model, result):
    rows, cpu, machine, elapsed = result
    count = rows if isinstance(rows, int) else sum(1 for r in rows if r.outcome != "unsent")
    return {"generator": name, "model": model, "requests": count, "rate": count / elapsed,
            "cpu_ms_per_request": 1000 * cpu / count, "machine_cpu_ms_per_request": 1000 * machine / count}


def summarize(runs):
    """Per candidate and model, over the rounds: CPU ms per request (median, lowest, highest), over wrk's in the same
    round (closed only), its share of the machine's CPU per request, the target's rate, and the rate one core of the
    candidate could drive (1,000 / its CPU ms per request)."""
    summary = []
    for name, model in sorted({(r["generator"], r["model"]) for r in runs}):
        mine = [r for r in runs if (r["generator"], r["model"]) == (name, model)]
        over_wrk = [r["cpu_ms_per_request"] / w["cpu_ms_per_request"] for r in mine for w in runs
                    if w["generator"] == "wrk" and w["round"] == r["round"]] if model == "closed" else []
        cpu = [r["cpu_ms_per_request"] for r in mine]
        summary.append({"generator": name, "model": model, "cpu_ms_per_request": statistics.median(cpu),
                        "cpu_ms_low": min(cpu), "cpu_ms_high": max(cpu),
                        "times_wrk": statistics.median(over_wrk) if over_wrk else None,
                        "share_of_machine": statistics.median(r["cpu_ms_per_request"] / r["machine_cpu_ms_per_request"]
                                                              for r in mine),
                        "rate": statistics.median(r["rate"] for r in mine),
                        "one_core_rate": 1000 / statistics.median(cpu)})
    return summary


def passed(stall):
    """The coordinated-omission verdict from its counts."""
    return bool(stall["due_during_stall"]) and not stall["hid_the_stall"] and stall["recorded"] >= stall["expected"]


def consistency(document):
    """Where a bake-off's summary or verdicts are not what its runs and counts give ([] when none is)."""
    problems = []
    expected = summarize(document["runs"])
    if len(document["summary"]) != len(expected):
        problems.append("summary: not one entry per candidate and model of its runs")
    for found, again in zip(document["summary"], expected):
        for key, value in again.items():
            if not (value == found.get(key) or (isinstance(value, float) and close(found.get(key), value))):
                problems.append(f"summary {found['generator']} {found['model']} {key}: {found.get(key)} is not what "
                                f"its runs give, {value}")
    rounds = {r["round"] for r in document["runs"]}
    if rounds != set(range(1, document["rounds"] + 1)) or len(document["runs"]) != len(CANDIDATES) * len(rounds):
        problems.append(f"runs: not every candidate in each of its {document['rounds']} rounds")
    for name, stall in document["coordinated_omission"].items():
        if stall["passed"] != passed(stall):
            problems.append(f"coordinated omission {name}: the verdict is not what its counts give")
    return problems


def table(document):
    """The cost of each candidate, as docs/load-generator.md shows it."""
    rows = [["generator", "model", "CPU ms per request (lowest–highest round)", "over wrk, same round",
             "share of the machine's CPU per request", "target's rate /s", "one core of it drives /s"]]
    for s in sorted(document["summary"], key=lambda s: (s["model"], s["cpu_ms_per_request"])):
        label = document["generators"][s["generator"]].split(" [")[0].replace("debian/", "")
        rows.append([label, "closed" if s["model"] == "closed" else f"open, {OPEN_RATE}/s",
                     f"{s['cpu_ms_per_request']:.3f} ({s['cpu_ms_low']:.3f}–{s['cpu_ms_high']:.3f})",
                     f"{s['times_wrk']:.1f}×" if s["times_wrk"] else "", f"{s['share_of_machine']:.0%}",
                     f"{s['rate']:,.0f}", f"{s['one_core_rate']:,.0f}" if s["model"] == "closed" else ""])
    return rows


def stall_table(document):
    """The coordinated-omission test of each candidate with an open model."""
    rows = [["generator", "at most in flight", "its latency counts from", "requests due during the stall",
             "of them hiding it", "recorded of due", "unsent", "longest latency it reports (ms)",
             "longest from when due (ms)", "verdict"]]
    for name, s in document["coordinated_omission"].items():
        rows.append([name, f"{s['in_flight']:,}" if "in_flight" in s else "no cap", s.get("counts_from", "–"),
                     f"{s['due_during_stall']:,}", f"{s['hid_the_stall']:,}", f"{s['recorded']:,} of {s['expected']:,}",
                     f"{s['unsent']:,}", f"{s['max_latency_ms']:,.0f}",
                     f"{s['max_latency_from_due_ms']:,.0f}" if "max_latency_from_due_ms" in s else "–",
                     "pass" if s["passed"] else "FAIL"])
    return rows


def reported_us(sample, counts_from):
    """The latency a generator reports for a sample: from when it was due, or from when it was sent."""
    return sample.latency_us if counts_from == "due" else sample.intended_us + sample.latency_us - sample.start_us


def stall_assessment(rows, stall_start, stall_end, counts_from="due"):
    """Coordinated omission: every request due while the target was stopped must report at least the wait until it
    went on (less 50 ms for the signals' own timing) in the latency the generator itself gives, and every request due
    must be sent or counted as unsent. Beside it, the longest latency counted from when a request was due: what the
    stall really cost, which a latency counted from sending hides once requests wait to be sent."""
    due = [r for r in rows if stall_start + 0.05 <= r.intended_us / 1e6 <= stall_end - 0.05]
    sent = [r for r in rows if r.outcome != "unsent"]
    short = [r for r in due if r.outcome != "unsent"
             and reported_us(r, counts_from) / 1e6 < stall_end - r.intended_us / 1e6 - 0.05]
    found = {"in_flight": STALL_IN_FLIGHT, "counts_from": counts_from, "due_during_stall": len(due),
             "hid_the_stall": len(short), "expected": STALL_RATE * STALL_RUN, "recorded": len(rows),
             "unsent": sum(1 for r in rows if r.outcome == "unsent"),
             "max_latency_ms": max((reported_us(r, counts_from) / 1000 for r in sent), default=0),
             "max_latency_from_due_ms": max((r.latency_us / 1000 for r in sent), default=0)}
    return {**found, "passed": passed(found)}


def stall_test(run, pid, counts_from):
    """An open run of STALL_RUN s at STALL_RATE/s, at most STALL_IN_FLIGHT in flight; the target is stopped STALL_AT s
    in for STALL_SECONDS."""
    window = {}

    def stall():
        time.sleep(STALL_AT)
        window["start"] = time.time()
        os.kill(pid, signal.SIGSTOP)
        time.sleep(STALL_SECONDS)
        os.kill(pid, signal.SIGCONT)
        window["end"] = time.time()

    try:
        rows, *_ = run("open", STALL_RUN, STALL_RATE, during=stall, in_flight=STALL_IN_FLIGHT)
    finally:
        os.kill(pid, signal.SIGCONT)
    return stall_assessment(rows, window["start"], window["end"], counts_from)


@dataclasses.dataclass(frozen=True)
class Spec:
    version: str = knob("BAKEOFF_VERSION", "v2", "the build the generators load")
    rounds: int = knob("BAKEOFF_ROUNDS", 2, "rounds: every generator and model once each")
    seconds: int = knob("BAKEOFF_SECONDS", 20, "how long each generator loads")
    wrk: str = knob("WRK", "wrk", "wrk's binary (the floor)")




def run(platform, spec, directory):
    """The bake-off against one build of the local stack: bakeoff.json and bakeoff.md."""
    directory.mkdir(parents=True, exist_ok=True)
    stack = json.loads((LOCAL_DIR / "stack.json").read_text())["services"][f"web-api-{spec.version}"]
    url = f"{stack['url']}/{spec.version}/articles"
    candidates = Candidates(spec, url, directory)
    protocol.warm_up(spec.version, platform.build(spec.version), directory, 150)
    runs = []
    for round_ in range(1, spec.rounds + 1):
        for name, model in CANDIDATES:
            step(f"round {round_}: {name} {model}")
            result = getattr(candidates, name)(model, spec.seconds, OPEN_RATE)
            runs.append({"round": round_, **cost_row(name, model, result)})
            print(f"    {runs[-1]}", flush=True)
    stalls = {}
    for name in ("vegeta", "loadgen"):
        step(f"coordinated omission: {name}, the target stopped for {STALL_SECONDS} s")
        stalls[name] = stall_test(getattr(candidates, name), stack["pid"], COUNTS_FROM[name])
        print(f"    {stalls[name]}", flush=True)
    summary = summarize(runs)
    document = {"schema": SCHEMA, "timestamp": provenance.now(), "git_commit": provenance.git_commit(),
                "cores": os.cpu_count(), "generators": {
                    "loadgen": first_line(provenance.command_output(knobs.tool("LOADGEN"), "version")),
                    "vegeta": f"vegeta {knobs.value('VEGETA_VERSION') or '(version not given)'}",
                    "wrk": first_line(provenance.command_output(spec.wrk, "-v"))},
                "target": url, "rounds": spec.rounds, "seconds": spec.seconds, "runs": runs,
                "summary": summary, "coordinated_omission": stalls}
    (directory / "bakeoff.json").write_text(json.dumps(document, indent=2))
    (directory / "bakeoff.md").write_text(documents.markdown_table(table(document)) + "\n\n"
                                             + documents.markdown_table(stall_table(document)) + "\n")
    print((directory / "bakeoff.md").read_text())
    return directory / "bakeoff.json"


KIND = Kind("bakeoff", SCHEMA, SCHEMA, ("bakeoff.json",), document_publisher(SCHEMA, consistency, (), named=False), consistency,
            {"bakeoff": table, "bakeoff-stall": stall_table})
