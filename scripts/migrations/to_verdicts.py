"""One-off (issue 61), two changes to committed summaries, neither to what was measured:
- every remainder summary's figures computed again from its steps' rounds, as the remainder now computes them: the
  node over the local stack round against round (the median of the rounds' ratios, the estimator every ratio uses,
  where it was the ratio of the medians with a cross interval) and a word against the 1.3× bound from every round;
  says each build's figure before and after;
- every CPU map summary keeps the cores of the machine that measured it (as publishing now keeps them), read back
  from its rounds (the processes' cores used over the share of the cores that was), so that its check can compute
  each round's bound-by again.

    cd scripts && ../.tools/benchkit/bin/python -m migrations.to_verdicts"""
import json

from benchkit.compare import remainder
from benchkit.compare.costs import Cost
from benchkit.core.kinds import SUMMARIES


def migrated(old):
    """The summary with each build's figures as its steps' rounds give them now."""
    return {**old, "builds": {version: {"steps": figures["steps"], **{
        k: v for k, v in remainder.figures_of({name: Cost(**cost) for name, cost in figures["steps"].items()},
                                              figures["tls_ms"], figures["tls"]).items() if k != "steps"}}
        for version, figures in old["builds"].items()}}


def with_cores(old):
    """A CPU map summary with the cores its rounds' bound-by was computed with."""
    found = {round(r["cores_used"] / r["bound_by"]["cores_busy_share"]) for c in old["cells"] for r in c["rounds"]
             if (r.get("bound_by") or {}).get("cores_busy_share")}
    if len(found) != 1:
        raise SystemExit(f"{old.get('name')}: its rounds were measured on {found} cores")
    return {**old, "cores": found.pop()}


def main():
    for path in sorted(SUMMARIES.glob("*.json")):
        old = json.loads(path.read_text())
        if old.get("design") == "cpu-map" and "cores" not in old:
            path.write_text(json.dumps(with_cores(old), indent=2) + "\n")
            print(f"{path.name}: measured on {with_cores(old)['cores']} cores")
        if old.get("schema") != remainder.REMAINDER_SCHEMA:
            continue
        new = migrated(old)
        for version in old["builds"]:
            before, after = (d["builds"][version]["factors"]["unexplained"] for d in (old, new))
            print(f"{path.name} {version}: {before['factor']:.3f} ({before['low']:.2f}–{before['high']:.2f}) -> "
                  f"{after['factor']:.3f} ({after['low']:.2f}–{after['high']:.2f}), {after['against_bound']}")
        path.write_text(json.dumps(new, indent=2) + "\n")


if __name__ == "__main__":
    main()
