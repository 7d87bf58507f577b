"""The latency-versus-load curve: each build under the open model at a ladder of arrival rates, the same
rates for every build, from a tenth of the fastest build's closed-model maximum to beyond it. Per step:
what was offered, what was answered completely, p50, p99 and dropped iterations, in each repeat of the ladder; per
build, the knee: the highest rate it still carried in every repeat (complete answers at 95 % of the rate or more,
under 1 % dropped)."""

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


def carried(offered, point):
    """point: complete (answers/s), dropped (iterations), requests of one run at the offered rate. Whether the build
    kept up."""
    return point["complete"] >= CARRIED * offered and point["dropped"] <= DROPPED * max(point["requests"], 1)


def knee(steps):
    """steps: {offered rate: [each repeat's point]}. The highest rate below the first step that some repeat did not
    carry (None if the first was not carried): one lucky repeat does not make a knee."""
    found = None
    for offered, repeats in sorted(steps.items()):
        if not repeats or not all(carried(offered, point) for point in repeats):
            break
        found = offered
    return found


POINT = ("complete", "p50", "p99", "dropped", "requests")  # what a summary keeps of each repeat of a step


def kept(steps):
    """A session's ladder as a summary keeps it, {build: {rate: [each repeat's point]}} (the rate as text, as JSON
    keys are), of a run's steps ({offered, version, repeats})."""
    found = {}
    for step in steps:
        found.setdefault(step["version"], {})[str(step["offered"])] = [
            {name: repeat[name] for name in POINT} for repeat in step["repeats"]]
    return found


def summarized(sessions):
    """{"knees": {build: knee}, "repeats": n} of one or more sessions' ladders (kept; None for a session whose steps
    were not kept): a build's knee is the lowest of its sessions' (a rate carried in every repeat of every session),
    for the builds every session has, none unless every session's steps were kept; the repeats are every session's."""
    if not sessions or None in sessions:
        return {"knees": {}, "repeats": 0}
    builds = [build for build in sessions[0] if all(build in session for session in sessions)]
    each = {build: [knee({int(rate): points for rate, points in session[build].items()}) for session in sessions]
            for build in builds}
    return {"knees": {build: None if None in knees else min(knees) for build, knees in each.items()},
            "repeats": sum(min((len(points) for ladder in session.values() for points in ladder.values()), default=0)
                           for session in sessions)}
