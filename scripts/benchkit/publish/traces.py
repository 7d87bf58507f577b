"""What a traced GET /vN/articles and a traced POST show, judged: the fan-out and the outbox as traces show them, and
the summary that keeps them (schema reactive-bench/traces/1, one entry per build), checked again from its spans and
drawn (`<!-- chart NAME trace-v1 -->`, a waterfall of a read's spans). scripts/checks/check_traces.py sends the requests and
reads the traces back from Jaeger (make test's trace check); `make docs-figures PUBLISH=FILE NAME=…` publishes what it
kept.

What holds for a read: web-api's server span is the caller's child; one call to articles and one to authors per
distinct author of the answer, each a server span of its service with a database statement under it; the look-ups
overlap in time (the fan-out is parallel: at some instant at least two are in flight). For a write: the POST's trace
reaches web-api's Kafka consumer, through articles' insert and its publish (the outbox keeps the trace context).
"""
from benchkit import VERSIONS
from benchkit.publish.kinds import Kind, document_publisher

SCHEMA = "reactive-bench/traces/1"


def spans_of(trace):
    """A Jaeger trace (its API's JSON) as spans: {id, parent, service, name, kind, start_us, duration_us, db}."""
    processes = {key: process["serviceName"] for key, process in trace["processes"].items()}
    spans = []
    for span in trace["spans"]:
        tags = {tag["key"]: tag["value"] for tag in span.get("tags", [])}
        parents = [ref["spanID"] for ref in span.get("references", []) if ref.get("traceID") == span["traceID"]]
        spans.append({"id": span["spanID"], "parent": parents[0] if parents else None,
                      "service": processes[span["processID"]], "name": span["operationName"],
                      "kind": tags.get("span.kind"), "start_us": span["startTime"], "duration_us": span["duration"],
                      "db": "db.system" in tags or "db.system.name" in tags})
    return spans


def ancestors(span, by_id):
    """The spans above one, nearest first (as far as the trace holds them)."""
    found, seen = [], {span["id"]}
    while span["parent"] in by_id and span["parent"] not in seen:
        span = by_id[span["parent"]]
        seen.add(span["id"])
        found.append(span)
    return found


def peak_in_flight(spans):
    """The most of these spans open at one instant."""
    edges = sorted([(s["start_us"], 1) for s in spans] + [(s["start_us"] + s["duration_us"], -1) for s in spans],
                   key=lambda edge: (edge[0], edge[1]))
    peak = now = 0
    for _, step in edges:
        now += step
        peak = max(peak, now)
    return peak


def verdict(name, holds, found):
    return {"name": name, "holds": bool(holds), "found": found}


def servers(spans, service):
    return [s for s in spans if s["service"] == service and s["kind"] == "server"]


def with_statement(calls, spans, by_id):
    """How many of these server spans have a database statement of their own service under them."""
    return sum(any(s["db"] and s["service"] == call["service"] and call in ancestors(s, by_id) for s in spans)
               for call in calls)


def calls_verdict(name, calls, expected, spans, by_id):
    """That a service served exactly `expected` calls, each with a statement of its own under it."""
    with_statements = with_statement(calls, spans, by_id)
    return verdict(name, len(calls) == expected == with_statements,
                   {"calls": len(calls), "with statement": with_statements})


def entered(spans, version, caller_span, by_id, articles_name):
    """What a read and a write share: web-api's server span under the caller's, and its one call to articles."""
    entry = [s for s in servers(spans, f"web-api-{version}") if s["parent"] == caller_span]
    return [verdict("web-api's server span is the caller's child", len(entry) == 1, len(entry)),
            calls_verdict(articles_name, servers(spans, f"articles-{version}"), 1, spans, by_id)]


def judge_read(spans, version, caller_span, authors_expected):
    """The verdicts of a GET /vN/articles's trace."""
    by_id = {s["id"]: s for s in spans}
    authors = servers(spans, f"authors-{version}")
    look_ups = [by_id[s["parent"]] for s in authors if s["parent"] in by_id]
    peak = peak_in_flight(look_ups)
    return [
        verdict("the answer names at least two authors (a fan-out to judge)", authors_expected >= 2, authors_expected),
        *entered(spans, version, caller_span, by_id, "one call to articles, with its statement"),
        calls_verdict(f"one call to authors per distinct author ({authors_expected}), each with its statement",
                      authors, authors_expected, spans, by_id),
        verdict("the look-ups overlap in time (at least two in flight at once)",
                len(look_ups) == len(authors) and peak >= 2,
                {"web-api's calls": len(look_ups), "peak in flight": peak}),
    ]


def judge_write(spans, version, caller_span):
    """The verdicts of a POST /vN/articles's trace: through articles' insert and its publish to web-api's consumer."""
    by_id = {s["id"]: s for s in spans}
    published = [s for s in spans if s["service"] == f"articles-{version}" and s["kind"] == "producer"]
    received = [s for s in spans if s["service"] == f"web-api-{version}" and s["kind"] == "consumer"
                and any(p in ancestors(s, by_id) for p in published)]
    return [
        *entered(spans, version, caller_span, by_id, "one call to articles, with its insert"),
        verdict("articles publishes the event in the POST's trace", len(published) >= 1,
                [s["name"] for s in published]),
        verdict("web-api receives it from Kafka in the same trace", len(received) >= 1,
                [s["name"] for s in received]),
    ]


def drawn(spans):
    """The spans as a picture needs them, as Jaeger lists them: each under its parent (siblings in start order), times
    in ms from the first span's start, depth below the root."""
    if not spans:
        return []
    by_id = {s["id"]: s for s in spans}
    children = {}
    for s in sorted(spans, key=lambda s: s["start_us"]):
        children.setdefault(s["parent"] if s["parent"] in by_id else None, []).append(s)
    first = min(s["start_us"] for s in spans)
    ordered = []

    def visit(span, depth):
        ordered.append({"service": span["service"], "name": span["name"], "kind": span["kind"], "depth": depth,
                        "start_ms": (span["start_us"] - first) / 1000, "duration_ms": span["duration_us"] / 1000})
        for child in children.get(span["id"], []):
            visit(child, depth + 1)
    for root in children.get(None, []):
        visit(root, 0)
    return ordered


def judged_again(version, found):
    """A build's verdicts as its kept spans give them."""
    read, write = found["read"], found["write"]
    return {"read": judge_read(read["spans"], version, read["caller_span"], read["authors"]),
            "write": judge_write(write["spans"], version, write["caller_span"])}


def consistency(data):
    """Where a document's verdicts do not hold, or are not what its spans give ([] when none)."""
    problems = []
    for version, found in data["builds"].items():
        for request_name, verdicts in judged_again(version, found).items():
            if verdicts != found[request_name]["verdicts"]:
                problems.append(f"{version} {request_name}: its verdicts are not what its spans give")
            problems += [f"{version} {request_name}: {v['name']} does not hold" for v in verdicts if not v["holds"]]
    return problems


SERVICE_COLORS = {"web-api": "#4e79a7", "articles": "#f28e2b", "authors": "#59a14f"}


def waterfall_of(title, spans):
    """A trace as Jaeger shows it: one bar per span, its label indented by depth, coloured by service (spans =
    [{service, name, kind, depth, start_ms, duration_ms}])."""
    from benchkit.publish.charts import plt, svg  # matplotlib, only where a picture is drawn
    figure, axes = plt.subplots(figsize=(6.4, 0.22 * len(spans) + 0.9))
    for row, span in enumerate(spans):
        service = span["service"].rsplit("-", 1)[0]
        axes.barh(row, max(span["duration_ms"], 0.02), left=span["start_ms"], height=0.7,
                  color=SERVICE_COLORS.get(service, "#999999"))
        axes.text(-0.55 + 0.025 * span["depth"], row, f"{service}: {span['name']}", transform=axes.get_yaxis_transform(),
                  ha="left", va="center", fontsize=7)
    axes.set_yticks([])
    axes.set_ylim(len(spans) - 0.5, -0.5)
    axes.set_xlabel("ms since the request reached web-api")
    axes.set_title(title, loc="left", fontweight="bold")
    axes.spines[["top", "right", "left"]].set_visible(False)
    return svg(figure)


def waterfall(version):
    def chart(summary):
        found = summary["builds"][version]["read"]
        return waterfall_of(f"One GET /{version}/articles, as Jaeger recorded it", drawn(found["spans"]))
    return chart


KIND = Kind("traces", SCHEMA, SCHEMA, ("traces.json",), document_publisher(SCHEMA, consistency, ()), consistency,
            charts={f"trace-{version}": waterfall(version) for version in VERSIONS})
