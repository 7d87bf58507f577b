"""What a sweep's document is, where the run that writes it and what publishes it both read it: the cell document
(core.cells) of design DESIGN, a cell per build and candidate (its setting and value beside its coordinates, the
settings chosen before it as its context), and per build what it shipped, what was chosen and the properties each
setting sets ("builds"); and the rule that chooses a setting's value from its candidates' rounds (the run chooses by
it; the check recomputes each choice from the cells)."""
import statistics

DESIGN, FILE = "sweep", "sweep.json"
# A candidate replaces the current value only when it answers this much more: on a shared machine
# smaller differences are noise, and the value the build ships with needs no defence.
MARGIN = 0.05


def choose(measured, current):
    """measured: {value: [complete answers/s, …]}. The value with the highest median, if it beats the
    current value's median by more than MARGIN; else the current value."""
    medians = {value: statistics.median(rates) for value, rates in measured.items() if rates}
    best = max(medians, key=medians.get)
    if current in medians and medians[best] <= medians[current] * (1 + MARGIN):
        return current
    return best


def runs_of(document, version):
    """A build's candidates' rounds as rows, in the order measured: {version, setting, property, value, repeat, context,
    its figures, and the latency observed on its hop where it was swept behind the proxy}."""
    return [{"version": version, "setting": cell["setting"], "property": cell["property"], "value": cell["value"],
             "repeat": figures["round"], "context": cell["context"],
             **{key: value for key, value in figures.items() if key != "round"},
             **({"latency_observed": cell["latency_observed"]} if "latency_observed" in cell else {})}
            for cell in document["cells"] if cell["build"] == version for figures in cell["rounds"]]


def measured_of(document, version, name):
    """{value: [complete answers/s of each repeat]} of one setting's candidates of a build (its cells), as choose
    takes them."""
    measured = {}
    for cell in document["cells"]:
        if cell["build"] == version and cell["setting"] == name:
            measured.setdefault(cell["value"], []).extend(r["complete_per_s"] for r in cell["rounds"])
    return measured
