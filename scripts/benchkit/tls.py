"""What TLS to PostgreSQL costs (python -m benchkit tls): in the cluster every connection to PostgreSQL is TLS (Spilo
rejects any other), on the local stack none is. Measured apart, on the local stack, where PostgreSQL offers TLS too:
each build's data services (articles, authors) restarted with sslmode=disable and with sslmode=require in turn, the
same warm-up, the closed model, the two modes' order turned round between rounds. Writes tls.json, tls.md, tls.html:
per build and mode, complete answers/s and CPU per web-api request (whole system, PostgreSQL), and require / disable.
The build is left as it ships (disable), whatever happened."""
import argparse
import datetime
import json
import os
import pathlib
import statistics

from . import ROOT, VERSIONS, documents, info, platforms, results, step
from .bench import BACKGROUND_SECONDS, background, measure, order, warm_up
from .sweep import DATA, Setting, environments

MODES = ("disable", "require")
# Both clients' settings, for every build alike (a build has one kind of datasource; the other setting is unused).
TLS = (Setting("TLS, JDBC", "quarkus.datasource.jdbc.additional-jdbc-properties.sslmode", DATA, MODES, "disable"),
       Setting("TLS, reactive", "quarkus.datasource.reactive.postgresql.ssl-mode", DATA, MODES, "disable"),
       # the self-signed certificate of the local PostgreSQL, as trust-all trusts Spilo's in the cluster
       Setting("TLS, trust", "quarkus.datasource.reactive.trust-all", DATA, ("true",), "true"))


def chosen(mode):
    return {"TLS, JDBC": mode, "TLS, reactive": mode, "TLS, trust": "true"}


def cpu_ms_per_request(cost, processes=None):
    served = cost["requests_served"]["web-api"]
    seconds = sum(v for k, v in cost["cpu_seconds"].items() if processes is None or k in processes)
    return 1000 * seconds / served if served else None


def measure_build(version, platform, runs_dir, rounds, iterations, warmup):
    found = {mode: [] for mode in MODES}
    try:
        for run in range(1, rounds + 1):
            for mode in order(MODES, run):
                step(f"{version}: TLS to PostgreSQL {mode}, round {run}/{rounds}")
                build = platform.reconfigure(version, environments(TLS, chosen(mode)))
                warm_up(version, build, runs_dir, warmup)
                # the build's processes with no load, right after its warm-up, to take off its run's CPU
                idle = background({version: build}, BACKGROUND_SECONDS)[version]
                speed = platform.calibrate()
                figures = measure(build, "closed", runs_dir, run, {"ITERATIONS": str(iterations)}, label=f"tls-{mode}")
                cost = json.loads((runs_dir / f"{version}-tls-{mode}-{run}.cost.json").read_text())
                working = results.system_without_background({**cost, "background_cpu_per_s": idle})
                found[mode].append({"complete_per_s": figures["ok_rps"], "p50": figures["p50"],
                                    "cpu_ms": cpu_ms_per_request(cost),
                                    "cpu_ms_per_complete": 1000 * sum(cost["cpu_seconds"].values()) / figures["complete"]
                                    if figures["complete"] else None,
                                    "cpu_ms_per_complete_background_off": 1000 * working / figures["complete"]
                                    if figures["complete"] else None,
                                    "background_cpu_per_s": idle,
                                    "postgres_cpu_ms": cpu_ms_per_request(cost, ("postgres",)),
                                    "data_services_cpu_ms": cpu_ms_per_request(cost, DATA),
                                    "calibration_seconds": speed})
    finally:
        platform.restore(version)
    return found


FIGURES = (("complete_per_s", "complete answers/s", "{:.0f}"), ("p50", "latency p50 ms", "{:.1f}"),
           ("cpu_ms", "CPU ms per request, whole system", "{:.3f}"),
           ("data_services_cpu_ms", "CPU ms per request, articles + authors", "{:.3f}"),
           ("postgres_cpu_ms", "CPU ms per request, PostgreSQL", "{:.3f}"))


def rows(measured):
    table = [["build", "figure", *(f"sslmode={mode} (each round)" for mode in MODES), "require / disable (medians)"]]
    for version, found in measured.items():
        for key, label, fmt in FIGURES:
            medians = {mode: statistics.median(r[key] for r in found[mode]) for mode in MODES}
            table.append([version, label, *(", ".join(fmt.format(r[key]) for r in found[mode]) for mode in MODES),
                          f"{medians['require'] / medians['disable']:.2f}×" if medians["disable"] else "–"])
    return table


EXPLANATION = ("TLS to PostgreSQL is required in the cluster (the operator's Spilo rejects any other connection) and "
               "absent on the local stack, so in-cluster figures carry a cost the local ones do not. Measured here "
               "alone: on the local stack, whose PostgreSQL offers TLS, each build's articles and authors restarted "
               "with sslmode=disable and sslmode=require in turn (JDBC and the reactive client alike), the same "
               "warm-up, the closed model, the modes' order turned round between rounds. A ratio above 1 is what TLS "
               "adds (CPU) or takes (answers/s); the pools keep their connections, so the handshake is paid once per "
               "connection and the rest is encryption of every query and row.")


def main(argv=None):
    parser = argparse.ArgumentParser(prog="benchkit tls", description=__doc__.splitlines()[0])
    parser.add_argument("--results", type=pathlib.Path,
                        default=ROOT / "results" / ("tls-" + datetime.datetime.now().strftime("%Y%m%dT%H%M%S")))
    parser.add_argument("--versions", default=",".join(VERSIONS))
    parser.add_argument("--rounds", type=int, default=int(os.environ.get("RUNS", "3")))
    parser.add_argument("--iterations", type=int, default=int(os.environ.get("ITERATIONS", "150")),
                        help="measured requests per virtual user")
    parser.add_argument("--warmup", type=int, default=int(os.environ.get("WARMUP_ITERATIONS", "300")),
                        help="warm-up requests per virtual user after each restart")
    parser.add_argument("--loadgen", default=os.environ.get("LOADGEN", "loadgen"))
    args = parser.parse_args(argv)

    # The local stack only: there TLS can be had or not (in the cluster Spilo requires it).
    platform = platforms.select(None, args.loadgen, args.versions.split(","))
    runs_dir = args.results / "runs"
    runs_dir.mkdir(parents=True, exist_ok=True)
    environment = platform.environment("local stack (one machine, loopback)", args.rounds, True)
    measured = {}
    for version in args.versions.split(","):
        measured[version] = measure_build(version, platform, runs_dir, args.rounds, args.iterations, args.warmup)
        (args.results / "tls.json").write_text(json.dumps({"environment": environment, "builds": measured}, indent=2))
    documents.write(args.results, "tls", "reactive-bench: what TLS to PostgreSQL costs",
                    f"{environment['timestamp']}, commit {environment['git_commit']}",
                    [("TLS to PostgreSQL, with and without", EXPLANATION, [("", rows(measured))]),
                     ("Environment", "", [("", documents.key_value_rows(environment))])], {})
    info(f"TLS: {args.results / 'tls.md'} and {args.results / 'tls.html'}")
