"""One traced GET /vN/articles and one traced POST, read back from Jaeger and judged: the fan-out and the outbox as
traces show them.

`python -m benchkit traces JAEGER WEB_API VERSION [--authors NAME,…] [--keep FILE]` (JAEGER: Jaeger's query address,
WEB_API: the build's web-api) sends both requests with a traceparent of its own, so that it knows their trace ids, reads
each trace from Jaeger's API until it is complete or a minute has passed, prints each verdict and exits 1 when one does
not hold. A fan-out needs authors: --authors first creates one article by each (the seed's five, say), so that the
newest ten name them all whatever was created before; a read that names fewer than two authors fails.
--log FILE (web-api's log) also sends one refused POST with a traceparent of its own and waits for the log line it
leaves (logged with tracing on) to carry its trace id, as an operator follows a log line to its trace.
--keep FILE adds the build's traces as judged to FILE (schema reactive-bench/traces/1, one entry per build): `make
docs-figures PUBLISH=FILE NAME=…` publishes it (checked: every verdict holds and is what its spans give again), and a doc
draws a build's read from the summary (`<!-- chart NAME trace-v1 -->`, a waterfall of its spans).

What holds for a read: web-api's server span is the caller's child; one call to articles and one to authors per
distinct author of the answer, each a server span of its service with a database statement under it; the look-ups
overlap in time (the fan-out is parallel: at some instant at least two are in flight). For a write: the POST's trace
reaches web-api's Kafka consumer, through articles' insert and its publish (the outbox keeps the trace context).
"""
import json
import pathlib
import secrets
import sys
import time
import urllib.error
import urllib.request

from benchkit import VERSIONS
from benchkit.core import provenance
from benchkit.core.kinds import Kind, document_publisher

SCHEMA = "reactive-bench/traces/1"

# Jaeger receives spans in batches (each service exports every few seconds): a trace is read again until complete.
READ_BACK_SECONDS = 60
READ_BACK_EVERY_SECONDS = 1


def traceparent():
    """A new trace of the caller's own: (trace id, span id, the W3C header), sampled."""
    trace_id, span_id = secrets.token_hex(16), secrets.token_hex(8)
    return trace_id, span_id, f"00-{trace_id}-{span_id}-01"


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


def request(url, traceparent_header, body=None):
    headers = {"traceparent": traceparent_header, "Accept": "application/json"}
    if body is not None:
        headers["Content-Type"] = "application/json"
    call = urllib.request.Request(url, data=None if body is None else json.dumps(body).encode(), headers=headers,
                                  method="GET" if body is None else "POST")
    with urllib.request.urlopen(call, timeout=30) as answer:
        return answer.status, json.loads(answer.read() or b"null")


def read_back(jaeger, trace_id, judge):
    """The trace's spans and verdicts once every verdict holds, or as they stand after READ_BACK_SECONDS."""
    deadline = time.monotonic() + READ_BACK_SECONDS
    while True:
        try:
            with urllib.request.urlopen(f"{jaeger}/api/traces/{trace_id}", timeout=10) as answer:
                spans = spans_of(json.loads(answer.read())["data"][0])
        except (OSError, KeyError, IndexError, ValueError):  # not there yet: Jaeger answers 404
            spans = []
        verdicts = judge(spans)
        if all(v["holds"] for v in verdicts) or time.monotonic() > deadline:
            return spans, verdicts
        time.sleep(READ_BACK_EVERY_SECONDS)


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


def check(jaeger, web_api, version, authors=()):
    """Both requests, traced and judged (after an article by each of these authors, so that the read fans out to them):
    {read: {trace_id, caller_span, authors, status, spans, verdicts}, write: …}."""
    url = f"{web_api.rstrip('/')}/{version}/articles"
    for author in authors:
        request(url, traceparent()[2], {"title": f"fan-out {version}", "url": "https://example.org/fan-out",
                                        "author": author})
    trace_id, span_id, header = traceparent()
    status, answer = request(url, header)
    authors = len({view["authorName"] for view in answer})
    spans, verdicts = read_back(jaeger, trace_id, lambda found: judge_read(found, version, span_id, authors))
    read = {"trace_id": trace_id, "caller_span": span_id, "authors": authors, "status": status, "spans": spans,
            "verdicts": verdicts}
    trace_id, span_id, header = traceparent()
    status, _ = request(url, header, {"title": f"traced {version} {trace_id[:8]}", "url": "https://example.org/traced",
                                      "author": "Ada Lovelace"})
    spans, verdicts = read_back(jaeger, trace_id, lambda found: judge_write(found, version, span_id))
    write = {"trace_id": trace_id, "caller_span": span_id, "status": status, "spans": spans, "verdicts": verdicts}
    return {"read": read, "write": write}


def logged(web_api, version, log, seconds=READ_BACK_SECONDS):
    """A refused POST, traced: the verdict on web-api's log line for it (the first that names its trace id)."""
    trace_id, _, header = traceparent()
    start = pathlib.Path(log).stat().st_size
    try:
        request(f"{web_api.rstrip('/')}/{version}/articles", header, {"title": "", "url": "not a url"})
    except urllib.error.HTTPError as refused:
        status = refused.code
    else:
        status = 200
    line, deadline = None, time.monotonic() + seconds
    while line is None and time.monotonic() < deadline:
        with open(log, errors="replace") as text:
            text.seek(start)
            line = next((found.strip() for found in text if f"traceId={trace_id}" in found), None)
        if line is None:
            time.sleep(READ_BACK_EVERY_SECONDS)
    return verdict("a refused request's log line carries its trace id", status == 400 and line is not None,
                   {"status": status, "trace_id": trace_id, "line": line})


def judged_again(version, found):
    """A build's verdicts as its kept spans give them."""
    read, write = found["read"], found["write"]
    return {"read": judge_read(read["spans"], version, read["caller_span"], read["authors"]),
            "write": judge_write(write["spans"], version, write["caller_span"])}


def kept(path, version, found):
    """FILE with this build's traces added (or replacing an earlier run's of the same build)."""
    path = pathlib.Path(path)
    document = json.loads(path.read_text()) if path.exists() else {"schema": SCHEMA, "builds": {}}
    document["builds"][version] = {"commit": provenance.git_commit(), **found}
    path.write_text(json.dumps(document, indent=1) + "\n")


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
    from benchkit.core.charts import plt, svg  # matplotlib, only where a picture is drawn
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


def main(args):
    options = {}
    for option in ("--keep", "--authors", "--log"):
        if option in args:
            at = args.index(option)
            options[option], args = args[at + 1], args[:at] + args[at + 2:]
    if len(args) != 3:
        sys.exit("usage: python -m benchkit traces JAEGER WEB_API VERSION [--authors NAME,…] [--keep FILE] "
                 "[--log FILE]")
    jaeger, web_api, version = args
    keep, authors = options.get("--keep"), [a for a in options.get("--authors", "").split(",") if a]
    try:
        found = check(jaeger.rstrip("/"), web_api, version, authors)
    except OSError as failed:  # web-api did not answer, or not 2xx: nothing to read back
        sys.exit(f"{version}: web-api at {web_api} did not answer as it should: {failed}")
    if keep:
        kept(keep, version, found)
    holds = True
    for request_name in ("read", "write"):
        part = found[request_name]
        print(f"{version} {request_name} (trace {part['trace_id']}, {len(part['spans'])} spans):")
        for v in part["verdicts"]:
            print(f"    {'ok  ' if v['holds'] else 'FAIL'} {v['name']}: {json.dumps(v['found'])}")
            holds &= v["holds"]
    if options.get("--log"):
        v = logged(web_api, version, options["--log"])
        print(f"{version} log:\n    {'ok  ' if v['holds'] else 'FAIL'} {v['name']}: {json.dumps(v['found'])}")
        holds &= v["holds"]
    sys.exit(0 if holds else 1)
