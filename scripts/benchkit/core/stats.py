"""Maxima, medians, ratios, percentiles and when two figures agree: the few statistics the reports share."""
import statistics

# Two figures count as equal when they agree to this share: a summary's JSON keeps every digit.
TOLERANCE = 1e-9


def median_or_none(values):
    values = [v for v in values if v is not None]
    return statistics.median(values) if values else None


def close(a, b):
    """Whether two figures agree (to TOLERANCE of the larger); None agrees with None only."""
    if a is None or b is None:
        return a is b
    return abs(a - b) <= TOLERANCE * max(1.0, abs(a), abs(b))


def differences(mine, expected, path=""):
    """The paths ("processes.web-api.node_ms") where a document's data is not what was expected: floats agreeing
    when close, the rest equal."""
    if isinstance(expected, dict) and isinstance(mine, dict) and mine.keys() == expected.keys():
        return [d for key, value in expected.items() for d in differences(mine[key], value, f"{path}.{key}".lstrip("."))]
    if isinstance(expected, list) and isinstance(mine, list) and len(mine) == len(expected):
        return [d for i, (a, b) in enumerate(zip(mine, expected)) for d in differences(a, b, f"{path}.{i}".lstrip("."))]
    agreed = close(mine, expected) if isinstance(expected, float) and not isinstance(mine, (dict, list)) else mine == expected
    return [] if agreed else [path]


def ratio(v1, v2):
    """v2 / v1 as the reports print it ("–" when either is missing or v1 is 0)."""
    return f"{v2 / v1:.2f}×" if v1 and v2 is not None else "–"


def percentile(values, p):
    """The nearest-rank percentile p (0–100) of values, or None when there are none."""
    if not values:
        return None
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(p / 100 * (len(ordered) - 1))))]
