"""The trace check's verdicts, on traces as Jaeger's API returns them; what it keeps, published and drawn."""
import contextlib
import json

import pytest

from checks import check_traces
from benchkit.publish import traces
from benchkit.tests import standin

CALLER = "00000000000000aa"


@contextlib.contextmanager
def stand_in_web_api(answer):
    """A stand-in web-api, its address yielded: every POST is answered answer(its trace id) (a status, problem JSON
    from 400 on)."""
    class StandIn(standin.Quiet):
        def do_POST(self):
            self.rfile.read(int(self.headers["Content-Length"]))
            status = answer(self.headers["traceparent"].split("-")[1])
            self.send_response(status)
            self.send_header("Content-Type", "application/problem+json" if status >= 400 else "application/json")
            self.end_headers()
            self.wfile.write(b"{}")
    with standin.serving(StandIn) as address:
        yield address


def jaeger_trace(spans):
    """A trace of Jaeger's API from (id, parent, service, name, kind, start_ms, duration_ms, tags)."""
    services = sorted({s[2] for s in spans})
    processes = {f"p{i}": {"serviceName": name} for i, name in enumerate(services)}
    by_name = {p["serviceName"]: key for key, p in processes.items()}
    return {"processes": processes, "spans": [
        {"traceID": "t1", "spanID": id_, "operationName": name, "processID": by_name[service],
         "references": [{"refType": "CHILD_OF", "traceID": "t1", "spanID": parent}] if parent else [],
         "startTime": int(start * 1000), "duration": int(duration * 1000),
         "tags": [{"key": "span.kind", "value": kind}] + [{"key": k, "value": v} for k, v in tags.items()]}
        for id_, parent, service, name, kind, start, duration, tags in spans]}


def read_trace(version="v1", look_ups=5, parallel=True, statements=True):
    spans = [("w", CALLER, f"web-api-{version}", "GET /articles", "server", 0, 40, {}),
             ("ac", "w", f"web-api-{version}", "GET", "client", 1, 8, {}),
             ("as", "ac", f"articles-{version}", "GET /articles", "server", 2, 6, {})]
    if statements:
        spans.append(("ad", "as", f"articles-{version}", "SELECT", "client", 3, 2, {"db.system": "postgresql"}))
    for i in range(look_ups):
        start = 10 + (0 if parallel else 6 * i)
        spans += [(f"lc{i}", "w", f"web-api-{version}", "GET", "client", start, 5, {}),
                  (f"ls{i}", f"lc{i}", f"authors-{version}", "GET /authors", "server", start + 1, 3, {})]
        if statements:
            spans.append((f"ld{i}", f"ls{i}", f"authors-{version}", "SELECT", "client", start + 2, 1,
                          {"db.system.name": "postgresql"}))
    return traces.spans_of(jaeger_trace(spans))


def holding(verdicts):
    return {v["name"]: v["holds"] for v in verdicts}


def test_a_parallel_fan_out_with_its_statements_holds():
    verdicts = traces.judge_read(read_trace(), "v1", CALLER, 5)
    assert all(v["holds"] for v in verdicts), verdicts
    assert verdicts[4]["found"] == {"web-api's calls": 5, "peak in flight": 5}


def test_look_ups_one_after_the_other_are_not_a_fan_out():
    verdicts = traces.judge_read(read_trace(parallel=False), "v1", CALLER, 5)
    assert [v["holds"] for v in verdicts] == [True, True, True, True, False]
    assert verdicts[4]["found"]["peak in flight"] == 1


def test_a_missing_look_up_a_missing_statement_or_another_caller_fails():
    assert not all(holding(traces.judge_read(read_trace(look_ups=4), "v1", CALLER, 5)).values())
    assert holding(traces.judge_read(read_trace(statements=False), "v1", CALLER, 5)) == {
        "the answer names at least two authors (a fan-out to judge)": True,
        "web-api's server span is the caller's child": True, "one call to articles, with its statement": False,
        "one call to authors per distinct author (5), each with its statement": False,
        "the look-ups overlap in time (at least two in flight at once)": True}
    assert not traces.judge_read(read_trace(), "v1", "00000000000000bb", 5)[1]["holds"]
    assert not any(v["holds"] for v in traces.judge_read(read_trace(version="v2"), "v1", CALLER, 5)[1:4])
    assert not any(v["holds"] for v in traces.judge_read([], "v1", CALLER, 5)[1:])


def test_an_answer_of_one_author_is_no_fan_out_to_judge():
    # every verdict on its spans holds, one look-up of one author, and yet there is nothing parallel to see
    verdicts = traces.judge_read(read_trace(look_ups=1), "v1", CALLER, 1)
    assert [v["holds"] for v in verdicts] == [False, True, True, True, False]


def write_trace(published=True, received_from_it=True):
    spans = [("w", CALLER, "web-api-v2", "POST /articles", "server", 0, 30, {}),
             ("ac", "w", "web-api-v2", "POST", "client", 1, 20, {}),
             ("as", "ac", "articles-v2", "POST /articles", "server", 2, 15, {}),
             ("ad", "as", "articles-v2", "INSERT", "client", 3, 2, {"db.system": "postgresql"})]
    if published:
        spans.append(("p", "as", "articles-v2", "articles.created.v2 publish", "producer", 40, 3, {}))
    spans.append(("r", "p" if received_from_it else None, "web-api-v2", "articles.created.v2 receive", "consumer", 50,
                  1, {}))
    return traces.spans_of(jaeger_trace(spans))


def test_a_post_is_traced_through_kafka_to_web_api():
    assert all(v["holds"] for v in traces.judge_write(write_trace(), "v2", CALLER))
    assert [v["holds"] for v in traces.judge_write(write_trace(received_from_it=False), "v2", CALLER)] == [
        True, True, True, False]
    assert [v["holds"] for v in traces.judge_write(write_trace(published=False), "v2", CALLER)] == [
        True, True, False, False]


def test_a_picture_gets_the_spans_in_order_with_their_depth():
    drawn = traces.drawn(read_trace(look_ups=1))
    assert [(s["service"], s["depth"], s["start_ms"]) for s in drawn][:3] == [
        ("web-api-v1", 0, 0), ("web-api-v1", 1, 1), ("articles-v1", 2, 2)]


def test_a_traceparent_is_sampled_and_names_its_ids():
    trace_id, span_id, header = check_traces.traceparent()
    assert header == f"00-{trace_id}-{span_id}-01" and len(trace_id) == 32 and len(span_id) == 16


def found_of(version="v1", **read):
    spans = read_trace(version=version, **read)
    write = write_trace()
    if version != "v2":
        write = [{**s, "service": s["service"].replace("-v2", f"-{version}")} for s in write]
    return {"read": {"trace_id": "t1", "caller_span": CALLER, "authors": 5, "status": 200, "spans": spans,
                     "verdicts": traces.judge_read(spans, version, CALLER, 5)},
            "write": {"trace_id": "t2", "caller_span": CALLER, "status": 201, "spans": write,
                      "verdicts": traces.judge_write(write, version, CALLER)}}


def test_kept_traces_are_published_only_when_every_verdict_holds_and_is_what_the_spans_give(tmp_path):
    kept = tmp_path / "traces.json"
    for version in ("v1", "v2"):
        check_traces.kept(kept, version, found_of(version))
    check_traces.kept(kept, "v1", found_of("v1"))  # a build checked again replaces its entry
    summary = json.loads(traces.KIND.publish(kept, "traces-test", tmp_path / "summaries").read_text())
    assert summary["schema"] == traces.SCHEMA and sorted(summary["builds"]) == ["v1", "v2"]
    assert traces.consistency(summary) == []
    assert "authors: GET /authors" in traces.KIND.charts["trace-v1"](summary)

    edited = json.loads(kept.read_text())
    edited["builds"]["v1"]["read"]["verdicts"][4]["holds"] = False
    assert traces.consistency(edited) == ["v1 read: its verdicts are not what its spans give"]
    check_traces.kept(kept, "v1", found_of("v1", parallel=False))
    with pytest.raises(SystemExit, match="the look-ups overlap in time"):
        traces.KIND.publish(kept, "traces-test", tmp_path / "summaries")


def test_a_refused_request_s_log_line_must_name_its_trace(tmp_path):
    """logged() against a stand-in web-api that refuses every POST, writing (or not) a line with the trace id."""
    log = tmp_path / "web-api-v1.log"
    log.write_text("an earlier line traceId= spanId=\n")
    writes = {"line": True}

    def refused(trace_id):
        if writes["line"]:
            with log.open("a") as text:
                text.write(f"DEBUG traceId={trace_id} spanId=00f067aa0ba902b7 [problem] Refused with 400: …\n")
        return 400
    with stand_in_web_api(refused) as url:
        found = check_traces.logged(url, "v1", log, seconds=5)
        assert found["holds"] and found["found"]["trace_id"] in found["found"]["line"]
        writes["line"] = False  # a line without it (or none) fails, after waiting
        assert not check_traces.logged(url, "v1", log, seconds=1)["holds"]


def test_a_request_turned_away_as_unavailable_is_sent_again_with_a_trace_of_its_own():
    """served() against a stand-in web-api answering 503 twice, then 201: the third try's trace is the one returned;
    a 400 stands at once; 503s past the deadline stand too."""
    import urllib.error
    seen, answers = [], []

    def answered(trace_id):
        seen.append(trace_id)
        return answers.pop(0) if answers else 201
    with stand_in_web_api(answered) as address:
        url = f"{address}/v1/articles"
        answers[:] = [503, 504]
        trace_id, _, status, _ = check_traces.served(url, {"title": "t"}, seconds=30)
        assert status == 201 and len(seen) == 3 and len(set(seen)) == 3 and trace_id == seen[-1]
        seen.clear()
        answers[:] = [400]
        with pytest.raises(urllib.error.HTTPError, match="400"):
            check_traces.served(url, {"title": "t"}, seconds=30)
        assert len(seen) == 1
        answers[:] = [503] * 100
        with pytest.raises(urllib.error.HTTPError, match="503"):
            check_traces.served(url, {"title": "t"}, seconds=0)
