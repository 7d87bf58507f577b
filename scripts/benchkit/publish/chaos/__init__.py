"""What is published of a chaos run (experiments.chaos measures it): the summary of one or several runs, its check
and its tables (summary.py), and the run's report (report.py), which fails when an expectation failed."""
import sys

from benchkit.publish.kinds import Publishes
from benchkit.publish.chaos import report, summary


def write_report(path):
    """chaos.md and .html beside chaos.json; exits 1 when an expectation failed under a fault."""
    passed = report.render(path)
    print(f"Chaos report: {path.parent / 'chaos.md'} and {path.parent / 'chaos.html'}")
    if not passed:
        sys.exit("Some expectation failed under a fault: see the report's Expectations section")


PUBLISHES = Publishes(kind=summary.KIND, report=write_report)  # the summary of one or several runs
