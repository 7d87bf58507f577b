"""What make doctor requires of a machine, read from scripts/checks/doctor.sh's own constants (its `readonly NAME=value`
lines), so that a page states them with a setting marker and never apart from the check: DEMO_MEMORY_GIB, MIN_CORES,
…"""
import re

from benchkit import ROOT

for _name, _value in re.findall(r"\b([A-Z][A-Z_]+)=([0-9][0-9.]*)\b",
                                "\n".join(line for line in (ROOT / "scripts" / "checks" / "doctor.sh").read_text().splitlines()
                                          if line.startswith("readonly "))):
    globals()[_name] = float(_value) if "." in _value else int(_value)
