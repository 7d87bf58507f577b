"""Latency between the services, added outside the code under test and the same for every build: Toxiproxy
(scripts/stack.sh starts it; a build's services go through it when started with LATENCY_PROXY=on) holds one proxy
per hop and build, and a latency toxic on a hop delays every answer that comes back over it (the downstream
stream: one round trip, one delay, whatever the protocol). Two hops matter:

    authors    web-api to authors: each author look-up waits the setting once
    database   articles and authors to PostgreSQL: each query waits it once

A hop's latency is checked where it is set (check_hop): the round trip of a tiny exchange, through the proxy and
directly, interleaved; the difference of their medians must be the setting within a tolerance measured in the
same check (the proxy's own cost and the direct round trip's spread)."""
import dataclasses
import http.client
import json
import socket
import statistics
import struct
import time
import urllib.error
import urllib.request

HOPS = ("authors", "database")
TOXIC = "latency"
# A PostgreSQL SSLRequest: the server answers one byte ('S' or 'N'), which is a round trip of the protocol itself.
SSL_REQUEST = struct.pack("!II", 8, 80877103)


@dataclasses.dataclass(frozen=True)
class Setting:
    """Latency added to one hop: milliseconds, ± jitter milliseconds (uniform, as Toxiproxy draws it)."""
    hop: str
    ms: float
    jitter_ms: float = 0.0

    @property
    def label(self):
        return f"{self.hop} +{self.ms:g} ms" + (f" ±{self.jitter_ms:g}" if self.jitter_ms else "")


def proxies_of(hop, version):
    """The proxies (Toxiproxy's names, as scripts/lib.sh declares them) that carry a hop of a build."""
    if hop == "authors":
        return (f"authors-{version}",)
    if hop == "database":
        return (f"postgres-articles-{version}", f"postgres-authors-{version}")
    raise ValueError(f"unknown hop {hop!r}: one of {', '.join(HOPS)}")


class Toxiproxy:
    """Toxiproxy's HTTP API: latency set on and taken off a build's hops, live (connections stay open)."""

    def __init__(self, api):
        self.api = api.rstrip("/")

    def _call(self, method, path, body=None):
        data = None if body is None else json.dumps(body).encode()
        request = urllib.request.Request(self.api + path, data=data, method=method,
                                         headers={"Content-Type": "application/json"})
        with urllib.request.urlopen(request, timeout=10) as answer:
            text = answer.read()
        return json.loads(text) if text else None

    def proxies(self):
        return self._call("GET", "/proxies")

    def set(self, version, setting):
        """Every proxy of the setting's hop delays its answers by the setting (0 ms: no toxic at all)."""
        for proxy in proxies_of(setting.hop, version):
            self._remove(proxy)
        if setting.ms > 0 or setting.jitter_ms > 0:
            self.toxic(version, setting.hop, TOXIC,
                       {"latency": int(round(setting.ms)), "jitter": int(round(setting.jitter_ms))})

    def clear(self, version):
        """No latency, and no other toxic, on any hop of the build."""
        proxies = self.proxies()
        for hop in HOPS:
            for proxy in proxies_of(hop, version):
                for toxic in proxies[proxy]["toxics"]:
                    self._remove(proxy, toxic["name"])

    def toxic(self, version, hop, kind, attributes, toxicity=1.0):
        """Any of Toxiproxy's toxics on the answers of a build's hop, on this share of its connections (the faults)."""
        for proxy in proxies_of(hop, version):
            self._call("POST", f"/proxies/{proxy}/toxics",
                       {"name": kind, "type": kind, "stream": "downstream", "toxicity": toxicity, "attributes": attributes})

    def latencies(self, version):
        """{proxy: (ms, jitter ms)} of the latency toxics on the build's hops now (0, 0 where there is none)."""
        found = {}
        proxies = self.proxies()
        for hop in HOPS:
            for proxy in proxies_of(hop, version):
                toxics = [t for t in proxies[proxy]["toxics"] if t["type"] == "latency"]
                found[proxy] = ((toxics[0]["attributes"]["latency"], toxics[0]["attributes"]["jitter"])
                                if toxics else (0, 0))
        return found

    def _remove(self, proxy, name=TOXIC):
        try:
            self._call("DELETE", f"/proxies/{proxy}/toxics/{name}")
        except urllib.error.HTTPError as error:
            if error.code != 404:  # none there
                raise


class PerBuild:
    """The same controls where each build has a Toxiproxy of its own (in the cluster, each release runs one)."""

    def __init__(self, apis):
        self.proxies = {version: Toxiproxy(api) for version, api in apis.items()}

    def set(self, version, setting):
        self.proxies[version].set(version, setting)

    def clear(self, version):
        self.proxies[version].clear(version)

    def latencies(self, version):
        return self.proxies[version].latencies(version)

    def toxic(self, version, hop, kind, attributes, toxicity=1.0):
        self.proxies[version].toxic(version, hop, kind, attributes, toxicity)


# ---------- the check: the latency added is the latency observed

def http_round_trip(address):
    """A function that times one GET of a liveness check over one kept-alive connection (ms)."""
    host, port = address.rsplit(":", 1)
    connection = http.client.HTTPConnection(host, int(port), timeout=10)

    def once():
        started = time.perf_counter()
        connection.request("GET", "/q/health/live")
        answer = connection.getresponse()
        answer.read()
        return 1000 * (time.perf_counter() - started)
    return once, connection.close


def postgres_round_trip(address):
    """A function that times PostgreSQL's answer to an SSLRequest on a new connection (ms; the connection's set-up
    is not timed: a proxy's toxic delays data, not the handshake)."""
    host, port = address.rsplit(":", 1)

    def once():
        with socket.create_connection((host, int(port)), timeout=10) as connection:
            started = time.perf_counter()
            connection.sendall(SSL_REQUEST)
            if not connection.recv(1):
                raise ConnectionError(f"{address} closed the connection without an answer")
            return 1000 * (time.perf_counter() - started)
    return once, lambda: None


ROUND_TRIPS = {"authors": http_round_trip, "database": postgres_round_trip}


def quartiles(values):
    q1, q2, q3 = statistics.quantiles(values, n=4, method="inclusive")
    return q1, q2, q3


def check_hop(hop, proxied, direct, setting_ms, samples=60, proxy_own_ms=None):
    """The round trip over one hop through the proxy and directly, `samples` of each, interleaved; the added
    latency observed is the difference of their medians. Tolerance, from this check's own figures: both round trips'
    spread (the sum of their interquartile ranges, at least 0.5 ms: on a busy machine both spread, and a jitter
    widens the proxied one), what the proxy itself adds (proxy_own_ms, from the check at 0 ms; else this check's own
    difference at 0), and 5 % of the setting (a timer on a busy machine wakes late). A latency set must also stand out
    of the spread and the proxy's own (more than both): a round trip so spread that the setting hides in it cannot tell
    the setting from none, and does not hold."""
    through, close_through = ROUND_TRIPS[hop](proxied)
    alone, close_alone = ROUND_TRIPS[hop](direct)
    try:
        for _ in range(3):  # connections and code paths warm
            through(), alone()
        pairs = [(through(), alone()) for _ in range(samples)]
    finally:
        close_through()
        close_alone()
    via_q1, via_median, via_q3 = quartiles([p for p, _ in pairs])
    q1, median, q3 = quartiles([d for _, d in pairs])
    added = via_median - median
    own = proxy_own_ms if proxy_own_ms is not None else (added if setting_ms == 0 else 0.0)
    noise = max(0.5, (q3 - q1) + (via_q3 - via_q1)) + max(0.0, own)
    tolerance = noise + 0.05 * setting_ms
    return {"hop": hop, "setting_ms": setting_ms, "direct_p50_ms": round(median, 3),
            "proxied_p50_ms": round(via_median, 3), "added_ms": round(added, 3),
            "tolerance_ms": round(tolerance, 3), "samples": samples,
            "ok": abs(added - setting_ms) <= tolerance and (setting_ms == 0 or added > noise)}
