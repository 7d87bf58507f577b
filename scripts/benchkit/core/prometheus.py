"""What the services counted themselves, from their Prometheus text at /q/metrics."""
import urllib.request

FALLBACKS = "webapi_author_lookup_fallbacks_total"


def scrape(url):
    """A service's Prometheus text (one request per service and snapshot)."""
    return urllib.request.urlopen(f"{url}/q/metrics", timeout=10).read().decode()


def value(line):
    """A sample line's value: the number after its name and labels, before an exemplar (` # {trace_id=…} value
    timestamp`, which a traced Quarkus adds to its counts) and before a timestamp of its own."""
    sample = line.split(" # ", 1)[0]
    return float(sample[sample.rindex("}") + 1:].split()[0] if "}" in sample else sample.split()[1])


def _requests(metrics, series, method, uri, status=None):
    """One series of Quarkus' HTTP server timer (count or sum), for one method and route, summed over the other
    labels (over every status unless one is given)."""
    labels = [f'method="{method}"', f'uri="{uri}"'] + ([f'status="{status}"'] if status else [])
    return sum(value(line) for line in metrics.splitlines()
               if line.startswith(f"http_server_requests_seconds_{series}{{") and all(label in line for label in labels))


def served(metrics, method, uri):
    """How many requests a service has answered for one method and route, whatever the status."""
    return _requests(metrics, "count", method, uri)


def answered(metrics, method, uri, status):
    """(count, seconds): how many requests a service answered with one status, and the time it spent on them,
    from each request's arrival to the end of its answer."""
    return _requests(metrics, "count", method, uri, status), _requests(metrics, "sum", method, uri, status)


def counter(metrics, name, *labels):
    """A counter's value summed over its labels, or over the series that carry every label given (0 when it was
    never incremented)."""
    return sum(value(line) for line in metrics.splitlines()
               if (line.startswith(name + " ") or line.startswith(name + "{")) and all(label in line for label in labels))


def circuit_openings(metrics):
    """How often web-api's circuit breakers opened (SmallRye Fault Tolerance's metrics)."""
    return counter(metrics, "ft_circuitbreaker_opened_total")


def read_retries(metrics):
    """How often web-api tried a read again: articles' newest or an author look-up, summed (SmallRye Fault
    Tolerance's metrics)."""
    return counter(metrics, "ft_retry_retries_total")


def calls_timed_out(metrics):
    """How many of web-api's calls to articles and authors reached their time-out (SmallRye Fault Tolerance's
    metrics): what tells a slow answer from a failed connection when a read came back degraded."""
    return counter(metrics, "ft_timeout_calls_total", 'timedOut="true"')


def requests_served(metrics):
    """The requests each service of a build has served so far, and web-api's author fall-backs. Routes are tagged
    without the build's version prefix (quarkus.rest.path)."""
    return {
        "web-api": served(metrics["web-api"], "GET", "/articles"),
        "articles": served(metrics["articles"], "GET", "/articles"),
        "authors": served(metrics["authors"], "GET", "/authors"),
        "fallbacks": counter(metrics["web-api"], FALLBACKS),
    }


def pools(metrics):
    """The pools a Quarkus JVM runs, as its own metrics report them: its worker pool's threads (idle + in use), its
    event loops, and its reactive SQL pool's connections (idle + in use); a pool it does not report is None."""
    def gauge(name, *labels):
        found = [value(line) for line in metrics.splitlines()
                 if line.startswith(name + "{") and all(label in line for label in labels)]
        return round(sum(found)) if found else None

    def both(name, *labels):
        idle, active = gauge(f"{name}_idle", *labels), gauge(f"{name}_active", *labels)
        return None if idle is None or active is None else idle + active

    return {"worker_pool_size": both("worker_pool", 'pool_name="vert.x-worker-thread"'),
            "event_loop_count": gauge("netty_eventexecutor_workers", 'executor="eventLoop"'),
            "sql_pool_size": both("sql_pool")}


def sample(metrics, name):
    """An unlabelled sample's value (a gauge: process_uptime_seconds), or None where the text has none."""
    return next((value(line) for line in metrics.splitlines() if line.startswith(name + " ")), None)
