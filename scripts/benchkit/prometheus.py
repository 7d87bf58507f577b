"""What the services counted themselves, from their Prometheus text at /q/metrics."""
import urllib.request

FALLBACKS = "webapi_author_lookup_fallbacks_total"


def scrape(url):
    """A service's Prometheus text (one request per service and snapshot)."""
    return urllib.request.urlopen(f"{url}/q/metrics", timeout=10).read().decode()


def served(metrics, method, uri):
    """How many requests a service has answered for one method and route, whatever the status."""
    total = 0.0
    for line in metrics.splitlines():
        if line.startswith("http_server_requests_seconds_count{") and f'uri="{uri}"' in line \
                and f'method="{method}"' in line:
            total += float(line.rsplit(" ", 1)[1])
    return total


def counter(metrics, name):
    """A counter's value summed over its labels (0 when it was never incremented)."""
    return sum(float(line.rsplit(" ", 1)[1]) for line in metrics.splitlines()
               if line.startswith(name + " ") or line.startswith(name + "{"))


def circuit_openings(metrics):
    """How often web-api's circuit breakers opened (SmallRye Fault Tolerance's metrics)."""
    return counter(metrics, "ft_circuitbreaker_opened_total")


def requests_served(metrics):
    """The requests each service of a build has served so far, and web-api's author fall-backs. Routes are tagged
    without the build's version prefix (quarkus.rest.path)."""
    return {
        "web-api": served(metrics["web-api"], "GET", "/articles"),
        "articles": served(metrics["articles"], "GET", "/articles"),
        "authors": served(metrics["authors"], "GET", "/authors"),
        "fallbacks": counter(metrics["web-api"], FALLBACKS),
    }
