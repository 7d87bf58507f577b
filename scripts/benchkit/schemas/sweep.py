"""What a sweep's document is, where the run that writes it and what publishes it both read it: its schema, and the
rule that chooses a setting's value from its candidates' runs (the run chooses by it; the check recomputes each choice
from the runs the document keeps)."""
import statistics

SCHEMA = "reactive-bench/sweep/1"
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


def measured_of(runs, name):
    """{value: [complete answers/s of each repeat]} of one setting's runs, as choose takes them."""
    measured = {}
    for run in runs:
        if run["setting"] == name:
            measured.setdefault(run["value"], []).append(run["complete_per_s"])
    return measured
