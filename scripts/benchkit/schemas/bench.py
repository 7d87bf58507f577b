"""What a bench's document is, where the run that writes it and what publishes it both read it: its design's name and
title, its file, and the curve it keeps (ladders)."""
from benchkit.core import curve

DESIGN = "bench"
TITLE = "The demo and the bench: every scenario in rounds"
FILE = "bench.json"


def ladders(sessions):
    """The curve a summary keeps: each session's ladder (curve.kept; None where its steps were not kept), with the
    knees and repeats they give."""
    return {"sessions": sessions, **curve.summarized(sessions)}
