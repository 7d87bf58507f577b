"""Maxima, ratios and percentiles: the few statistics the reports share."""


def max_or_none(values):
    values = [v for v in values if v is not None]
    return max(values) if values else None


def ratio(v1, v2):
    """v2 / v1 as the reports print it ("–" when either is missing or v1 is 0)."""
    return f"{v2 / v1:.2f}×" if v1 and v2 is not None else "–"


def percentile(values, p):
    """The nearest-rank percentile p (0–100) of values, or None when there are none."""
    if not values:
        return None
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(p / 100 * (len(ordered) - 1))))]
