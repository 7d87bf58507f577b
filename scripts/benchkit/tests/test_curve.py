from benchkit.core import curve


def test_the_ladder_spans_a_tenth_to_beyond_the_fastest_build():
    assert curve.ladder(1700) == [170, 425, 680, 935, 1190, 1445, 1700, 2040]
    assert curve.ladder(20) == [5, 10, 15, 20, 25]  # small rates: rounded, no step twice
    assert curve.label(425) == "curve-425" and curve.rate_of("curve-425") == 425 and curve.rate_of("open") is None


def point(offered, complete, dropped=0):
    return {"complete": complete, "dropped": dropped, "requests": offered * 20}


def test_the_knee_is_the_last_rate_carried_in_every_repeat_before_the_first_one_not():
    steps = {rate: [point(rate, complete)] for rate, complete in ((100, 100), (400, 399), (700, 690), (1000, 800),
                                                                   (1200, 1190))}
    assert curve.knee(steps) == 700  # 1000/s was not carried; a lucky later step does not count
    assert curve.knee({100: [point(100, 100, dropped=500)]}) is None  # a quarter of the iterations dropped
    assert curve.knee({100: [point(100, 90)]}) is None
    steps[700].append(point(700, 600))  # the second repeat did not carry 700/s
    assert curve.knee(steps) == 400
