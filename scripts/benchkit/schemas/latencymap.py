"""What a latency map's cell document means, read alike by the run that measures it and by what publishes it: the
grid its cells form, when a cell's repeats agree (and so how many rounds it gets), the ratio grid the map keeps for
the docs' figures, and the law its predictions follow (predict: from the pools and the rule the map keeps, so that
its check computes them again from the map alone)."""
import statistics

from benchkit import BASELINE
from benchkit.core.stats import median_or_none

BASE = BASELINE
# A cell's repeats agree when their complete answers/s lie within this share of their median (the median distance
# from it); the map measures a cell that does not again (latencymap.EXTRA_REPEATS).
SPREAD_LIMIT = 0.10


# A cell whose repeats do not agree (SPREAD_LIMIT) is measured again, up to EXTRA_REPEATS times more,
# and the map says which cells never agreed.
EXTRA_REPEATS = 2

def as_grid(document):
    """A map's cell document (core.cells) as the grid its tables read: {build: [a cell per round, with its row and
    load (the document's grid of each mode) and its repeat (the round), in the order measured]}, the rest of the
    document as it is."""
    cells = {}
    for cell in document["cells"]:
        row, load = document["grid"][cell["mode"]]
        cells.setdefault(cell["build"], []).extend({"row": row, "load": load, "repeat": r["round"], **r}
                                                    for r in cell["rounds"])
    return {**document, "cells": {build: sorted(found, key=lambda c: (c["repeat"], c["row"], c["load"]))
                                  for build, found in cells.items()}}


def spread(values):
    """The values' median distance from their median, over that median; None for fewer than two values or a median
    of 0."""
    middle = statistics.median(values) if len(values) > 1 else None
    return statistics.median(abs(v - middle) for v in values) / middle if middle else None


def by_repeat(data, version, row, load, figure="complete_per_s"):
    """[the version's figure over v1's in each repeat both measured] at a cell: the round's own ratio, as every ratio
    of the project is taken (the builds of a round share its machine)."""
    def figures(v):
        return {c["repeat"]: c[figure] for c in data["cells"].get(v, ()) if (c["row"], c["load"]) == (row, load)}
    mine, base = figures(version), figures(BASE)
    return [mine[r] / base[r] for r in mine if mine[r] is not None and base.get(r)]


def ratio_interval(data, version, row, load):
    """[lowest, highest] of the version's complete answers/s over v1's, repeat by repeat (the repeats both measured)."""
    found = by_repeat(data, version, row, load)
    return [round(min(found), 3), round(max(found), 3)] if found else [None, None]


def ratios(data, version, figure):
    """[[version / v1 of the figure at each load: the median of the repeats' own ratios] for each row]."""
    return [[median_or_none(by_repeat(data, version, r, l, figure)) for l in range(len(data["loads"]))]
            for r in range(len(data["rows"]))]


HEAT_MAPS = {"throughput": ("complete_per_s", "complete answers/s"),
             "p99": ("p99", "p99 of complete answers (below 1: faster)")}


def ratio_grid(data):
    """{kind: {version: [[version / v1 at each load: the median of the repeats' own ratios] for each row]}} of throughput
    and p99, rounded to 3 decimals, and
    each row's range of the throughput ratios over its loads ([lowest, highest]): what a published map keeps for the
    docs' figures (and its check computes again from the cells). A row is quoted by its range, not its best cell."""
    grid = {kind: {version: [[None if r is None else round(r, 3) for r in row]
                             for row in ratios(data, version, figure)]
                   for version in data["cells"] if version != BASE and BASE in data["cells"]}
            for kind, (figure, _) in HEAT_MAPS.items()}
    grid["throughput_range"] = {version: [[min((r for r in row if r is not None), default=None),
                                           max((r for r in row if r is not None), default=None)] for row in rows]
                                for version, rows in grid["throughput"].items()}
    grid["throughput_interval"] = {version: [[ratio_interval(data, version, r, l) for l in range(len(data["loads"]))]
                                             for r in range(len(data["rows"]))] for version in grid["throughput"]}
    return grid


def unsettled(document, size=None):
    """The modes of the cells where some build's rounds disagree (spread beyond SPREAD_LIMIT)."""
    return {c["mode"] for c in document["cells"]
            if (spread([r["complete_per_s"] for r in c["rounds"]]) or 0) > SPREAD_LIMIT}



def repeats_of(cells, rounds):
    """How many rounds a mode's cells get: RUNS, then one more while they are unsettled (the map's again, after the
    rounds so far), up to EXTRA_REPEATS more, as the runner measures them (design.measure_group)."""
    count = rounds
    while count < rounds + EXTRA_REPEATS and unsettled({"cells": [{**c, "rounds": c["rounds"][:count]} for c in cells]}):
        count += 1
    return count


def predict(sizes, bounds, row):
    """Requests/s at most by Little's law (in flight = rate × time held) for the added latency alone: each bound's
    figure (sizes: {bound's name: size} of a build; bounds: the rule), the lowest, and what it is. None at 0 ms:
    there the machine's CPU bounds, which that row measures."""
    seconds = row["ms"] / 1000
    if seconds <= 0:
        return None
    figures = {bound["name"]: round(sizes[bound["name"]] / (bound["units"] * bound["holds"] * seconds))
               for bound in bounds if bound["name"] in sizes and bound["hop"] == row["hop"]}
    lowest = min(figures, key=figures.get)
    return {"bounds": figures, "ceiling": figures[lowest], "bound_by": lowest}
