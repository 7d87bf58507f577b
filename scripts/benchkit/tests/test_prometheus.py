from benchkit.core import prometheus

METRICS = """# TYPE http_server_requests_seconds_count counter
http_server_requests_seconds_count{method="GET",outcome="SUCCESS",status="200",uri="/articles"} 40.0
http_server_requests_seconds_count{method="GET",outcome="SERVER_ERROR",status="503",uri="/articles"} 2.0
http_server_requests_seconds_count{method="POST",outcome="SUCCESS",status="201",uri="/articles"} 7.0
http_server_requests_seconds_count{method="GET",outcome="SUCCESS",status="200",uri="/articles/stream"} 5.0
http_server_requests_seconds_count{method="GET",outcome="SUCCESS",status="200",uri="/authors"} 9.0
http_server_requests_seconds_sum{method="GET",outcome="SUCCESS",status="200",uri="/articles"} 6.0
http_server_requests_seconds_sum{method="GET",outcome="SERVER_ERROR",status="503",uri="/articles"} 0.5
http_server_requests_seconds_sum{method="GET",outcome="SUCCESS",status="200",uri="/articles/stream"} 300.0
webapi_author_lookup_fallbacks_total{author="x"} 3.0
webapi_author_lookup_fallbacks_total{author="y"} 1.0
ft_circuitbreaker_opened_total{method="a"} 2.0
"""


def test_served_counts_every_status_of_one_route_and_method():
    assert prometheus.served(METRICS, "GET", "/articles") == 42.0
    assert prometheus.served(METRICS, "POST", "/articles") == 7.0
    assert prometheus.served(METRICS, "GET", "/v2/articles") == 0.0


def test_requests_served_reads_the_routes_without_the_version_prefix():
    # quarkus.rest.path puts /vN before every route, and Micrometer tags the route without it
    served = prometheus.requests_served({"web-api": METRICS, "articles": METRICS, "authors": METRICS})
    assert served == {"web-api": 42.0, "articles": 42.0, "authors": 9.0, "fallbacks": 4.0}


def test_counters_sum_their_labels():
    assert prometheus.counter(METRICS, prometheus.FALLBACKS) == 4.0
    assert prometheus.circuit_openings(METRICS) == 2.0
    assert prometheus.counter(METRICS, "absent_total") == 0


def test_answered_is_the_count_and_time_of_one_status_of_one_route():
    assert prometheus.answered(METRICS, "GET", "/articles", "200") == (40.0, 6.0)
    assert prometheus.answered(METRICS, "GET", "/articles", "503") == (2.0, 0.5)
    assert prometheus.answered(METRICS, "GET", "/articles", "500") == (0.0, 0.0)


def test_calls_timed_out_counts_only_the_calls_that_reached_their_time_out():
    metrics = ('ft_timeout_calls_total{method="a.AuthorsClient.findByName",timedOut="true"} 10.0\n'
               'ft_timeout_calls_total{method="a.AuthorsClient.findByName",timedOut="false"} 900.0\n'
               'ft_timeout_calls_total{method="a.ArticlesClient.findNewest",timedOut="true"} 4.0\n'
               'ft_timeouts_other_total 7.0\n')
    assert prometheus.calls_timed_out(metrics) == 14


# A traced Quarkus (TRACING=on) adds an exemplar to each count: the trace of one request it counted, with that
# exemplar's own value and timestamp after the sample's. Read as the last number, 42 requests became a timestamp.
TRACED = """http_server_requests_seconds_count{method="GET",outcome="SUCCESS",status="200",uri="/articles"} 42.0 # {span_id="633e277054aa7cd2",trace_id="2d6d9228e21edc1313cfbf11449230e7"} 1.0 1795869973.219
http_server_requests_seconds_sum{method="GET",outcome="SUCCESS",status="200",uri="/articles"} 1.061290811
process_uptime_seconds 12.5 1795869973219
"""


def test_a_traced_services_counts_are_read_before_their_exemplars():
    assert prometheus.served(TRACED, "GET", "/articles") == 42.0
    assert prometheus.answered(TRACED, "GET", "/articles", "200") == (42.0, 1.061290811)
    assert prometheus.counter(TRACED, "process_uptime_seconds") == 12.5  # a sample with a timestamp of its own
