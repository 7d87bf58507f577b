#!/usr/bin/env python3
"""One traced GET /vN/articles and one traced POST, read back from Jaeger and judged (benchkit.publish.traces): make
test's trace check.

`check_traces.py JAEGER WEB_API VERSION [--authors NAME,…] [--keep FILE] [--log FILE]` (JAEGER: Jaeger's query
address, WEB_API: the build's web-api) sends both requests with a traceparent of its own, so that it knows their trace
ids, reads each trace from Jaeger's API until it is complete or a minute has passed, prints each verdict and exits 1
when one does not hold. A request answered 502/503/504 or not at all is sent again with a new trace (SERVED_WITHIN_SECONDS):
the trace judged is the first request served. A fan-out needs authors: --authors first creates one article by each (the seed's five, say),
so that the newest ten name them all whatever was created before; a read that names fewer than two authors fails.
--log FILE (web-api's log) also sends one refused POST with a traceparent of its own and waits for the log line it
leaves (logged with tracing on) to carry its trace id, as an operator follows a log line to its trace.
--keep FILE adds the build's traces as judged to FILE (schema reactive-bench/traces/1, one entry per build), which
`make docs-figures PUBLISH=FILE NAME=…` publishes.
"""
import json
import pathlib
import secrets
import sys
import time
import urllib.error
import urllib.request

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1]))  # the harness, scripts/benchkit

from benchkit.core import provenance
from benchkit.publish.traces import SCHEMA, judge_read, judge_write, spans_of, verdict

# Jaeger receives spans in batches (each service exports every few seconds): a trace is read again until complete.
READ_BACK_SECONDS = 60
READ_BACK_EVERY_SECONDS = 1
# The check follows a restart of every service, often beside other builds' start-ups: a build's first write then meets
# web-api's fault tolerance (3 s for a write, its first Kafka send included) and is answered 503. A request turned away
# as unavailable, or not answered in time, is sent again with a trace of its own, up to this long; any other answer
# stands. The trace judged is the first request served.
SERVED_WITHIN_SECONDS = 90
UNAVAILABLE = (502, 503, 504)


def traceparent():
    """A new trace of the caller's own: (trace id, span id, the W3C header), sampled."""
    trace_id, span_id = secrets.token_hex(16), secrets.token_hex(8)
    return trace_id, span_id, f"00-{trace_id}-{span_id}-01"


def request(url, traceparent_header, body=None):
    headers = {"traceparent": traceparent_header, "Accept": "application/json"}
    if body is not None:
        headers["Content-Type"] = "application/json"
    call = urllib.request.Request(url, data=None if body is None else json.dumps(body).encode(), headers=headers,
                                  method="GET" if body is None else "POST")
    with urllib.request.urlopen(call, timeout=30) as answer:
        return answer.status, json.loads(answer.read() or b"null")


def served(url, body=None, seconds=SERVED_WITHIN_SECONDS):
    """The first of one or more tries that was served: (trace id, span id, status, answer). Tries again, each with a new
    trace, while the answer is 502/503/504 or none came, up to `seconds`; saying so on stderr."""
    deadline = time.monotonic() + seconds
    while True:
        trace_id, span_id, header = traceparent()
        try:
            return (trace_id, span_id, *request(url, header, body))
        except urllib.error.HTTPError as refused:
            if refused.code not in UNAVAILABLE or time.monotonic() > deadline:
                raise
            why = f"answered {refused.code}"
        except (urllib.error.URLError, TimeoutError) as failed:  # refused connection or no answer within the timeout
            if time.monotonic() > deadline:
                raise
            why = f"not answered ({failed})"
        print(f"    {'POST' if body else 'GET'} {url} {why}: again", file=sys.stderr)
        time.sleep(READ_BACK_EVERY_SECONDS)


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


def check(jaeger, web_api, version, authors=()):
    """Both requests, traced and judged (after an article by each of these authors, so that the read fans out to them):
    {read: {trace_id, caller_span, authors, status, spans, verdicts}, write: …}."""
    url = f"{web_api.rstrip('/')}/{version}/articles"
    for author in authors:
        served(url, {"title": f"fan-out {version}", "url": "https://example.org/fan-out", "author": author})
    trace_id, span_id, status, answer = served(url)
    authors = len({view["authorName"] for view in answer})
    spans, verdicts = read_back(jaeger, trace_id, lambda found: judge_read(found, version, span_id, authors))
    read = {"trace_id": trace_id, "caller_span": span_id, "authors": authors, "status": status, "spans": spans,
            "verdicts": verdicts}
    written = {"title": f"traced {version} {secrets.token_hex(4)}", "url": "https://example.org/traced",
               "author": "Ada Lovelace"}
    trace_id, span_id, status, _ = served(url, written)
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


def kept(path, version, found):
    """FILE with this build's traces added (or replacing an earlier run's of the same build)."""
    path = pathlib.Path(path)
    document = json.loads(path.read_text()) if path.exists() else {"schema": SCHEMA, "builds": {}}
    document["builds"][version] = {"commit": provenance.git_commit(), **found}
    path.write_text(json.dumps(document, indent=1) + "\n")


def main(args):
    options = {}
    for option in ("--keep", "--authors", "--log"):
        if option in args:
            at = args.index(option)
            options[option], args = args[at + 1], args[:at] + args[at + 2:]
    if len(args) != 3:
        sys.exit("usage: check_traces.py JAEGER WEB_API VERSION [--authors NAME,…] [--keep FILE] "
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


if __name__ == "__main__":
    main(sys.argv[1:])
