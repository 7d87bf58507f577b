"""The latency map's report (python -m benchkit latency-report RESULTS): latency-map.json rendered as
latency-map.md and .html. Heat maps of v2/v1 and v3/v1 (complete answers/s, p99 of complete answers) over the grid,
each build's cells, the hops' checks, and each build's ceiling predicted by Little's law beside the measured one."""
import json
import pathlib
import sys

from benchkit import BASELINE, NAMES
from benchkit.core import delays, documents
from benchkit.publish import charts
from benchkit.core.stats import median_or_none
from benchkit.schemas.latencymap import HEAT_MAPS, SPREAD_LIMIT, as_grid, ratio_interval, ratios, spread

BASE = BASELINE
def row_label(row):  # a row as the map keeps it: a delays.Setting as data
    return delays.Setting(**row).label


def load_label(load):
    return f"open {load['value']}/s" if load["model"] == "open" else f"closed {load['value']} users"


def medians(data):
    """{version: {(row, load): {figure: median over the repeats}}}."""
    found = {}
    for version, cells in data["cells"].items():
        grouped = {}
        for cell in cells:
            grouped.setdefault((cell["row"], cell["load"]), []).append(cell)
        found[version] = {key: {figure: median_or_none([c[figure] for c in group])
                                for figure in ("complete_per_s", "p50", "p99", "degraded", "shed", "failed", "unsent")}
                          | {"peaks": group[0]["peaks"], "peak_rss_mib": group[0]["peak_rss_mib"]}
                          for key, group in grouped.items()}
    return found


def spreads(data):
    """{version: {(row, load): how far the repeats' complete answers/s lie apart: their median distance from their
    median, over the median (one stray repeat among agreeing ones does not make a cell unsettled, and more repeats
    can settle it)}}; None where a cell has one repeat or a median of nothing."""
    found = {}
    for version, cells in data["cells"].items():
        grouped = {}
        for cell in cells:
            grouped.setdefault((cell["row"], cell["load"]), []).append(cell["complete_per_s"])
        found[version] = {key: spread(values) for key, values in grouped.items()}
    return found


def measured_ceilings(data, found, version):
    """The most complete answers/s the build gave at each row, over every load."""
    return [max((cell["complete_per_s"] for (r, _), cell in found[version].items() if r == row), default=None)
            for row in range(len(data["rows"]))]


def ratio_rows(data, version, figure="complete_per_s"):
    """The heat map in numbers: each row of the grid, each load, the version's figure over v1's (the median of the
    repeats' own ratios; of complete answers/s, the lowest and highest repeat's ratio in square brackets where they differ), and
    v1's own figure beside; beside a ratio of complete answers, either build's degraded and shed answers, if any."""
    found = medians(data)
    table = ratios(data, version, figure)
    what = {"complete_per_s": "complete answers/s; either build's degraded and shed answers beside",
            "p99": "p99 ms of complete answers"}[figure]
    rows = [[f"latency added: {version} ÷ {BASE} ({BASE}'s {what})", *(load_label(load) for load in data["loads"])]]

    def shown(index, position, value):
        low, high = ratio_interval(data, version, index, position) if figure == "complete_per_s" else (None, None)
        repeats = f" [{low:.2f}–{high:.2f}]" if low is not None and f"{low:.2f}" != f"{high:.2f}" else ""
        def missing(v):
            cell = found[v][(index, position)]
            text = ", ".join(f"{cell[kind]:,.0f} {kind}" for kind in ("degraded", "shed") if cell.get(kind))
            return f"; {v}: {text}" if text and figure == "complete_per_s" else ""
        return f"{value:.2f}×{repeats} ({found[BASE][(index, position)][figure]:,.0f}{missing(BASE)}{missing(version)})"
    for index, row in enumerate(data["rows"]):
        rows.append([row_label(row), *("–" if value is None else shown(index, position, value)
                                       for position, value in enumerate(table[index]))])
    return rows


def spread_rows(data, limit=SPREAD_LIMIT):
    """How far each cell's repeats lie apart, per build (spreads: the repeats' median distance from their median,
    over it), and how many repeats the cell had; a spread beyond the limit is marked: that cell never agreed."""
    found, counts = spreads(data), {}
    for version, cells in data["cells"].items():
        for cell in cells:
            counts.setdefault(version, {}).setdefault((cell["row"], cell["load"]), set()).add(cell["repeat"])
    rows = [["latency added: each build's spread of complete answers/s over its repeats (repeats)",
             *(load_label(load) for load in data["loads"])]]
    for index, row in enumerate(data["rows"]):
        cells = []
        for position in range(len(data["loads"])):
            parts = []
            for version in data["cells"]:
                value, repeats = found[version].get((index, position)), len(counts[version].get((index, position), ()))
                parts.append(f"{version} " + ("–" if value is None else f"{value:.1%}" + ("!" if value > limit else "")) +
                             f" ({repeats})")
            cells.append(", ".join(parts))
        rows.append([row_label(row), *cells])
    return rows


def prediction_rows(data, found):
    rows = [["build", "latency", "predicted ceiling (requests/s)", "what bounds it", "measured: most complete/s",
             "measured / predicted"]]
    latest = (data.get("revisions") or [data])[-1]  # a prediction revised after the run: the latest, and says so
    for version in data["cells"]:
        measured = measured_ceilings(data, found, version)
        machine = measured[0] if data["rows"][0]["ms"] == 0 else None
        for index, row in enumerate(data["rows"]):
            prediction, original = latest["predicted"][version][index], data["predicted"][version][index]
            if prediction is None:
                ceiling, why = machine, "the machine (measured at 0 ms)"
            elif machine is not None and machine < prediction["ceiling"]:
                ceiling, why = machine, f"the machine (measured at 0 ms; Little's law: {prediction['ceiling']}/s, " \
                                        f"{prediction['bound_by']})"
            else:
                ceiling, why = prediction["ceiling"], prediction["bound_by"]
            if prediction != original:
                why += f" (revised after the run, at {latest['commit']}: {latest['why']}; the run's own code " \
                       f"predicted {original['ceiling']}/s, {original['bound_by']})"
            rows.append([NAMES.get(version, version), row_label(row), f"{ceiling:.0f}" if ceiling else "–", why,
                         f"{measured[index]:.0f}" if measured[index] is not None else "–",
                         f"{measured[index] / ceiling:.2f}" if ceiling and measured[index] is not None else "–"])
    return rows


def cell_rows(data, found, version):
    rows = [["latency", "load", "complete/s (± repeats' spread)", "p50 / p99 ms (complete)", "degraded", "shed", "failed",
             "unsent", "peak threads (web-api, authors)", "peak connections (web-api→authors, authors→PostgreSQL)"]]
    cell_spreads = spreads(data)[version]
    for (r, l), cell in sorted(found[version].items()):
        peaks = cell["peaks"]
        apart = f" (±{cell_spreads[(r, l)]:.0%})" if cell_spreads.get((r, l)) is not None else ""
        rows.append([row_label(data["rows"][r]), load_label(data["loads"][l]), f"{cell['complete_per_s']:.0f}{apart}",
                     f"{fmt(cell['p50'])} / {fmt(cell['p99'])}", f"{cell['degraded']:.0f}", f"{cell['shed']:.0f}",
                     f"{cell['failed']:.0f}", f"{cell['unsent']:.0f}",
                     f"{fmt(peaks['web-api']['threads'], '{:.0f}')}, {fmt(peaks['authors']['threads'], '{:.0f}')}",
                     f"{fmt(peaks['web-api']['connections'], '{:.0f}')}, "
                     f"{fmt(peaks['authors']['connections'], '{:.0f}')}"])
    return rows


def fmt(value, pattern="{:.1f}"):
    return "–" if value is None else pattern.format(value)


def check_rows(data):
    rows = [["build", "latency", "repeat", "observed added ms (each proxy)", "bounds ms", "as set"]]

    def bounds(check):  # a check of floors has its bounds; one of medians (maps before them) its ± tolerance
        if "low_ms" in check:
            return f"{check['low_ms']:.2f} to {check['high_ms']:.2f}"
        return f"setting ± {check['tolerance_ms']:.2f}"

    def row(version, what, repeat, hops):
        return [NAMES.get(version, version), what, repeat, ", ".join(f"{h['added_ms']:.2f}" for h in hops),
                ", ".join(bounds(h) for h in hops), "PASS" if all(h["ok"] for h in hops) else "FAIL"]
    for version, checks in data.get("own", {}).items():
        for hop in dict.fromkeys(c["hop"] for c in checks):
            rows.append(row(version, f"{hop}: the proxy itself, nothing added", "–",
                            [c for c in checks if c["hop"] == hop]))
    for version, checks in data["checks"].items():
        for check in checks:
            rows.append(row(version, row_label(data["rows"][check["row"]]), check["repeat"], check["hops"]))
    return rows


def tuned_text(data):
    """What the builds ran with instead of what they ship with (a sweep's choice), in words."""
    tuned = {version: values for version, values in data.get("tuned", {}).items() if values}
    if not tuned:
        return " Every build as it ships (its pool sizes: the ceilings' table)."
    return (" Each build with the values its sweep under latency chose (else as it ships): "
            + "; ".join(f"{version} " + ", ".join(f"{prop}={value}" for prop, value in values.items())
                        for version, values in tuned.items()) + ".")


def proxy_rows(data):
    """What the latency proxy itself cost in the map's own cells with no latency added: its CPU per request and its
    share of the whole system's CPU, each build at each load (the cells where every request was answered: shed
    requests cost next to nothing)."""
    rows = [["build", "load (no latency added)", "requests", "the proxy's CPU ms per request", "its share of the system's CPU"]]
    zero = [index for index, row in enumerate(data["rows"]) if row["ms"] == 0]
    for version, cells in data["cells"].items():
        for cell in cells:
            cpu = cell.get("cpu_seconds") or {}
            # a run's cells count each process; a summary's, the proxy and the whole system
            system = cpu["system"] if "system" in cpu else sum(cpu.values())
            if cell["row"] in zero and cpu.get("proxy") is not None and not cell["shed"] and cell["requests"]:
                rows.append([NAMES.get(version, version), load_label(data["loads"][cell["load"]]), f"{cell['requests']:,}",
                             f"{1000 * cpu['proxy'] / cell['requests']:.3f}", f"{cpu['proxy'] / system:.0%}"])
    return rows


def sweep_rows(data):
    """The sweep under latency that chose the map's settings: each build's candidates, the complete answers/s of
    each repeat and their median, which was chosen and which ships."""
    rows = [["build", "setting", "value", "complete answers/s (each repeat)", "median", "degraded answers (each repeat)",
             "verdict"]]
    for version, result in (data.get("sweep") or {}).items():
        candidates = {}
        for run in result["runs"]:
            candidates.setdefault((run["setting"], run["value"]), []).append(run)
        for (setting, value), runs in candidates.items():
            verdict = [word for word, values in (("chosen", result["chosen"]), ("shipped", result["shipped"]))
                       if values.get(setting) == value]
            rows.append([NAMES.get(version, version), setting, str(value),
                         ", ".join(f"{run['complete_per_s']:,.0f}" for run in runs),
                         f"{median_or_none([run['complete_per_s'] for run in runs]):,.0f}",
                         ", ".join(f"{run.get('degraded', 0):,}" for run in runs), " and ".join(verdict)])
    return rows


def heat_map(data, version, kind):
    """One build's ratio to v1 over the grid, as an SVG heat map (kind: throughput or p99)."""
    figure, title = HEAT_MAPS[kind]
    return charts.ratio_heat_map(f"{version} / {BASE}: {title}", [row_label(r) for r in data["rows"]],
                                 [load_label(load) for load in data["loads"]], ratios(data, version, figure))


def render(directory):
    data = as_grid(json.loads((directory / "latency-map.json").read_text()))
    found = medians(data)
    others = [v for v in data["cells"] if v != BASE and BASE in data["cells"]]
    maps = {f"map-{version}-{kind}": heat_map(data, version, kind) for version in others for kind in HEAT_MAPS}
    sections = [
        ("The map", "Each build behind the same latency proxy, the latency of one hop at a time added (each row), "
         f"each load for {data['duration']} (each column; builds in turn). Ratios above 1 (orange) mean more "
         f"complete answers per second than {BASE}, or a higher p99. Medians over {data['rounds']} "
         "repeat(s) of the whole grid." + tuned_text(data), []),
        ("How far the repeats agree", f"Each cell's spread for each build: how far its repeats' complete answers/s lie "
         f"from their median (the median distance, over the median); a cell beyond {SPREAD_LIMIT:.0%} was repeated "
         "again, and one that stayed beyond it is marked !.", [("", spread_rows(data))]),
        ("Ceilings: Little's law against the measurement",
         "In flight = rate × time held: a pool of N held for the added latency L allows at most N / L per second "
         "(per look-up: five per request). The lowest bound is the prediction; at 0 ms, and wherever it is lower, "
         "the machine's CPU bounds instead (the most the build gave at 0 ms).", [("", prediction_rows(data, found))]),
        *([("Each build at its best under latency: the sweep", "The settings a look-up holds while it waits, swept "
            "under latency (make sweep with SWEEP_LATENCY_AUTHORS_MS), each candidate in the closed model; the map "
            "runs each build with the value chosen.", [("", sweep_rows(data))])] if data.get("sweep") else []),
        ("What the proxy itself costs", "Its CPU in the map's own cells with no latency added (every hop of the "
         "build goes through it: five look-ups and two queries per request).", [("", proxy_rows(data))]),
        ("The hops' checks", "Before each row, on every proxy of the hop: the round trip through the proxy against "
         "the direct one, interleaved; the difference of their floors (fastest round trips: a busy machine only adds) "
         "must lie within the bounds: at least the setting less its jitter, at most the setting plus the proxy's own "
         "cost, 5 % and the floors' grain measured in the same check.", [("", check_rows(data))]),
        *((f"Cells of {NAMES.get(v, v)}", "", [("", cell_rows(data, found, v))]) for v in data["cells"]),
        ("Environment", "", [("", documents.key_value_rows(data["environment"]))]),
    ]
    documents.write(directory, "latency-map", "reactive-bench: when the services wait",
                    f"{data['timestamp']}, commit {data['commit']}, {data['where']}", sections, {"The map": maps})
    return directory / "latency-map.md"


def main(argv=None):
    args = argv if argv is not None else sys.argv[1:]
    if len(args) != 1:
        sys.exit("usage: python -m benchkit latency-report RESULTS")
    print(render(pathlib.Path(args[0])))
