"""One-off (issue 61): a latency map's ratios are the median of the repeats' own ratios, each build over v1 in the
same round, as every other ratio of the project is taken, where they were the ratio of the medians over the repeats.
Every latency map summary's "ratios" computed again from its cells; says each changed figure before and after.
Nothing measured changes.

    cd scripts && ../.tools/benchkit/bin/python -m migrations.to_round_ratios"""
import json

from benchkit.core.kinds import SUMMARIES
from benchkit.experiments.latencymap import report


def main():
    for path in sorted(SUMMARIES.glob("*.json")):
        summary = json.loads(path.read_text())
        if summary.get("design") != "latency-map":
            continue
        new = report.ratio_grid(report.as_grid(summary))
        for kind in ("throughput", "p99"):
            for version, rows in new[kind].items():
                for r, row in enumerate(rows):
                    for load, value in enumerate(row):
                        before = summary["ratios"][kind][version][r][load]
                        if before != value:
                            print(f"{path.name} {kind} {version} row {r} load {load}: {before} -> {value}")
        path.write_text(json.dumps({**summary, "ratios": new}, indent=2) + "\n")


if __name__ == "__main__":
    main()
