"""What is published of a bench (experiments.bench measures it): its cell document's tables, its own check beside the
cells', what it adds when sessions are pooled, and the run's report, which fails when the builds did not do the same
work."""
import sys

from benchkit import step
from benchkit.publish.kinds import Publishes
from benchkit.publish.bench import report, summaries, tables
from benchkit.schemas.bench import FILE


def write_report(path):
    """report.md and report.html beside bench.json; exits 1 when the builds did not do the same work."""
    passed = report.render(path.parent)
    step(f"Report: {path.parent / 'report.html'} (or read report.md)")
    if not passed:
        sys.exit("Equal work check FAILED: see the report's 'Equal work' section")


PUBLISHES = Publishes(run_files=(FILE,), tables=tables.TABLES, consistency={summaries.DESIGN: summaries.consistency},
                      pool={summaries.DESIGN: summaries.pooled_extra}, report=write_report)
