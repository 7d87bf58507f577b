"""The one-off migration of the A/B, CPU-map, latency-map and bench summaries to the cell document (scripts/migrations/to_cells.py): every
figure a page named by its old path is the same figure at its new one, and the migrated document is consistent."""
from benchkit import figures, registry
from benchkit.core import cells
from migrations import to_cells


def rounds(*rates):
    return [{"complete_per_s": rate, "capacity_per_s": rate / 2, "size": None} for rate in rates]


def test_an_old_a_b_s_figures_are_where_its_markers_now_point():
    old = {"name": "x", "schema": to_cells.OLD, "experiment": "tracing-absent", "modes": ["extension off", "absent"],
           "commit": "abc1234", "builds": {
               "v1": {"rounds": {"extension off": rounds(400, 410), "absent": rounds(440, 400)}},
               "v3 at 0.5 CPU": {"rounds": {"extension off": [{**r, "size": "0.5"} for r in rounds(200, 220)],
                                            "absent": [{**r, "size": "0.5"} for r in rounds(240, 200)]}}}}
    for build in old["builds"].values():  # ratios as the old code kept them
        build["ratios"] = cells.results.ratios_by_round(zip(*build["rounds"].values()), ["complete_per_s"])
    new = to_cells.migrated(old)
    assert cells.consistency(new) == []
    for path in ("builds.v1.ratios.complete_per_s.median", "builds.1.ratios.complete_per_s.high",
                 "builds.1.rounds.0.1.capacity_per_s", "builds.v1.rounds.absent.0.complete_per_s", "commit"):
        assert to_cells.old_at(old, path) == figures.at(new, to_cells.new_path(old, path)), path
    assert to_cells.new_path(old, "builds.1.rounds.0.1.capacity_per_s") == \
        "cells.[build=v3,mode=extension_off,size=0.5].rounds.1.capacity_per_s"


def test_an_old_cpu_map_s_figures_are_where_its_markers_now_point():
    cell = lambda size, round_, rate: {"size": size, "round": round_, "complete_per_s": rate}  # noqa: E731
    old = {"name": "m", "schema": to_cells.OLD_MAP, "commit": "abc1234", "sizes": ["0.5", "0"], "rounds": 2,
           "cells": {"v1": [cell("0.5", 1, 100), cell("0.5", 2, 110), cell("0", 1, 400), cell("0", 2, 380)],
                     "v2": [cell("0.5", 2, 180), cell("0.5", 1, 200), cell("0", 1, 600), cell("0", 2, 560)]}}
    new = to_cells.migrated(old)
    assert cells.consistency(new) == []
    assert to_cells.new_path(old, "rungs.0.ratios.v2.complete_per_s") == \
        "cells.[build=v2,size=0.5].ratios.complete_per_s.median"
    assert figures.at(new, "cells.[build=v2,size=0.5].ratios.complete_per_s.median") == (2.0 + 180 / 110) / 2
    # the second of v2's old cells is its first round at half a CPU
    assert figures.at(new, to_cells.new_path(old, "cells.v2.1.complete_per_s")) == 200
    assert figures.at(new, "cells.[build=v1,size=0.5].against_no_limit.complete_per_s.median") == \
        (100 / 400 + 110 / 380) / 2


def test_an_old_latency_map_s_figures_are_where_its_markers_now_point_and_its_tables_are_the_same():
    from benchkit.experiments.latencymap import report
    from benchkit.tests.test_latencymap import cell
    rows, loads = [{"hop": "authors", "ms": 0.0, "jitter_ms": 0}, {"hop": "database", "ms": 5.0, "jitter_ms": 0}], \
        [{"model": "open", "value": 250}]
    old = {"name": "map-x", "schema": to_cells.OLD_LATENCY, "commit": "abc1234", "duration": "10s", "rows": rows,
           "loads": loads, "repeats": 2, "settled": {"v1": True, "v2": False}, "own": {}, "checks": {},
           "cells": {"v1": [cell(0, 0, 500, 10), cell(1, 0, 300, 20), cell(0, 0, 520, 10, 2), cell(1, 0, 280, 20, 2)],
                     "v2": [cell(0, 0, 700, 9), cell(1, 0, 90, 99), cell(0, 0, 690, 9, 2), cell(1, 0, 95, 98, 2)]}}
    old["ratios"] = report.ratio_grid(old)
    new = to_cells.migrated(old)
    assert cells.consistency(new) == [] and new["rounds"] == 2
    assert to_cells.new_path(old, "cells.v2.3.shed") == "cells.[build=v2,mode=database_+5_ms_·_open_250].rounds.1.shed"
    for path in ("cells.v2.1.complete_per_s", "cells.v1.2.p99", "ratios.throughput.v2.1.0", "repeats"):
        assert to_cells.old_at(old, path) == figures.at(new, to_cells.new_path(old, path)), path
    # what the tables read of it is the old grid, in the order measured
    assert report.as_grid(new)["cells"]["v1"] == [{**c, "size": "0", "round": c["repeat"], "settled": True}
                                                  for c in old["cells"]["v1"]]
    assert report.ratio_rows(report.as_grid(new), "v2") == report.ratio_rows(old, "v2")


def test_an_old_bench_summary_s_figures_are_where_its_markers_now_point_and_two_sessions_pool_again():
    def figure(*values):
        return {"unit": "", "median": sorted(values)[len(values) // 2], "low": min(values), "high": max(values),
                "rounds": list(values)}

    def old(name, timestamp, v2):
        build = lambda rates: {"runs": 3, "figures": {"ok_rps": figure(*rates), "p99": figure(9.0, 8.0, 10.0)},  # noqa: E731
                               "cpu_ms": {"loadgen": figure(0.2, 0.3, 0.25)}}
        return {"schema": to_cells.OLD_BENCH, "name": name, "commit": name, "timestamp": timestamp, "where": "here",
                "on_kubernetes": False, "versions": ["v1", "v2"], "settled": {"v1": True, "v2": True},
                "equal_work": True, "load_settings": {}, "open_rate": None, "curve": {"sessions": [None], "knees": {}, "repeats": 0},
                "scenarios": {"closed": {"builds": {"v1": build((100, 100, 100)), "v2": build(v2)},
                                         "rounds": [{"number": n, "calibration_seconds": 2.0, "drift": None}
                                                    for n in (1, 2, 3)]}}}
    morning = old("aaa1111", "2026-11-26T08:00:00+00:00", (150, 160, 155))
    new = to_cells.migrated(morning)
    assert registry.consistency(new) == []
    for path in ("scenarios.closed.builds.v2.figures.ok_rps.median", "scenarios.closed.builds.v1.cpu_ms.loadgen.median",
                 "scenarios.closed.builds.v1.runs", "commit"):
        assert to_cells.old_at(morning, path) == figures.at(new, to_cells.new_path(morning, path)), path
    assert to_cells.new_path(morning, "scenarios.closed.ratios.v2.ok_rps.low") == \
        "cells.[build=v2,mode=closed].ratios.complete_per_s.low"
    assert figures.at(new, "cells.[build=v2,mode=closed].ratios.complete_per_s.low") == 1.5
    evening = to_cells.migrated(old("bbb2222", "2026-11-26T14:00:00+00:00", (130, 140, 170)))
    both = registry.pooled({"aaa1111": new, "bbb2222": evening}, "both")
    assert figures.at(both, "sessions.1.commit") == "bbb2222" and registry.consistency(both) == []
    assert figures.at(both, "cells.[build=v2,mode=closed].ratios.complete_per_s.median") == 1.525


def test_a_comparison_of_two_benches_migrated_to_a_remainder_of_two_steps_keeps_its_rounds_and_is_consistent():
    from benchkit.compare.costs import Cost
    from migrations import to_steps

    def cost(*settled):
        return {**vars(Cost(whole=list(settled), jit=[0.0] * 3, gc=[0.0] * 3, settled=list(settled),
                            processes={"web-api": list(settled)})), "settled_processes": {}}
    old = {"name": "node-vs-local", "schema": to_steps.OLD_COMPARE, "background_taken_off": True, "tls": None,
           "builds": {"v1": {"local_rounds": cost(1.0, 1.0, 1.0), "node_rounds": cost(2.0, 2.6, 2.2), "tls_ms": None,
                             "tls": "not measured (no --tls)", "ratio": 2.2, "ratio_low": 2.0, "ratio_high": 2.6}}}
    new = to_steps.migrated(old)
    assert registry.consistency(new) == [] and new["background_taken_off"]
    found = new["builds"]["v1"]
    assert found["steps"]["node closed"]["settled"] == [2.0, 2.6, 2.2]
    assert (found["factors"]["unexplained"]["factor"], found["factors"]["unexplained"]["against_bound"]) == (2.2, "beyond")
    # a comparison kept each process's whole cost, not its settled one: its process table shows that
    assert found["processes"]["web-api"]["node_over_local_pod"] == 2.2 and not found["processes_settled"]
    assert to_steps.new_path("builds.v1.ratio") == "builds.v1.factors.unexplained.factor"
    assert to_steps.new_path("builds.v1.processes.web-api.ratio") == "builds.v1.processes.web-api.node_over_local_pod"
