from benchkit.schemas import work


def totals(**overrides):
    clean = {"requests": 1000, "complete": 1000, "degraded": 0, "failed": 0, "shed": 0,
             "articles": 1000, "authors": 5000, "expected_authors": 5, "bytes_min": 1997, "bytes_max": 1997}
    return {**clean, **overrides}


def test_a_clean_run_has_one_allowed_value():
    checks = work.calls_check(totals())
    assert checks["articles"] == (1.0, 1.0, 1.0, True)
    assert checks["authors"] == (5.0, 5.0, 5.0, True)


def test_degraded_answers_may_cost_less_never_more():
    # 100 degraded answers whose look-ups partly fell back: between 5 x 900 and 5 x 1000 authors calls
    degraded = totals(complete=900, degraded=100, authors=4800)
    assert all(passed for *_, passed in work.calls_check(degraded).values())
    repeated = totals(complete=900, degraded=100, authors=5100)  # more look-ups than articles calls allow
    assert not work.calls_check(repeated)["authors"][3]


def test_a_cache_or_a_batch_is_caught():
    cached = totals(authors=4000)  # complete answers with fewer look-ups than authors shown
    assert not work.calls_check(cached)["authors"][3]
    batched = totals(articles=500)
    assert not work.calls_check(batched)["articles"][3]


def test_failed_requests_widen_the_upper_bound_only():
    shed = totals(requests=1100, failed=100, shed=100, articles=1000, authors=5000)
    assert all(passed for *_, passed in work.calls_check(shed).values())
    articles, low, high, _ = work.calls_check(shed)["articles"]
    assert (articles, low) == (1.0, 1.0) and high == 1.1


def test_a_late_call_or_two_is_tolerated():
    assert work.calls_check(totals(authors=4998))["authors"][3]
    assert not work.calls_check(totals(authors=4980))["authors"][3]


def test_no_complete_answer_fails():
    checks = work.calls_check(totals(complete=0, degraded=1000))
    assert checks["authors"] == (None, None, None, False)


def test_bytes_must_be_one_size_for_every_build():
    assert work.same_bytes({"v1": (1997, 1997), "v2": (1997, 1997)})
    assert not work.same_bytes({"v1": (1997, 1997), "v2": (1990, 1997)})
    assert not work.same_bytes({"v1": (0, 0), "v2": (0, 0)})


def test_rows_pass_and_fail_per_scenario():
    rows, passed = work.rows({"closed": {"v1": totals(), "v2": totals()}})
    assert passed and rows[0] == ["scenario", "check", "v1", "v2", "verdict"]
    assert all(row[-1] in ("PASS", "–") for row in rows[1:])
    rows, passed = work.rows({"closed": {"v1": totals(), "v2": totals(authors=6000)},
                              "open": {"v1": totals(), "v2": totals()}})
    assert not passed
    assert [row[0] for row in rows[1:] if row[-1] == "FAIL"] == ["closed"]


def test_builds_showing_different_author_counts_fail():
    _, passed = work.rows({"closed": {"v1": totals(), "v2": totals(expected_authors=4, authors=4000)}})
    assert not passed


def test_a_hop_alone_is_judged_by_its_bytes():
    hop = totals(target="authors", articles=0, authors=1000, bytes_min=70, bytes_max=75)
    rows, passed = work.rows({"authors-alone": {"v1": hop, "v2": dict(hop)}})
    assert passed  # a size per author, the same range for both builds
    assert [row[1] for row in rows[1:]] == ["bytes of a complete answer (min–max)",
                                            "answers: complete / degraded / failed (shed)"]
    _, passed = work.rows({"authors-alone": {"v1": hop, "v2": dict(hop, bytes_max=76)}})
    assert not passed
