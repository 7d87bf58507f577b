"""The equal-work check: did two builds do the same work for what they answered?

Judged on complete answers, whatever else a run had. A complete answer (every author's details present)
must have cost one articles call and one authors call per distinct author it shows; a degraded answer
(a look-up fell back) or a failed one may have cost less, never more. So for a run's totals, with A the
articles calls and U the authors calls the services themselves counted, and E the distinct authors of
an answer:

    complete + degraded  <=  A  <=  requests        (every answered request read articles once, none twice)
    E × complete         <=  U  <=  E × A           (no look-up skipped or cached, none repeated)

With nothing degraded or failed both collapse to A = requests and U = E × requests. And every complete
answer of both builds has the same size in bytes.
"""

EXPLANATION = ("Judged on complete answers: each must have cost one articles call and one authors call per "
               "distinct author it shows, as the services themselves counted. Degraded answers (a look-up fell "
               "back) and failed ones may have cost less, never more, so the allowed range runs from the complete "
               "answers' own calls to those of every request that reached web-api; with nothing degraded or "
               "failed it is a single value. Every complete answer of every build has the same size.")

# Counters are scraped right after the load generator ends: allow a call or two still in flight, never a real difference.
TOLERANCE_CALLS = 2
TOLERANCE_SHARE = 0.002


def within(value, low, high):
    slack = max(TOLERANCE_CALLS, TOLERANCE_SHARE * high)
    return low - slack <= value <= high + slack


def calls_check(totals):
    """totals: requests, complete, degraded, articles, authors, expected_authors (one build's run or runs).
    Returns {service: (calls per complete answer, allowed low, allowed high, passed)}."""
    complete = totals["complete"]
    if not complete:
        return {service: (None, None, None, False) for service in ("articles", "authors")}
    answered = complete + totals["degraded"]
    articles, authors, each = totals["articles"], totals["authors"], totals["expected_authors"]
    bounds = {"articles": (articles, answered, totals["requests"]),
              "authors": (authors, each * complete, each * articles)}
    return {service: (calls / complete, low / complete, high / complete, within(calls, low, high))
            for service, (calls, low, high) in bounds.items()}


def same_bytes(by_build, one_size=True):
    """by_build: {build: (min bytes, max bytes)} of complete answers: the same range for every build, and
    one size (web-api's answer; a hop alone over several authors has a size per author)."""
    ranges = set(by_build.values())
    sizes = {size for low_high in ranges for size in low_high}
    return len(ranges) == 1 and 0 not in sizes and (len(sizes) == 1 or not one_size)


def rows(table):
    """The report's equal-work rows for {scenario: {build: totals + bytes_min, bytes_max}}, and whether
    every check passed."""
    builds = list(dict.fromkeys(build for data in table.values() for build in data))
    found = [["scenario", "check", *builds, "verdict"]]
    passed = True
    for scenario, builds in table.items():
        if len(builds) < 2:
            continue
        sizes = {build: (totals["bytes_min"], totals["bytes_max"]) for build, totals in builds.items()}
        hop = next(iter(builds.values())).get("target", "web-api") != "web-api"
        ok = same_bytes(sizes, one_size=not hop)
        found.append([scenario, "bytes of a complete answer (min–max)",
                      *[f"{low:.0f}–{high:.0f}" for low, high in sizes.values()], verdict(ok)])
        passed &= ok
        found.append([scenario, "answers: complete / degraded / failed (shed)",
                      *[f"{t['complete']:.0f} / {t['degraded']:.0f} / {t['failed']:.0f} ({t.get('shed', 0):.0f})"
                        for t in builds.values()], "–"])
        if hop:
            continue  # a hop alone makes no downstream calls: its bytes are the check
        checks = {build: calls_check(totals) for build, totals in builds.items()}
        expected = {totals["expected_authors"] for totals in builds.values()}
        for service, label in (("articles", "articles calls per complete answer (allowed)"),
                               ("authors", f"authors calls per complete answer (allowed; "
                                           f"{'/'.join(f'{e:.0f}' for e in sorted(expected))} authors each)")):
            cells, ok = [], len(expected) == 1
            for build in builds:
                value, low, high, good = checks[build][service]
                cells.append("no complete answer" if value is None else f"{value:.2f} ({low:.2f}–{high:.2f})")
                ok &= good
            found.append([scenario, label, *cells, verdict(ok)])
            passed &= ok
    return found, passed


def verdict(ok):
    return "PASS" if ok else "FAIL"
