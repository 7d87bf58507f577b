"""What is published of a sweep (experiments.sweep measures it): its report (sweep.md, .html), its section in a
bench's report when the demo ran with what it chose, its table in the docs and the check that each choice is what
its runs give by the rule (schemas.sweep), all read from its document."""
import json
import statistics

from benchkit import step
from benchkit.core import calibration, delays, documents
from benchkit.publish.kinds import Publishes
from benchkit.core.sizes import sized_at
from benchkit.core.tunables import LATENCY_SETTINGS, SETTINGS
from benchkit.schemas.sweep import DESIGN, FILE, MARGIN, choose, measured_of, runs_of


def rows_of(sweep, version):
    """The sweep table of one build: each candidate's median complete answers/s, p99 and failures."""
    result, runs = sweep["builds"][version], runs_of(sweep, version)
    table = [["setting", "value", "complete answers/s (each repeat)", "median", "p99 ms (median)", "failed %",
              "calibration s (each repeat)", "verdict"]]
    by_candidate = {}
    for run in runs:
        by_candidate.setdefault((run["setting"], run["value"]), []).append(run)
    speeds = {index: run["calibration_seconds"] for index, run in enumerate(runs) if "calibration_seconds" in run}
    drifted_runs = {id(runs[index]) for index in calibration.drifted(speeds)}
    settings = list(dict.fromkeys(setting for setting, _ in by_candidate))  # in the order swept
    # each setting's candidates by value, whatever order the rounds drew
    for (setting, value), runs in sorted(by_candidate.items(), key=lambda item: (
            settings.index(item[0][0]), not isinstance(item[0][1], (int, float)), item[0][1])):
        rates = [run["complete_per_s"] for run in runs]
        verdict = []
        if value == result["chosen"][setting]:
            verdict.append("chosen")
        if value == result["shipped"][setting]:
            verdict.append("shipped")
        observed = [check["added_ms"] for run in runs for check in run.get("latency_observed", ())]
        table.append([f"{setting} ({result['properties'][setting]})"
                      + (f", latency observed +{statistics.median(observed):.1f} ms" if observed else ""), str(value),
                      ", ".join(f"{rate:.0f}" for rate in rates), f"{statistics.median(rates):.0f}",
                      f"{statistics.median(run['p99'] for run in runs):.1f}",
                      f"{statistics.median(run['failed_pct'] for run in runs):.2f}",
                      ", ".join(f"{run['calibration_seconds']:.2f}" + (" (drifted)" if id(run) in drifted_runs else "")
                                for run in runs if "calibration_seconds" in run) or "–",
                      " and ".join(verdict)])
    return table


EXPLANATION = ("Each build's few concurrency settings, one at a time: every candidate runs in the same place (the "
               "local stack, or the build's pods under their CPU limits: the environment says where), "
               "after the same warm-up, in the closed model (USERS users, each sending its next request "
               "when the last one answered), the candidates in an order drawn at random (reversed in the repeat after). A setting keeps the "
               f"value the build ships with unless another answers more than {MARGIN:.0%} more complete answers per "
               "second (the median of its repeats); the next setting is swept with the values chosen before it. "
               "\"At its best\" means this: the highest throughput each build reaches on this machine by its own "
               "sizing, nothing else changed. The calibration job (the bench's measure of the machine's speed) runs "
               "right before each repeat of a setting's candidates; \"drifted\" marks a candidate measured while the "
               "machine was more than "
               f"{calibration.DRIFT_LIMIT:.0%} faster or slower than the median: weigh its figure accordingly.")


def verdict(version, result):
    """What the sweep chose, against what the build shipped with when swept and what it ships with now
    (its application.properties, the values a bench run measures)."""
    chosen = result["chosen"]
    commit = f" (swept at commit {result['commit']})" if result.get("commit") else ""
    under = f" under {delays.Setting(**result['latency']).label} per look-up" if result.get("latency") else ""
    under += f" in pods of {result['cpus']:g} CPU" if result.get("cpus") else ""
    text = f"{version}{commit}{under}: chosen {', '.join(f'{name} {value}' for name, value in chosen.items())}"
    moved = [f"{name} {result['shipped'][name]}" for name, value in chosen.items() if value != result["shipped"][name]]
    text += f", instead of {', '.join(moved)} then" if moved else ", what it shipped with then"
    sized = sized_at(version, result.get("cpus"))
    now = {s.name: s.current(version, sized) for group in (SETTINGS, LATENCY_SETTINGS) for s in group.get(version, ())
           if s.name in chosen}
    apart = [f"{result['properties'][name]}={now[name]}" for name, value in chosen.items()
             if name in now and now[name] != value]
    return text + ("; the build now ships other values: " + ", ".join(apart) + "." if apart
                   else "; the build ships these values now.")


def section(sweep):
    """The sweep as one section of another report (the bench's, when the demo is given SWEEP=<its results>)."""
    text = "\n\n".join([EXPLANATION] + [verdict(version, result) for version, result in sweep["builds"].items()])
    return ("Each build at its best", text, [(version, rows_of(sweep, version)) for version in sweep["builds"]])


def render(results, sweep):
    sections = [section(sweep)]
    environment = json.loads((results / "environment.json").read_text())
    sections.append(("Environment", "", [("", documents.key_value_rows(environment))]))
    documents.write(results, "sweep", "reactive-bench: each build at its best",
                    f"{environment.get('timestamp', '')}, commit {environment.get('git_commit', '')}", sections, {})


def write_report(path):
    """sweep.md and .html beside the document."""
    render(path.parent, json.loads(path.read_text()))
    step(f"Sweep: {path.parent / 'sweep.md'} and {path.parent / 'sweep.html'}")


def consistency(summary):
    """Where a build's choices are not what its runs give: each setting in the order it was swept, from the value
    shipped, by choose."""
    problems = []
    for version, result in summary["builds"].items():
        chosen = dict(result["shipped"])
        for name in result["properties"]:
            measured = measured_of(summary, version, name)
            if measured:
                chosen[name] = choose(measured, chosen[name])
        if chosen != result["chosen"]:
            problems.append(f"{version}: chosen {result['chosen']}, its runs give {chosen}")
    return problems


def choices_rows(summary):
    """Every build's sweep table, a column for the build in front."""
    rows = []
    for version in summary["builds"]:
        header, *body = rows_of(summary, version)
        rows = rows or [["build", *header]]
        rows += [[version, *row] for row in body]
    return rows


PUBLISHES = Publishes(run_files=(FILE,), tables={"sweep-choices": choices_rows}, consistency={DESIGN: consistency},
                      report=write_report)
