#!/usr/bin/env python3
"""check_results.py FILE EXPRESSION…: whether each Python expression holds of a results file (bench.json,
chaos.json, sweep.json, …), bound to `d`: how the end-to-end tests and make test-cluster read a run's results as
data, never a report's wording. Prints what each expression gave; exits 1 when one does not hold."""
import json
import pathlib
import sys


def holds(data, expression):
    """(whether it holds, what it gave); a figure missing from the data does not hold."""
    try:
        # d among the globals: a generator expression's body sees the globals, not eval's locals
        value = eval(expression, {"__builtins__": {"all": all, "any": any, "len": len, "abs": abs, "min": min,
                                                   "max": max, "sum": sum, "set": set, "sorted": sorted,
                                                   "isinstance": isinstance, "str": str}, "d": data})
    except (KeyError, IndexError, TypeError, AttributeError) as missing:
        return False, missing
    return bool(value), value


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    if len(argv) < 2:
        sys.exit(__doc__)
    data = json.loads(pathlib.Path(argv[0]).read_text())
    failed = False
    for expression in argv[1:]:
        ok, value = holds(data, expression)
        shown = repr(value)
        print(f"{'holds' if ok else 'does not hold'}: {expression} (gave {shown[:300]})")
        failed |= not ok
    if failed:
        sys.exit(1)


if __name__ == "__main__":
    main()
