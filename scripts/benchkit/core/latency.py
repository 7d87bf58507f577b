"""Latency between the services, added outside the code under test and the same for every build: Toxiproxy
(scripts/local/stack.sh starts it; a build's services go through it when started with LATENCY_PROXY=on) holds one proxy
per hop and build, and a latency toxic on a hop delays every answer that comes back over it (the downstream
stream: one round trip, one delay, whatever the protocol). Two hops matter:

    authors    web-api to authors: each author look-up waits the setting once
    database   articles and authors to PostgreSQL: each query waits it once

A hop's latency is checked where it is set (check_hop): the round trip of a tiny exchange, through the proxy and
directly, interleaved; the difference of their floors (fastest round trips) must be the setting within a tolerance
measured in the same check. Floors, not medians: a busy machine only ever adds to a round trip, so the floors hold
still where the medians wander by a millisecond either way."""
import http.client
import json
import socket
import statistics
import struct
import time
import urllib.error
import urllib.request

from benchkit.core.delays import HOPS

TOXIC = "latency"
# A PostgreSQL SSLRequest: the server answers one byte ('S' or 'N'), which is a round trip of the protocol itself.
SSL_REQUEST = struct.pack("!II", 8, 80877103)


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
    """A function that times one GET over one kept-alive connection (ms): of the API port's root, which answers 404
    at once (no work behind it; health is on the management port, which no hop goes through)."""
    host, port = address.rsplit(":", 1)
    connection = http.client.HTTPConnection(host, int(port), timeout=10)

    def once():
        started = time.perf_counter()
        connection.request("GET", "/")
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


# What the proxy may add of its own on a hop at 0 ms: measured +0.1-0.3 ms here, and one millisecond more gives a machine
# three times slower its room. A bound of its own: it does not grow with what the check observes.
PROXY_OWN_LIMIT_MS = 1.5
# The least uncertainty a floor is given (a timer's and a scheduler's grain).
FLOOR_GRAIN_MS = 0.3
# How late the proxy's delay may end: Go's runtime, idle between answers, waits for its next timer in whole
# milliseconds, so a delay can end up to a millisecond after its time on every round trip, floor included. Measured:
# +0.3 to +1.14 ms at a 5 ms setting over the 93 checks of docs/results/map-6cfbdd4.json, and +1.06 ms in a CI run.
TIMER_GRAIN_MS = 1.0
# A check whose verdict is not yet clear takes this many times its round trips at most, a batch at a time (a passing
# check stops at its first: a machine twice as slow, or busy, pays the batches only where its floors have not shown).
MORE_ROUND_TRIPS = 8


def floor_and_grain(values):
    """The fastest of the round trips, and how far that floor moves between their two halves (at least the grain):
    a floor that many round trips agree on stays put, one that a busy machine hides does not."""
    half = len(values) // 2
    return min(values), max(FLOOR_GRAIN_MS, abs(min(values[:half]) - min(values[half:])))


def judge(setting, pairs, proxy_own_ms):
    """The verdict on round trips through the proxy and directly, (through, direct) pairs. At 0 ms the proxy's own
    addition is within PROXY_OWN_LIMIT_MS. At N ± J ms: the floor through the proxy is at least N - J above the direct
    floor (every answer waits the delay: a hop that bypassed the proxy cannot pass), and at most N plus the proxy's own
    (from the check at 0 ms), the proxy's timer grain (TIMER_GRAIN_MS), 5 % of N (a timer on a busy machine wakes
    late) and the floors' grain."""
    via_floor, via_grain = floor_and_grain([through for through, _ in pairs])
    floor, grain = floor_and_grain([direct for _, direct in pairs])
    added, uncertainty = via_floor - floor, via_grain + grain
    if setting.ms == 0:
        low, high = -uncertainty, PROXY_OWN_LIMIT_MS + uncertainty
    else:
        own = min(PROXY_OWN_LIMIT_MS, max(0.0, proxy_own_ms or 0.0))
        low = setting.ms - setting.jitter_ms - uncertainty
        high = setting.ms + own + TIMER_GRAIN_MS + 0.05 * setting.ms + uncertainty
    return {"hop": setting.hop, "setting_ms": setting.ms, "jitter_ms": setting.jitter_ms,
            "direct_p50_ms": round(statistics.median(d for _, d in pairs), 3),
            "proxied_p50_ms": round(statistics.median(p for p, _ in pairs), 3),
            "direct_floor_ms": round(floor, 3), "proxied_floor_ms": round(via_floor, 3),
            "added_ms": round(added, 3), "low_ms": round(low, 3), "high_ms": round(high, 3),
            "samples": len(pairs), "ok": low <= added <= high}


def check_hop(setting, proxied, direct, samples=60, proxy_own_ms=None):
    """The round trip over the setting's hop through the proxy and directly, interleaved, judged (see judge). A verdict
    that fails is measured again with another batch of round trips added, up to MORE_ROUND_TRIPS batches: on a busy
    machine a floor needs more round trips to show, and the bounds stay what they are."""
    through, close_through = ROUND_TRIPS[setting.hop](proxied)
    alone, close_alone = ROUND_TRIPS[setting.hop](direct)
    pairs = []
    try:
        for _ in range(3):  # connections and code paths warm
            through(), alone()
        for _ in range(MORE_ROUND_TRIPS):
            pairs += [(through(), alone()) for _ in range(samples)]
            verdict = judge(setting, pairs, proxy_own_ms)
            if verdict["ok"]:
                break
    finally:
        close_through()
        close_alone()
    return verdict


# What each proxy fault adds: (Toxiproxy's toxic type, its attributes, the share of connections it applies to).
TOXICS = {
    "proxy-slow": ("latency", {"latency": 1500, "jitter": 0}, 1.0),
    # every connection, so that cuts go on through the fault: on a share of them, a keep-alive pool soon holds only
    # the connections spared (a run with half of them cut saw 0 to 4 cuts per build)
    "proxy-cut": ("limit_data", {"bytes": 1000}, 1.0),
    "proxy-throttle": ("bandwidth", {"rate": 1}, 1.0),
}
