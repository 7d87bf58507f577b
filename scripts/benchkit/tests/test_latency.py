"""The latency proxy's controls and the hop check, against a real Toxiproxy (TOXIPROXY: make test-static builds
it) in front of two small servers: one that answers PostgreSQL's SSLRequest, one that answers HTTP/1.1 with
keep-alive, as the services' hops would."""
import http.server
import json
import os
import pathlib
import socket
import socketserver
import subprocess
import threading
import time
import urllib.request

import pytest

from benchkit.core import delays, latency

VERSION = "v9"


def free_port():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


class SslRequestHandler(socketserver.BaseRequestHandler):
    def handle(self):  # PostgreSQL's answer to an SSLRequest when it offers no TLS
        if self.request.recv(8) == latency.SSL_REQUEST:
            self.request.sendall(b"N")


class LiveHandler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"  # keep-alive, as the REST client's pool
    disable_nagle_algorithm = True  # headers and body are two writes: no delayed ACK between them

    def do_GET(self):
        body = b'{"status":"UP"}'
        self.send_response(200)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


def serve(server):
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return f"127.0.0.1:{server.server_address[1]}"


@pytest.fixture(scope="module")
def proxy(tmp_path_factory):
    binary = os.environ.get("TOXIPROXY")
    if not binary or not pathlib.Path(binary).exists():
        pytest.fail("TOXIPROXY must name Toxiproxy's server (make toxiproxy; make test-static sets it)")
    postgres = socketserver.ThreadingTCPServer(("127.0.0.1", 0), SslRequestHandler)
    authors = http.server.ThreadingHTTPServer(("127.0.0.1", 0), LiveHandler)
    upstream = {"database": serve(postgres), "authors": serve(authors)}
    hops = {}
    for hop in latency.HOPS:
        for name in latency.proxies_of(hop, VERSION):
            hops[name] = {"name": name, "listen": f"127.0.0.1:{free_port()}", "upstream": upstream[hop], "enabled": True}
    config = tmp_path_factory.mktemp("toxiproxy") / "config.json"
    config.write_text(json.dumps(list(hops.values())))
    port = free_port()
    server = subprocess.Popen([binary, "-host", "127.0.0.1", "-port", str(port), "-config", str(config)],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env={**os.environ, "LOG_LEVEL": "warn"})
    api = f"http://127.0.0.1:{port}"
    try:
        for _ in range(100):
            try:
                urllib.request.urlopen(f"{api}/proxies", timeout=1).close()
                break
            except OSError:
                time.sleep(0.1)
        yield latency.Toxiproxy(api), {name: (hop["listen"], hop["upstream"]) for name, hop in hops.items()}
    finally:
        server.terminate()
        server.wait(10)
        postgres.shutdown()
        authors.shutdown()


def addresses(hops, hop):
    return [hops[name] for name in latency.proxies_of(hop, VERSION)]


@pytest.mark.parametrize("hop", latency.HOPS)
def test_the_latency_set_is_the_latency_observed(proxy, hop):
    toxiproxy, hops = proxy
    toxiproxy.clear(VERSION)
    own = [latency.check_hop(delays.Setting(hop, 0), via, direct) for via, direct in addresses(hops, hop)]
    assert all(check["ok"] for check in own), own
    setting = delays.Setting(hop, 20, 2)
    toxiproxy.set(VERSION, setting)
    assert {toxiproxy.latencies(VERSION)[name] for name in latency.proxies_of(hop, VERSION)} == {(20, 2)}
    for (via, direct), at_zero in zip(addresses(hops, hop), own):
        check = latency.check_hop(setting, via, direct, proxy_own_ms=at_zero["added_ms"])
        assert check["ok"], check
        assert check["added_ms"] > 15
    toxiproxy.clear(VERSION)
    assert set(toxiproxy.latencies(VERSION).values()) == {(0, 0)}


def test_the_check_fails_when_the_latency_is_not_there(proxy):
    """A hop that bypasses its proxy, or whose latency went to another hop, fails, after every batch was tried."""
    toxiproxy, hops = proxy
    toxiproxy.clear(VERSION)
    (via, direct), = addresses(hops, "authors")
    check = latency.check_hop(delays.Setting("authors", 20), via, direct)
    assert not check["ok"] and check["samples"] == 60 * latency.MORE_ROUND_TRIPS, check
    toxiproxy.set(VERSION, delays.Setting("database", 20))  # another hop's latency is not this one's
    check = latency.check_hop(delays.Setting("authors", 20), via, direct)
    assert not check["ok"], check
    toxiproxy.clear(VERSION)


def round_trips(through, alone):
    """A hop's round trips, through the proxy ("via") and directly, that take these times in turn (ms): the check's
    arithmetic without a machine's noise."""
    def opened(address):
        taken = iter((through if address == "via" else alone) * 1000)
        return (lambda: next(taken)), (lambda: None)
    return opened


def check(monkeypatch, through, alone, ms, jitter=0.0, proxy_own_ms=None):
    monkeypatch.setitem(latency.ROUND_TRIPS, "authors", round_trips(through, alone))
    return latency.check_hop(delays.Setting("authors", ms, jitter), "via", "direct", samples=40,
                             proxy_own_ms=proxy_own_ms)


def test_a_busy_machine_that_only_adds_to_round_trips_keeps_the_floors(monkeypatch):
    """Medians 9 ms apart for a setting of 5 (a busy machine's stalls, more of them through the proxy): the floors
    are 5 ms apart, and the verdict holds."""
    found = check(monkeypatch, [5.3, 15.0, 5.4, 16.0, 17.0], [0.3, 2.0, 0.4, 3.0, 8.0], 5)
    assert found["added_ms"] == 5.0 and found["proxied_p50_ms"] - found["direct_p50_ms"] > 9 and found["ok"], found


def test_a_floor_below_the_setting_less_its_jitter_does_not_hold(monkeypatch):
    """The round trips of a hop that bypassed its proxy: however spread, their floor cannot pass for the latency."""
    found = check(monkeypatch, [1.0, 31.0, 61.0, 91.0], [1.0, 31.0, 61.0, 91.0], 20)
    assert found["added_ms"] == 0 and not found["ok"], found
    assert check(monkeypatch, [18.5, 19.0], [0.5], 20, jitter=2)["ok"]
    assert not check(monkeypatch, [17.0, 19.0], [0.5], 20, jitter=2)["ok"]


def test_the_proxy_s_own_cost_has_a_bound_of_its_own(monkeypatch):
    """At 0 ms the check's bound does not grow with what it observes: a proxy that added 3 ms of its own fails."""
    assert check(monkeypatch, [1.2], [1.0], 0)["ok"]
    found = check(monkeypatch, [4.0, 4.1], [1.0, 1.1], 0)
    assert found["high_ms"] < 3 and not found["ok"], found


def test_a_delay_that_ends_a_timer_s_grain_late_holds(monkeypatch):
    """The proxy's delay ends up to a millisecond late on every round trip (Go's idle timer wait), as a CI run saw:
    5 ms set, 6.06 ms added at the floor. Not a millisecond more."""
    assert check(monkeypatch, [6.13, 6.2], [0.073, 0.08], 5, proxy_own_ms=0.0)["ok"]
    assert not check(monkeypatch, [7.5, 7.6], [0.073, 0.08], 5, proxy_own_ms=0.0)["ok"]


def test_a_setting_that_stands_out_holds(monkeypatch):
    found = check(monkeypatch, [21.0, 21.2, 20.8, 21.1], [1.0, 1.2, 0.8, 1.1], 20)
    assert found["added_ms"] == 20 and found["ok"], found
    assert not check(monkeypatch, [25.0], [1.0], 20, proxy_own_ms=0.2)["ok"], "far more than the setting"


def test_an_unknown_hop_is_refused():
    with pytest.raises(ValueError, match="unknown hop"):
        latency.proxies_of("kafka", VERSION)


def test_each_build_s_own_proxy_takes_that_build_s_settings(proxy):
    """In the cluster each release runs its own Toxiproxy: the same controls, addressed by build."""
    toxiproxy, _ = proxy
    both = latency.PerBuild({VERSION: toxiproxy.api})
    try:
        both.set(VERSION, delays.Setting("database", 7, 1))
        assert both.latencies(VERSION) == {**{name: (0, 0) for name in latency.proxies_of("authors", VERSION)},
                                           **{name: (7, 1) for name in latency.proxies_of("database", VERSION)}}
    finally:
        both.clear(VERSION)
    assert set(toxiproxy.latencies(VERSION).values()) == {(0, 0)}


def test_a_fault_s_toxic_goes_on_one_hop_and_clear_takes_every_toxic_off(proxy):
    toxiproxy, _ = proxy
    toxiproxy.set(VERSION, delays.Setting("database", 3))
    toxiproxy.toxic(VERSION, "authors", "limit_data", {"bytes": 100}, 0.5)
    listed = toxiproxy.proxies()
    (authors,) = latency.proxies_of("authors", VERSION)
    assert [(t["type"], t["toxicity"], t["attributes"]) for t in listed[authors]["toxics"]] == \
        [("limit_data", 0.5, {"bytes": 100})]
    toxiproxy.clear(VERSION)
    listed = toxiproxy.proxies()
    assert all(not listed[name]["toxics"] for hop in latency.HOPS for name in latency.proxies_of(hop, VERSION))
