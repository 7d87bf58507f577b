"""One-off (issue 60): the comparison of two benches (reactive-bench/compare/1) and the remainder of two CPU maps
(reactive-bench/remainder/1) become one kind, the remainder with its steps in the document (reactive-bench/remainder/2):
a comparison is a remainder of two steps, the local stack and the node. Nothing measured changes; each build's figures
are computed again from the rounds the summary keeps. A comparison's node-over-local ratio becomes the median of the
rounds' ratios (the estimator every ratio uses), where it was the ratio of the medians with a cross interval: each
build's before and after are printed. Every marker of README.md and docs/*.md that named a comparison's figure or
table is renamed, and refused unless the figure it names is still there.

    cd scripts && ../.tools/benchkit/bin/python -m migrations.to_steps"""
import json
import re

from benchkit import ROOT, compare, figures
from benchkit.compare.costs import Cost
from benchkit.core.kinds import SUMMARIES

OLD_COMPARE, OLD_REMAINDER = "reactive-bench/compare/1", "reactive-bench/remainder/1"


def steps_of(steps):
    return [[compare.step_name(side, rung), what] for side, rung, what in steps]


def migrated(old):
    """The summary as a remainder/2, its figures as its rounds give them now."""
    if old["schema"] == OLD_REMAINDER:
        steps, unlimited = steps_of(compare.MAP_STEPS), [compare.step_name(*s) for s in compare.MAP_UNLIMITED]
        rounds = {version: figures["steps"] for version, figures in old["builds"].items()}
        kept = {"background_taken_off": True}
    else:
        steps, unlimited = steps_of(compare.BENCH_STEPS), []
        rounds = {version: {steps[0][0]: figures["local_rounds"], steps[1][0]: figures["node_rounds"]}
                  for version, figures in old["builds"].items()}
        kept = {}
    builds = {version: compare.figures_of({name: Cost(**cost) for name, cost in rounds[version].items()},
                                          [name for name, _ in steps], unlimited, figures["tls_ms"], figures["tls"])
              for version, figures in old["builds"].items()}
    return {**{k: v for k, v in old.items() if k != "builds"}, **kept, "schema": compare.SCHEMA, "steps": steps,
            "unlimited": unlimited, "builds": builds}


def new_path(path):
    """A comparison's figure's path in its remainder."""
    path = re.sub(r"^(builds\.\w+)\.ratio$", r"\1.factors.unexplained.factor", path)
    return re.sub(r"^(builds\.\w+\.processes\.[\w-]+)\.ratio$", r"\1.node_over_local_pod", path)


def has(summary, path):
    try:
        return figures.at(summary, path) is not None
    except (KeyError, IndexError):
        return False


def main():
    olds = {p.stem: json.loads(p.read_text()) for p in sorted(SUMMARIES.glob("*.json"))}
    olds = {name: old for name, old in olds.items() if old.get("schema") in (OLD_COMPARE, OLD_REMAINDER)}
    news = {name: migrated(old) for name, old in olds.items()}
    compared = {name for name, old in olds.items() if old["schema"] == OLD_COMPARE}
    for name in compared:
        for version, figures_were in olds[name]["builds"].items():
            now = news[name]["builds"][version]["factors"]["unexplained"]
            print(f"{name} {version}: {figures_were['ratio']:.3f} ({figures_were['ratio_low']:.2f}–"
                  f"{figures_were['ratio_high']:.2f}) -> {now['factor']:.3f} ({now['low']:.2f}–{now['high']:.2f}), "
                  f"{now['against_bound']}")

    def renamed(match):
        name, path = match.group(1), match.group(2)
        if name not in compared:
            return match.group(0)
        if not has(news[name], new_path(path)):
            raise SystemExit(f"{name} {path}: no figure at {new_path(path)}")
        return f"<!-- figure {name} {new_path(path)} "

    for page in [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]:
        text = re.sub(r"<!-- figure (\S+) (\S+) ", renamed, page.read_text())
        text = re.sub(r"<!-- figures (\S+) compare(-processes)? -->",
                      lambda m: f"<!-- figures {m.group(1)} remainder{m.group(2) or ''} -->"
                      if m.group(1) in compared else m.group(0), text)
        page.write_text(text)
    for name, new in news.items():
        (SUMMARIES / f"{name}.json").write_text(json.dumps(new, indent=2) + "\n")


if __name__ == "__main__":
    main()
