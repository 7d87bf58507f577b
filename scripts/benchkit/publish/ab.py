"""What is published of an A/B (experiments.ab measures it, as a Design of the core's): the tables a doc may show of
its cell document, and the report of a run, both read from the document alone."""
import json

from benchkit import catalogue, info
from benchkit.core import cells, documents, verdicts
from benchkit.publish.kinds import Publishes

# how every A/B's report reads its ratios
ORDER = (" The modes' order is drawn at random, and reversed in the round after; B / A is the median of each round's "
         "own ratio.")


def write_report(path):
    """<design>.md and .html beside the document: its table of B / A, and the environment it ran in."""
    data = json.loads(path.read_text())
    documents.write(path.parent, data["design"], f"reactive-bench: {data['title']}",
                    f"{data['timestamp']}, commit {data['commit']}",
                    [(data["title"], data["explanation"] + ORDER, [("", cells.table(data))]),
                     ("Environment", "", [("", documents.key_value_rows(data["environment"]))])], {})
    info(f"{data['title']}: {path.parent / data['design']}.md and .html")


# the files A/B runs write: one cell document per A/B of the catalogue
PUBLISHES = Publishes(run_files=tuple(f"{entry.given['variant']}.json" for entry in catalogue.EXPERIMENTS
                                      if entry.package == "ab"),
                      tables={"ab": cells.table, "ab-verdicts": verdicts.table}, report=write_report)
