import json

from benchkit import compare
from benchkit.tests.test_report import write_run


def results(directory, cpu_scale, jit, background=None):
    runs = directory / "runs"
    runs.mkdir(parents=True)
    (directory / "environment.json").write_text(json.dumps({"git_commit": "abc", "background_cpu_per_s": background}))
    for run in (1, 2, 3):
        write_run(runs, "v1", "closed", run)
        cost_file = runs / f"v1-closed-{run}.cost.json"
        cost = json.loads(cost_file.read_text())
        cost["cpu_seconds"] = {k: v * cpu_scale for k, v in cost["cpu_seconds"].items()}
        cost["jvm"] = {s: {"jit_seconds": jit, "jit_cpu_seconds": jit / 3, "gc_seconds": 0.03,
                                   "compilations": 1} for s in ("web-api", "articles", "authors")}
        cost_file.write_text(json.dumps(cost))
    return directory


def test_the_difference_taken_apart_by_what_was_measured(tmp_path):
    # 1000 complete answers each run; local: 2.25 CPU s -> 2.25 ms; node: 6.75 CPU s, 0.45 s of it the background
    # (0.045 CPU/s over 10 s) -> 6.3 ms; JIT 2.0 s on the node against 0.2 s locally: 1.8 ms; TLS 0.5 ms
    local = results(tmp_path / "local", 1, 0.2)
    node = results(tmp_path / "node", 3, 2.0, background={"v1": {"web-api": 0.045}})
    tls = tmp_path / "tls"
    tls.mkdir()
    (tls / "tls.json").write_text(json.dumps({"builds": {"v1": {"disable": [{"cpu_ms": 2.0}], "require": [{"cpu_ms": 2.5}]}}}))
    table = compare.rows(compare.per_answer(local), compare.per_answer(node), compare.tls_cost(tls))
    assert table[1] == ["v1 (imperative)", "2.250", "6.300", "2.80×", "4.050", "1.800", "0.000", "0.500", "1.750",
                        "1.78× no"]
