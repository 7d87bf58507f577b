import itertools
import json

import pytest

from benchkit.core import load, protocol, samples


@pytest.fixture
def seeded(monkeypatch):
    def given(value):
        monkeypatch.setenv("ORDER_SEED", value)
        protocol.seed.cache_clear()
    yield given
    protocol.seed.cache_clear()


def test_the_order_is_drawn_at_random_and_reversed_in_the_round_after(seeded):
    seeded("7")
    builds = ["v1", "v2", "v3"]
    drawn = [protocol.order(builds, run) for run in range(1, 41)]
    assert all(sorted(found) == builds for found in drawn)
    assert all(drawn[i + 1] == drawn[i][::-1] for i in range(0, 40, 2))  # each pair of rounds: every build before and after
    assert {tuple(found) for found in drawn[::2]} == {tuple(p) for p in itertools.permutations(builds)}  # every order drawn
    assert [protocol.order(builds, run) for run in range(1, 41)] == drawn  # the seed draws the same orders again
    seeded("8")
    assert [protocol.order(builds, run) for run in range(1, 41)] != drawn


@pytest.fixture(autouse=True)
def no_warm_up_length_given(monkeypatch):
    """The warm-up's length as each test gives it, whatever the shell running the tests has set."""
    monkeypatch.delenv("WARMUP_ITERATIONS", raising=False)


class FakeBuild:
    """A build whose warm-up windows compile less and less: the compiler threads' CPU seconds per window out of 10
    CPU seconds each (HotSpot's elapsed compile time, twice as much, is not what the rule reads)."""

    version = "v1"

    def __init__(self, jit_per_window, incomplete=()):
        self.jit_per_window, self.incomplete = list(jit_per_window), list(incomplete)
        self.jit = self.cpu = self.clock = 0.0

    def snapshot(self):
        share = {"jit_seconds": 2 * self.jit / 3, "jit_cpu_seconds": self.jit / 3, "gc_seconds": 0.0, "compilations": 0}
        return {"time": self.clock, "cpu_seconds": {s: self.cpu / 3 for s in ("web-api", "articles", "authors")},
                "jvm": {s: dict(share) for s in ("web-api", "articles", "authors")}, "throttling": None}

    def run(self, scenario, summary, settings):
        self.jit += self.jit_per_window.pop(0)
        self.cpu += 10
        self.clock += 5
        degraded = self.incomplete.pop(0) if self.incomplete else 0
        answers = [samples.Sample(1_000_000 + 50_000 * i, 1_000_000 + 50_000 * i, 10_000, 200,
                                  "degraded" if i < degraded else "complete", 1997) for i in range(100)]
        return load.summarize_into(summary, answers, "v1", scenario, "web-api"), None


def test_the_warm_up_goes_on_until_the_jit_has_settled(tmp_path):
    warmed = protocol.warm_up("v1", FakeBuild([4.0, 1.0, 0.2, 0.1]), tmp_path, 30)
    assert [w["jit_share"] for w in warmed["windows"]] == [0.4, 0.1, 0.02]
    assert [w["iterations"] for w in warmed["windows"]] == [30, 10, 10]
    assert warmed["settled"] and warmed["seconds"] == 15


def test_the_a_a_s_warm_up_files_are_named_without_a_space(tmp_path):
    protocol.warm_up("v1 again", FakeBuild([4.0, 0.1]), tmp_path, 30)
    assert sorted(p.name for p in tmp_path.glob("*.json")) == ["v1-again-warmup-1.json", "v1-again-warmup-2.json"]


def test_warmup_iterations_set_give_every_experiment_s_first_window_whatever_its_own(tmp_path, monkeypatch):
    monkeypatch.setenv("WARMUP_ITERATIONS", "60")
    warmed = protocol.warm_up("v1", FakeBuild([4.0, 0.1]), tmp_path, 30)
    assert [w["iterations"] for w in warmed["windows"]] == [60, 20]
    monkeypatch.delenv("WARMUP_ITERATIONS")
    assert protocol.warm_up("v1", FakeBuild([0.1]), tmp_path)["windows"][0]["iterations"] == int(
        load.setting("warmup", "iterations"))  # nobody's own: the warmup scenario's


def test_a_window_with_degraded_answers_does_not_count_as_settled(tmp_path, monkeypatch):
    monkeypatch.setattr(protocol, "BREAKER_DELAY_SECONDS", 0)
    warmed = protocol.warm_up("v1", FakeBuild([0.1, 0.1], incomplete=[30, 0]), tmp_path, 30)
    assert [w["incomplete_share"] for w in warmed["windows"]] == [0.3, 0.0] and warmed["settled"]


def test_a_warm_up_that_never_settles_stops_at_the_last_window(tmp_path, monkeypatch):
    monkeypatch.setenv("WARMUP_MAX_WINDOWS", "3")
    warmed = protocol.warm_up("v1", FakeBuild([5.0] * 3), tmp_path, 30)
    assert len(warmed["windows"]) == 3 and not warmed["settled"]


def test_the_window_cap_never_ends_a_warm_up_on_incomplete_answers(tmp_path, monkeypatch):
    """A fresh machine: one window allowed, and the first one's answers all degraded (the circuit opened on a cold
    look-up). The warm-up waits for the circuit and warms again until a window is complete, then stops."""
    monkeypatch.setattr(protocol, "BREAKER_DELAY_SECONDS", 0)
    monkeypatch.setenv("WARMUP_MAX_WINDOWS", "1")
    warmed = protocol.warm_up("v1", FakeBuild([5.0, 5.0, 5.0], incomplete=[100, 40, 0]), tmp_path, 30)
    assert [w["incomplete_share"] for w in warmed["windows"]] == [1.0, 0.4, 0.0]
    assert not warmed["settled"]  # the JIT had not settled: said so, but measured after complete answers only


def test_a_warm_up_whose_answers_stay_incomplete_fails_naming_why(tmp_path, monkeypatch):
    monkeypatch.setattr(protocol, "BREAKER_DELAY_SECONDS", 0)
    monkeypatch.setattr(protocol, "WARMUP_INCOMPLETE_SECONDS", 12)  # each fake window takes 5 s
    # counted from the end of the first incomplete window: 5 s, 10 s, then 15 s, past the 12 allowed
    with pytest.raises(protocol.WarmUpFailed, match=r"incomplete for 15 s \(4 windows; the last: 100% of 100 not "
                                                 r"complete, 100 degraded"):
        protocol.warm_up("v1", FakeBuild([5.0] * 9, incomplete=[100] * 9), tmp_path, 30)


def test_a_first_window_long_only_because_the_machine_is_slow_is_no_wait(tmp_path, monkeypatch):
    """A slow machine: the cold first window takes longer than the whole allowance, its first seconds incomplete; the
    next window, complete, ends the warm-up (the window's length is the machine's, not the build's failing)."""
    monkeypatch.setattr(protocol, "BREAKER_DELAY_SECONDS", 0)
    monkeypatch.setattr(protocol, "WARMUP_INCOMPLETE_SECONDS", 12)

    class Slow(FakeBuild):
        def run(self, scenario, summary, settings):
            found = super().run(scenario, summary, settings)
            self.clock += 300 if len(self.jit_per_window) == 1 else 0  # the first window: 305 s
            return found
    warmed = protocol.warm_up("v1", Slow([5.0, 0.1], incomplete=[13, 0]), tmp_path, 30)
    assert [w["incomplete_share"] for w in warmed["windows"]] == [0.13, 0.0] and warmed["settled"]


def test_the_background_rate_of_every_build_comes_from_one_quiet_window(monkeypatch):
    slept = []
    monkeypatch.setattr(protocol.time, "sleep", slept.append)
    builds = {"v1": FakeBuild([]), "v2": FakeBuild([])}
    builds["v2"].cpu = 30.0  # a build that has served more before: its rate is still only what it used meanwhile

    def idle_for(seconds):  # the quiet window: each build's clock moves, v1 uses 1.5 CPU s, v2 3 CPU s
        slept.append(seconds)
        for build, cpu in zip(builds.values(), (1.5, 3.0)):
            build.clock += seconds
            build.cpu += cpu
    monkeypatch.setattr(protocol.time, "sleep", idle_for)
    rates = protocol.background(builds, 10)
    assert slept == [10]
    assert rates == {"v1": {s: 0.05 for s in ("web-api", "articles", "authors")},
                     "v2": {s: 0.1 for s in ("web-api", "articles", "authors")}}


def test_the_probe_waits_out_a_draining_build_s_503s_and_no_other_failure():
    import urllib.error
    from benchkit.tests import standin

    answers = [503, 503, 200]

    class Draining(standin.Quiet):
        def do_GET(self):
            status = answers.pop(0) if answers else 500
            body = json.dumps([{"authorName": "Ada"}, {"authorName": "Bo"}, {"authorName": "Ada"}]).encode()
            self.send_response(status)
            if status == 503:
                self.send_header("Retry-After", "0")
            self.end_headers()
            self.wfile.write(body if status == 200 else b"{}")

    with standin.serving(Draining) as address:
        class Build:
            version = "v1"

            def web_api_url(self):
                return address
        assert protocol.probe(Build()) == ({"articles": 1, "authors": 2}, ["Ada", "Bo"])
        with pytest.raises(urllib.error.HTTPError) as failed:  # a 500 is no build draining: asked once
            protocol.probe(Build())
        assert failed.value.code == 500
        answers.extend([503] * 50)
        with pytest.raises(urllib.error.HTTPError):  # nor is a 503 past its patience
            protocol.probe(Build(), patience=0.5)
