"""The latency-versus-load curve: each build under the open model at a ladder of arrival rates, the same
rates for every build, from a tenth of the fastest build's closed-model maximum to beyond it. Per step:
what was offered, what was answered completely, p50, p99 and dropped iterations; per build, the knee:
the highest rate it still carried (complete answers at 95 % of the rate or more, under 1 % dropped)."""

# Shares of the fastest build's closed-model complete answers/s (the 10 % to 120 %).
SHARES = (0.10, 0.25, 0.40, 0.55, 0.70, 0.85, 1.00, 1.20)
PREFIX = "curve-"
CARRIED = 0.95
DROPPED = 0.01


def ladder(fastest_rate, shares=SHARES):
    """The rates of the steps, rounded to 5 requests/s, at least 5, no two alike."""
    rates = []
    for share in shares:
        rate = max(5, int(round(fastest_rate * share / 5)) * 5)
        if rate not in rates:
            rates.append(rate)
    return rates


def label(rate):
    return f"{PREFIX}{rate}"


def rate_of(scenario):
    return int(scenario[len(PREFIX):]) if scenario.startswith(PREFIX) else None


def carried(step):
    """step: offered, complete (answers/s), dropped (iterations), requests. Whether the build kept up."""
    offered = step["offered"]
    return step["complete"] >= CARRIED * offered and step["dropped"] <= DROPPED * max(step["requests"], 1)


def knee(steps):
    """The highest offered rate below the first step the build did not carry (None if it carried none)."""
    found = None
    for step in sorted(steps, key=lambda s: s["offered"]):
        if not carried(step):
            break
        found = step["offered"]
    return found
