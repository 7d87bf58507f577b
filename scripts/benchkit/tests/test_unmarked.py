"""The lint bites: a measured number typed by hand, or a figure whose marker was replaced by plain text, fails;
marked figures, constants of the harness between setting markers, inline code and the settings it names pass."""
from benchkit import figures
from benchkit.publish import unmarked


def test_a_number_typed_by_hand_is_found_with_its_line():
    text = "Intro.\n\nv2 answered 1,554/s, 1.47× v1, in 12.5 ms at p99; 3 % were degraded.\n"
    assert unmarked.found(text) == [(3, "1,554/s"), (3, "1.47×"), (3, "12.5 ms"), (3, "3 %")]


def test_counts_timings_and_sizes_in_words_are_found_too():
    text = ("v2 was 2.1x v1, 3 times as fast, 5 per cent cheaper, in 45 minutes or 2 hours; 5 GB and 512 MB;\n"
            "800 rps, 900 req/s; 30 runs without a stall.\n")
    assert [number for _, number in unmarked.found(text)] == [
        "2.1x", "3 times", "5 per cent", "45 minutes", "2 hours", "5 GB", "512 MB", "800 rps", "900 req/s", "30 runs"]
    assert unmarked.found("CI runs within `90 minutes`; a stall in more than `3` runs; v2 is 2x86 or 0x1f") == []


def test_a_marker_replaced_by_plain_text_is_found():
    marked = "v2 carried **<!-- figure demo scenarios.closed.ratios.v2.ok_rps.median {:.2f}× -->1.47×<!-- /figure -->**"
    assert unmarked.found(marked) == []
    assert unmarked.found("v2 carried **1.47×**") == [(1, "1.47×")]


def test_settings_constants_and_code_pass():
    text = ("a round that moved more than <!-- setting core.calibration.DRIFT_LIMIT {:.0%} -->10%<!-- /setting --> is "
            "flagged; run `RUNS=3 DURATION=60s make demo`;\nwith 50 ms per\nlook-up and 5 ms per query, at an open "
            "250/s,\n```\n$ loadgen → 900 answers\n```\n")
    assert unmarked.found(text) == []


def test_a_setting_marker_renders_the_harness_s_own_constant():
    text = "more than <!-- setting core.calibration.DRIFT_LIMIT {:.0%} -->15%<!-- /setting --> is flagged"
    assert figures.rendered(text, {}, "x.md") == text.replace("15%", "10%")


def test_a_page_with_a_number_typed_by_hand_fails_the_check(tmp_path):
    page = tmp_path / "docs" / "page.md"
    page.parent.mkdir()
    page.write_text("It took 3 s, then 4 s.\n")
    assert unmarked.problems([page], tmp_path) == [
        "docs/page.md: 2 measured number(s) outside a figure marker: line 1: '3 s', line 1: '4 s' (mark it from a "
        "summary, or remove it)"]
    page.write_text("It took `3 s`, then <!-- setting core.calibration.DRIFT_LIMIT {:.0%} -->10%<!-- /setting -->.\n")
    assert unmarked.problems([page], tmp_path) == []


def test_a_link_to_a_file_not_in_the_repository_fails(tmp_path):
    (tmp_path / "docs" / "results").mkdir(parents=True)
    (tmp_path / "docs" / "results" / "demo.md").write_text("![curve](latency-curve.svg) [up](../page.md)\n")
    (tmp_path / "docs" / "page.md").write_text("[summary](results/demo.md), [site](https://example.org/x)\n")
    assert figures.dead_links(tmp_path) == ["docs/results/demo.md: links latency-curve.svg, which is not in the repository"]
