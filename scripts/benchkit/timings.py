"""How long make test, make demo and make cpu-map took here, as scripts/checks/timings.py published it (docs/timings.json), so
that a page states it with a setting marker (`timings.TIMES.make-test.stages.test-cluster`) and never types it."""
import json

from benchkit import ROOT

_PUBLISHED = ROOT / "docs" / "timings.json"
TIMES = json.loads(_PUBLISHED.read_text()) if _PUBLISHED.exists() else {}
