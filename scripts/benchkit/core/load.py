"""The load generator as a plug: one runner for a local loadgen process (load/), whose per-request samples
(samples.py) become the run's summary here, in the harness. The in-cluster runner (loadjobs.run_load_job) reads the
same samples out of a Job's log."""
import base64
import dataclasses
import gzip
import json
import os
import resource
import signal
import subprocess
import sys
import time

from benchkit import info
from benchkit.core import samples

# The load settings a user may pass through the environment (load/scenarios.json reads them).
SETTINGS = ("USERS", "ITERATIONS", "RATE", "DURATION", "WARMUP_ITERATIONS", "MAX_USERS", "MAX_DURATION",
            "REQUEST_TIMEOUT")
# SAMPLES_FILE=- makes loadgen print its samples into the log, gzip and base64, between these lines (load/main.go).
SAMPLES_BEGIN = "----- load samples (gzip, base64) -----"
SAMPLES_END = "----- end of load samples -----"
# What the harness records when a run crossed a threshold of load/scenarios.json (the run is kept; the report says).
THRESHOLDS_CROSSED = 99
# loadgen's exit code when the target never answered (load/main.go).
UNREACHABLE = 3
OUTCOMES = samples.OUTCOMES


def jobs():
    """[(load scenario, target)]: every load a run can send, the closed and the open model against each target of
    load/scenarios.json (web-api, and each hop alone)."""
    targets = samples.SCENARIOS["targets"]
    return [(scenario, target) for target in targets for scenario in ("closed", "open")]


def setting(scenario, key, environ=None, own=None):
    """A scenario's setting as load/scenarios.json gives it: the environment's value of the variable it names, else
    its default there (the one place of the load's defaults), or a design's own value for its phase (own)."""
    found = samples.SCENARIOS["scenarios"][scenario][key]
    if not isinstance(found, dict):
        return found
    return (os.environ if environ is None else environ).get(found["env"]) or (found["default"] if own is None else own)


@dataclasses.dataclass(frozen=True)
class Lengths:
    """A design's phases' lengths in requests per user, where its experiment needs its own (make knobs lists them
    under it): of the closed model's measured run and of the first warm-up window after each start. None: the load's
    own (load/scenarios.json, make bench's). The environment's ITERATIONS and WARMUP_ITERATIONS set them, one name
    each whatever the experiment."""
    iterations: int = None
    warmup: int = None

    def resolved(self):
        """(iterations, warm-up iterations) this run measures with."""
        return (int(setting("closed", "iterations", own=self.iterations)),
                int(setting("warmup", "iterations", own=self.warmup)))

    def described(self):
        """What make knobs shows of them: the load's where the design keeps none of its own."""
        load_s = "the load's"
        return f"{self.iterations or load_s} measured, {self.warmup or load_s} in a warm-up window"


def settings_from_environment():
    return {key: os.environ[key] for key in SETTINGS if key in os.environ}


def summarize_into(summary, found, version, scenario, target, pods=None):
    """Writes the run's summary (figures computed from its samples) to summary; pods: the generator's pods of a run
    in Kubernetes, each with its CPU and start skew. Returns 0 or THRESHOLDS_CROSSED."""
    figures = samples.summarize(found)
    crossed = samples.crossed(figures, scenario)
    summary.write_text(json.dumps({"schema": "load-summary/1", "version": version, "scenario": scenario,
                                   "target": target, "figures": figures, "thresholds_crossed": crossed,
                                   "pods": pods}, indent=2))
    return THRESHOLDS_CROSSED if crossed else 0


def run(loadgen, version, scenario, base_url, summary, settings=None, stop=None):
    """Runs one scenario of load/scenarios.json once against base_url. summary: where the run's summary goes (its
    samples beside it as .csv, the console output as .log); stop: a threading.Event that ends the run early
    (SIGINT: loadgen lets the requests in flight finish and writes its samples). Returns (0 or THRESHOLDS_CROSSED,
    the CPU seconds loadgen itself used, the run's samples)."""
    settings = {key: str(value) for key, value in (settings or {}).items()}
    found = summary.with_suffix(".csv")
    env = {**os.environ, "VERSION": version, "SCENARIO": scenario, "BASE_URL": base_url, "SAMPLES_FILE": str(found),
           **settings}
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.monotonic()
    log = summary.with_suffix(".log")
    with open(log, "w") as output:
        process = subprocess.Popen([loadgen, "run"], env=env, stdout=output, stderr=subprocess.STDOUT)
        stopped = False
        try:
            next_progress = started + 15
            while (code := process.poll()) is None:
                if stop is not None and stop.is_set() and not stopped:
                    process.send_signal(signal.SIGINT)
                    stopped = True
                if time.monotonic() >= next_progress:
                    info(f"… {version} {scenario}: {time.monotonic() - started:.0f}s")
                    next_progress += 15
                time.sleep(0.2)
        finally:
            if process.poll() is None:  # interrupted or failed: never leave the generator running
                process.terminate()
                process.wait(timeout=30)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if code != 0 or not found.exists():
        sys.exit(f"loadgen failed ({code}) for {version} {scenario}; see {log}:\n{log.read_text()[-2000:]}")
    written = samples.read(found)
    checked = summarize_into(summary, written, version, scenario, settings.get("TARGET", "web-api"))
    return checked, (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime), written


def console_tail(text, lines=2):
    """The last lines loadgen printed (its counts), indented for the progress output."""
    return "".join("    " + line for line in text.splitlines(keepends=True)[-lines:])


def samples_from_log(log):
    """The samples' CSV a Job printed between the markers, or None."""
    if SAMPLES_BEGIN not in log:
        return None
    packed = log.split(SAMPLES_BEGIN, 1)[1].split(SAMPLES_END, 1)[0]
    return gzip.decompress(base64.b64decode("".join(packed.split()))).decode()


def metrics(summary):
    """The figures of one run's summary (summarize_into wrote it)."""
    return summary["figures"]
