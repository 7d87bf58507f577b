"""The reports' charts, drawn with matplotlib (pinned in scripts/benchkit/requirements.txt) as SVG text
that the HTML report inlines."""
import io

import matplotlib

matplotlib.use("Agg")  # no display: files only
import matplotlib.pyplot as plt  # noqa: E402

matplotlib.rcParams.update({"svg.hashsalt": "reactive-bench", "svg.fonttype": "none", "font.size": 9})
BUILD_COLORS = {"v1": "#4e79a7", "v2": "#f28e2b", "v3": "#59a14f"}
OUTCOME_COLORS = {"complete": "#59a14f", "degraded": "#edc948", "shed": "#76b7b2", "unavailable": "#f28e2b",
                  "error": "#e15759", "rejected": "#b07aa1", "failed": "#333333"}


def svg(figure):
    buffer = io.StringIO()
    figure.savefig(buffer, format="svg", bbox_inches="tight", metadata={"Date": None})
    plt.close(figure)
    return buffer.getvalue()


def grouped_bars(title, unit, groups):
    """groups = [(label, {build: value})]: one group of bars per label, one bar per build, values on top."""
    builds = list(dict.fromkeys(build for _, values in groups for build in values))
    figure, axes = plt.subplots(figsize=(6.4, 2.8))
    width = 0.8 / max(len(builds), 1)
    for index, build in enumerate(builds):
        xs = [i + (index - (len(builds) - 1) / 2) * width for i in range(len(groups))]
        values = [values.get(build) or 0 for _, values in groups]
        bars = axes.bar(xs, values, width * 0.95, label=build, color=BUILD_COLORS.get(build))
        axes.bar_label(bars, fmt="%.0f", fontsize=7)
    axes.set_xticks(range(len(groups)), [label for label, _ in groups])
    axes.set_ylabel(unit)
    axes.set_title(title, loc="left", fontweight="bold")
    axes.spines[["top", "right"]].set_visible(False)
    axes.legend(frameon=False)
    return svg(figure)


def outcome_timeline(title, per_second, fault_from, fault_to, outcomes):
    """Stacked bars of request outcomes per second, the fault's window shaded."""
    figure, axes = plt.subplots(figsize=(6.4, 2.2))
    seconds = range(len(per_second))
    bottom = [0] * len(per_second)
    axes.axvspan(fault_from, fault_to, color="#eeeeee", zorder=0, label="fault")
    for outcome in outcomes:
        counts = [second[outcome] for second in per_second]
        if any(counts):
            axes.bar(seconds, counts, 1.0, bottom=bottom, color=OUTCOME_COLORS[outcome], label=outcome, align="edge")
            bottom = [b + c for b, c in zip(bottom, counts)]
    axes.set_xlabel("seconds since the start")
    axes.set_ylabel("requests / s")
    axes.set_title(title, loc="left", fontweight="bold")
    axes.spines[["top", "right"]].set_visible(False)
    axes.legend(frameon=False, ncol=4, fontsize=7, loc="upper right")
    return svg(figure)


def latency_curve(title, series, knees):
    """Latency (log axis) against the complete answers per second achieved, one colour per build: p50 as a
    solid line, p99 dashed, each build's knee ringed. series = {build: [(achieved, p50, p99)]}."""
    figure, axes = plt.subplots(figsize=(6.4, 3.4))
    for build, points in series.items():
        points = sorted(points)
        color = BUILD_COLORS.get(build)
        axes.plot([p[0] for p in points], [p[1] for p in points], "o-", color=color, label=f"{build} p50", markersize=3)
        axes.plot([p[0] for p in points], [p[2] for p in points], "s--", color=color, label=f"{build} p99", markersize=3)
        knee = knees.get(build)
        if knee is not None:
            axes.plot([knee[0]], [knee[1]], "o", markersize=11, markerfacecolor="none", markeredgecolor=color)
            axes.annotate(f"{build} knee", knee, textcoords="offset points", xytext=(6, 8), fontsize=7, color=color)
    axes.set_yscale("log")
    axes.set_xlabel("complete answers per second (achieved)")
    axes.set_ylabel("latency, ms (log)")
    axes.set_title(title, loc="left", fontweight="bold")
    axes.spines[["top", "right"]].set_visible(False)
    axes.grid(True, which="major", axis="y", color="#eeeeee")
    axes.legend(frameon=False, fontsize=7, ncol=2)
    return svg(figure)


def ratio_heat_map(title, row_labels, column_labels, values):
    """values[row][column]: a ratio (None where not measured), drawn on a log scale centred on 1 (blue below,
    orange above), each cell labelled with its ratio."""
    import math
    from matplotlib.colors import TwoSlopeNorm
    figure, axes = plt.subplots(figsize=(1.1 * len(column_labels) + 2, 0.45 * len(row_labels) + 1.2))
    logs = [[math.log2(v) if v else float("nan") for v in row] for row in values]
    extent = max([abs(v) for row in logs for v in row if v == v] + [0.5])
    image = axes.imshow(logs, cmap="PuOr_r", norm=TwoSlopeNorm(0, -extent, extent), aspect="auto")
    for r, row in enumerate(values):
        for c, value in enumerate(row):
            axes.text(c, r, "–" if value is None else f"{value:.2f}×", ha="center", va="center", fontsize=8)
    axes.set_xticks(range(len(column_labels)), column_labels)
    axes.set_yticks(range(len(row_labels)), row_labels)
    axes.set_title(title, loc="left", fontweight="bold")
    colorbar = figure.colorbar(image, ax=axes, fraction=0.04)
    colorbar.set_ticks([t for t in (-2, -1, 0, 1, 2) if abs(t) <= extent])
    colorbar.set_ticklabels([f"{2 ** t:g}×" for t in (-2, -1, 0, 1, 2) if abs(t) <= extent])
    return svg(figure)
