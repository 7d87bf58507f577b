#!/usr/bin/env python3
"""Renders a results directory (scripts/bench.py, or the Kubernetes runs of `make bench`) into
report.md and report.html: v1 beside v2 with the v2/v1 ratio, proof that both did the same work, what
the work cost, and the environment. Python's standard library only; the HTML needs no network."""
import argparse
import html
import json
import pathlib
import statistics
import sys

VERSIONS = ("v1", "v2")
COLORS = {"v1": "#4e79a7", "v2": "#f28e2b"}
# (key, label, format, better): better is "lower" or "higher" for the ratio's reading, or None
ROWS = [
    ("requests", "requests", "{:.0f}", None),
    ("rps", "throughput (req/s)", "{:.1f}", "higher"),
    ("ok_rps", "complete answers / s", "{:.1f}", "higher"),
    ("avg", "latency avg (ms)", "{:.1f}", "lower"),
    ("p50", "latency p50 (ms)", "{:.1f}", "lower"),
    ("p90", "latency p90 (ms)", "{:.1f}", "lower"),
    ("p95", "latency p95 (ms)", "{:.1f}", "lower"),
    ("p99", "latency p99 (ms)", "{:.1f}", "lower"),
    ("max", "latency max (ms)", "{:.1f}", "lower"),
    ("error_pct", "errors (%)", "{:.2f}", "lower"),
    ("degraded", "degraded answers (k6)", "{:.0f}", "lower"),
    ("fallbacks", "author look-up fallbacks (web-api's counter)", "{:.0f}", "lower"),
    ("dropped", "dropped iterations", "{:.0f}", "lower"),
]
DOWNSTREAM = ("articles", "authors")


def summary_metrics(summary):
    metrics = summary["metrics"]

    def value(name, stat, default=0.0):
        return metrics.get(name, {}).get("values", {}).get(stat, default)

    duration = summary.get("state", {}).get("testRunDurationMs", 0) / 1000
    requests = value("http_reqs", "count")
    failed = value("http_req_failed", "rate") * requests
    degraded = value("degraded_responses", "count")
    return {
        "requests": requests, "rps": value("http_reqs", "rate"),
        "ok_rps": (requests - failed - degraded) / duration if duration else 0.0,
        "avg": value("http_req_duration", "avg"), "p50": value("http_req_duration", "med"),
        "p90": value("http_req_duration", "p(90)"), "p95": value("http_req_duration", "p(95)"),
        "p99": value("http_req_duration", "p(99)"), "max": value("http_req_duration", "max"),
        "error_pct": 100 * value("http_req_failed", "rate"), "degraded": degraded,
        "dropped": value("dropped_iterations", "count"),
        "bytes_min": value("response_bytes", "min"), "bytes_max": value("response_bytes", "max"),
        "bytes_avg": value("response_bytes", "avg"),
    }


def load(results):
    runs = []
    for cost_file in sorted((results / "runs").glob("*.cost.json")):
        cost = json.loads(cost_file.read_text())
        summary = json.loads(cost_file.with_name(cost_file.name.replace(".cost.json", ".json")).read_text())
        metrics = summary_metrics(summary)
        metrics["fallbacks"] = cost["requests_served"].get("fallbacks", 0)
        runs.append({**cost, "metrics": metrics})
    if not runs:
        sys.exit(f"no runs in {results / 'runs'}")
    return runs


def median_and_spread(values):
    """The median, and the spread of the runs as a per cent of it (0 for a single run)."""
    values = [v for v in values if v is not None]
    if not values:
        return None, 0.0
    middle = statistics.median(values)
    spread = 100 * (max(values) - min(values)) / middle if middle else 0.0
    return middle, spread


def aggregate(runs):
    """{scenario: {version: {"metrics": {key: (median, spread)}, "cost": …, "runs": n}}}"""
    table = {}
    for scenario in dict.fromkeys(run["scenario"] for run in runs):
        table[scenario] = {}
        for version in VERSIONS:
            mine = [run for run in runs if run["scenario"] == scenario and run["version"] == version]
            if not mine:
                continue
            keys = mine[0]["metrics"].keys()
            per_request = []
            for run in mine:
                served = run["requests_served"].get("web-api") or 0
                calls = {k: run["requests_served"].get(k, 0) / served if served else 0 for k in DOWNSTREAM}
                system = sum(run["cpu_seconds"].values())
                per_request.append({**calls, "cpu_ms": 1000 * system / served if served else 0, "cpu_s": system})
            table[scenario][version] = {
                "runs": len(mine),
                "metrics": {k: median_and_spread([run["metrics"][k] for run in mine]) for k in keys},
                "calls": {k: median_and_spread([p[k] for p in per_request])[0] for k in DOWNSTREAM},
                "expected_calls": mine[0]["expected_calls_per_request"],
                "cpu_ms": median_and_spread([p["cpu_ms"] for p in per_request]),
                "cpu_seconds": {k: median_and_spread([run["cpu_seconds"].get(k) for run in mine])[0]
                                for k in mine[0]["cpu_seconds"]},
                "k6_cpu_seconds": median_and_spread([run.get("k6_cpu_seconds") for run in mine])[0],
                "peak_rss_mib": {k: max((run["peak_rss_mib"].get(k) or 0) for run in mine)
                                 for k in (mine[0].get("peak_rss_mib") or {})},
                # Kubernetes: per service, each memory figure named for what it is (None: not readable here)
                "memory_mib": {service: {label: max_or_none(run["memory_mib"][service][label] for run in mine)
                                         for label in figures}
                               for service, figures in (mine[0].get("memory_mib") or {}).items()},
                "restarts": [f"{container}: {r['restarts']}x ({r['last_reason'] or 'unknown reason'})"
                             for run in mine for container, r in (run.get("restarts") or {}).items()],
            }
    return table


def max_or_none(values):
    values = [v for v in values if v is not None]
    return max(values) if values else None


def ratio(v1, v2):
    return f"{v2 / v1:.2f}×" if v1 and v2 is not None else "–"


def cell(entry, fmt):
    value, spread = entry
    if value is None:
        return "–"
    return fmt.format(value) + (f" (±{spread / 2:.0f} %)" if spread / 2 >= 0.5 else "")


def results_table(scenario, data):
    rows = [["", "v1 (imperative)", "v2 (reactive)", "v2 / v1"]]
    for key, label, fmt, _ in ROWS:
        v1 = data.get("v1", {}).get("metrics", {}).get(key, (None, 0))
        v2 = data.get("v2", {}).get("metrics", {}).get(key, (None, 0))
        rows.append([label, cell(v1, fmt), cell(v2, fmt), ratio(v1[0], v2[0])])
    return rows


def equal_work(table):
    """Rows proving (or not) that v1 and v2 did the same work; and whether all of them passed."""
    rows = [["scenario", "check", "v1", "v2", "verdict"]]
    passed = True
    for scenario, data in table.items():
        if not all(v in data for v in VERSIONS):
            continue
        m1, m2 = data["v1"]["metrics"], data["v2"]["metrics"]
        same_bytes = m1["bytes_min"][0] == m1["bytes_max"][0] == m2["bytes_min"][0] == m2["bytes_max"][0]
        rows.append([scenario, "bytes of a complete answer (min–max)",
                     f"{m1['bytes_min'][0]:.0f}–{m1['bytes_max'][0]:.0f}",
                     f"{m2['bytes_min'][0]:.0f}–{m2['bytes_max'][0]:.0f}", "PASS" if same_bytes else "FAIL"])
        passed &= same_bytes
        for service in DOWNSTREAM:
            c1, c2 = data["v1"]["calls"][service], data["v2"]["calls"][service]
            expected = data["v1"]["expected_calls"][service]
            same = round(c1, 2) == round(c2, 2) == expected == data["v2"]["expected_calls"][service]
            rows.append([scenario, f"{service} calls per web-api request (expected {expected:.0f})",
                         f"{c1:.2f}", f"{c2:.2f}", "PASS" if same else "FAIL"])
            passed &= same
    return rows, passed


def cost_rows(table):
    rows = [["scenario", "what", "v1", "v2", "v2 / v1"]]
    for scenario, data in table.items():
        if not all(v in data for v in VERSIONS):
            continue
        d1, d2 = data["v1"], data["v2"]
        rows.append([scenario, "CPU ms per web-api request, whole system", cell(d1["cpu_ms"], "{:.2f}"),
                     cell(d2["cpu_ms"], "{:.2f}"), ratio(d1["cpu_ms"][0], d2["cpu_ms"][0])])
        for process in d1["cpu_seconds"]:
            a, b = d1["cpu_seconds"][process], d2["cpu_seconds"].get(process)
            rows.append([scenario, f"CPU s, {process}", f"{a:.1f}", f"{b:.1f}", ratio(a, b)])
        if d1["k6_cpu_seconds"] is not None:  # in Kubernetes k6 has a pod and a CPU limit of its own
            rows.append([scenario, "CPU s, k6 (the load generator)", f"{d1['k6_cpu_seconds']:.1f}",
                         f"{d2['k6_cpu_seconds'] or 0:.1f}", "–"])
        for service in d1["peak_rss_mib"]:
            a, b = d1["peak_rss_mib"][service], d2["peak_rss_mib"].get(service)
            rows.append([scenario, f"peak RSS MiB, {service}", f"{a:.0f}", f"{b:.0f}", ratio(a, b)])
        for service, figures in d1["memory_mib"].items():
            for label, a in figures.items():
                b = d2["memory_mib"].get(service, {}).get(label)
                rows.append([scenario, f"MiB, {service}: {label}", mib(a), mib(b), ratio(a, b)])
        if d1["memory_mib"]:  # Kubernetes: pods can be restarted under the run
            rows.append([scenario, "pod restarts during the run (OOM kills say OOMKilled)",
                         "; ".join(d1["restarts"]) or "none", "; ".join(d2["restarts"]) or "none", "–"])
    return rows


def mib(value):
    return "not readable on this kernel" if value is None else f"{value:.0f}"


def restart_warnings(table):
    """A line per scenario and build whose pods restarted mid-run: such a run is not comparable."""
    return [f"WARNING: {version} {scenario}: pods restarted during the run ({'; '.join(data[version]['restarts'])})"
            for scenario, data in table.items() for version in data if data[version]["restarts"]]


def bar_chart(title, unit, groups):
    """A grouped bar chart as SVG: groups = [(label, {"v1": value, "v2": value})]."""
    width, height, left, bottom, top = 640, 270, 60, 40, 48
    peak = max((v or 0) for _, values in groups for v in values.values()) or 1
    slot = (width - left - 20) / max(len(groups), 1)
    bar = slot / 3
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
             f'font-family="sans-serif" font-size="12" role="img" aria-label="{html.escape(title)}">',
             f'<text x="{left}" y="18" font-size="14" font-weight="bold">{html.escape(title)} ({unit})</text>']
    for i, (label, values) in enumerate(groups):
        x = left + i * slot + bar / 2
        for j, version in enumerate(VERSIONS):
            value = values.get(version) or 0
            h = (height - bottom - top) * value / peak
            y = height - bottom - h
            parts.append(f'<rect x="{x + j * bar:.1f}" y="{y:.1f}" width="{bar - 2:.1f}" height="{h:.1f}" '
                         f'fill="{COLORS[version]}"><title>{version} {label}: {value:.1f} {unit}</title></rect>')
            parts.append(f'<text x="{x + j * bar + bar / 2 - 1:.1f}" y="{y - 3:.1f}" text-anchor="middle" '
                         f'font-size="10">{value:.0f}</text>')
        parts.append(f'<text x="{x + bar:.1f}" y="{height - bottom + 16}" text-anchor="middle">{html.escape(label)}</text>')
    parts.append(f'<line x1="{left}" y1="{height - bottom}" x2="{width - 10}" y2="{height - bottom}" stroke="#333"/>')
    for j, version in enumerate(VERSIONS):
        parts.append(f'<rect x="{width - 140 + j * 65}" y="8" width="12" height="12" fill="{COLORS[version]}"/>'
                     f'<text x="{width - 124 + j * 65}" y="18">{version}</text>')
    parts.append("</svg>")
    return "\n".join(parts)


def charts(table):
    found = {}
    for scenario, data in table.items():
        found[f"latency-{scenario}"] = bar_chart(
            f"{scenario}: latency percentiles", "ms",
            [(p, {v: data[v]["metrics"][p][0] for v in data}) for p in ("p50", "p90", "p95", "p99")])
    found["throughput"] = bar_chart("Throughput", "req/s",
                                    [(s, {v: d[v]["metrics"]["rps"][0] for v in d}) for s, d in table.items()])
    return found


READING = """How to read it: *closed* is the original study's model (100 virtual users, each sending its
next request when the last one answered): throughput is what each build sustains, latency is what a
saturated system answers with. *open* sends requests at a fixed rate whatever the answers do, so slow
answers cannot hide queueing (coordinated omission): compare latency at the same load, and any dropped
iterations. A v2/v1 ratio above 1 means v2 has more of it. "Complete answers / s" leaves out errors and
degraded answers (an author look-up fell back to nulls). Every measured run was preceded by the same
warm-up; with RUNS > 1 each figure is the median, ± half the spread between runs."""


COST_LOCAL = ("CPU used by each process during the run (from /proc), and the most memory each service held "
              "(peak RSS, reset before each run). The whole system is the build's three services, PostgreSQL and "
              "Kafka; k6 is shown apart.")
COST_KUBERNETES = ("CPU used by each container during the run, from its own cgroup (cpu.stat or cpuacct.usage); "
                   "memory from the same cgroup, each figure named for what it is: the cgroup's peak counts page "
                   "cache and runs from the container's start (a container cannot reset it), the anonymous memory "
                   "is the JVM's own at the end of the run. The whole system is the build's three pods, "
                   "PostgreSQL and Kafka; k6 runs in its own pod with its own CPU limit. Restarts are counted "
                   "from the pods' status; a run with one is flagged above the results.")


def markdown_table(rows):
    lines = ["| " + " | ".join(rows[0]) + " |", "|" + "---|" * len(rows[0])]
    lines += ["| " + " | ".join(str(c) for c in row) + " |" for row in rows[1:]]
    return "\n".join(lines)


def html_table(rows):
    head = "".join(f"<th>{html.escape(c)}</th>" for c in rows[0])
    body = "".join("<tr>" + "".join(
        f'<td class="{"fail" if c == "FAIL" else "pass" if c == "PASS" else ""}">{html.escape(str(c))}</td>'
        for c in row) + "</tr>" for row in rows[1:])
    return f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"


def environment_rows(environment):
    rows = [["what", "value"]]
    for key, value in environment.items():
        if key == "builds":
            for build, settings in value.items():
                rows.append([f"settings of {build}", "; ".join(settings) or "Quarkus defaults"])
        else:
            rows.append([key, json.dumps(value) if isinstance(value, (dict, list)) else str(value)])
    return rows


def render(results):
    runs = load(results)
    environment = json.loads((results / "environment.json").read_text())
    table = aggregate(runs)
    work_rows, work_passed = equal_work(table)
    svgs = charts(table)

    verdict = "PASS: v1 and v2 did the same work" if work_passed else "FAIL: v1 and v2 did NOT do the same work"
    warnings = restart_warnings(table)
    reading = "\n\n".join(warnings + [READING])
    sections = [("Results", reading, [(f"Scenario: {s}", results_table(s, d)) for s, d in table.items()]),
                ("Equal work", verdict, [("", work_rows)]),
                ("Cost", COST_KUBERNETES if any(r.get("memory_mib") for r in runs) else COST_LOCAL,
                 [("", cost_rows(table))]),
                ("Environment", f"Measured on: {environment.get('where', '')}.", [("", environment_rows(environment))])]

    title = "reactive-bench: v1 (imperative) vs v2 (reactive)"
    subtitle = f"{environment.get('timestamp', '')}, commit {environment.get('git_commit', '')}"
    write_documents(results, "report", title, subtitle, sections, {"Results": svgs})
    return work_passed


def write_documents(directory, stem, title, subtitle, sections, charts_after):
    """Writes <stem>.md and a self-contained <stem>.html: sections = [(heading, text, [(sub, rows)])];
    charts_after = {heading: {name: svg}} puts those charts (also written as <name>.svg) after that section."""
    for svgs in charts_after.values():
        for name, svg in svgs.items():
            (directory / f"{name}.svg").write_text(svg)
    md = [f"# {title}", "", subtitle, ""]
    for heading, text, tables in sections:
        md += [f"## {heading}", "", text, ""]
        for sub, rows in tables:
            md += ([f"### {sub}", ""] if sub else []) + [markdown_table(rows), ""]
        md += [f"![{name}]({name}.svg)" for name in charts_after.get(heading, {})] + [""]
    (directory / f"{stem}.md").write_text("\n".join(md))

    body = [f"<h1>{html.escape(title)}</h1>", f"<p>{html.escape(subtitle)}</p>"]
    for heading, text, tables in sections:
        body += [f"<h2>{html.escape(heading)}</h2>", f"<p>{html.escape(text)}</p>"]
        for sub, rows in tables:
            body += ([f"<h3>{html.escape(sub)}</h3>"] if sub else []) + [html_table(rows)]
        body += [f'<div class="chart">{svg}</div>' for svg in charts_after.get(heading, {}).values()]
    style = ("body{font-family:sans-serif;max-width:960px;margin:2em auto;color:#222}"
             "table{border-collapse:collapse;margin:1em 0}td,th{border:1px solid #ccc;padding:4px 8px;text-align:right}"
             "td:first-child,th:first-child{text-align:left}.pass{color:#1a7f37;font-weight:bold}"
             ".fail{color:#cf222e;font-weight:bold}.chart{margin:1em 0}")
    (directory / f"{stem}.html").write_text(
        f'<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>{html.escape(title)}</title>'
        f"<style>{style}</style></head><body>{''.join(body)}</body></html>\n")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("results", type=pathlib.Path)
    args = parser.parse_args()
    passed = render(args.results)
    print(f"Report: {args.results / 'report.md'} and {args.results / 'report.html'}")
    if not passed:
        sys.exit("Equal work check FAILED: see the report's 'Equal work' section")


if __name__ == "__main__":
    main()
