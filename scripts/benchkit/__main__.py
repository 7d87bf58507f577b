"""python -m benchkit COMMAND [ARGS…]

  run NAME [--platform local|kubernetes] [--results DIR]   an experiment (experiments): its settings from the
                                                         environment (knobs), its document and report in DIR
  settings NAME          the settings a run of NAME would use, or why one is refused (before a stack starts)
  experiments [make | help local|kubernetes]   every experiment, with the platforms it runs on (or make's rules)
  knobs                  every setting, with its one default
  report RESULTS | results RESULTS | compare LOCAL NODE | latency-report RESULTS | latency-map-verdicts FILE
  figures publish|combine|render|check | builds … |
  unschedulable NAMESPACE | architecture PROGRAM | simulate [TRIALS]   how often the answer's rule is right"""
import argparse
import datetime
import importlib
import os
import pathlib
import sys

from benchkit import ROOT, step

# each tool's module, under benchkit (imported on demand: only the reports need matplotlib)
TOOLS = {"results": "experiments.bench.document", "compare": "publish.compare",
         "latency-report": "publish.latencymap.report", "latency-map-verdicts": "publish.latencymap",
         "figures": "figures",
         "builds": "core.buildsconf", "simulate": "core.simulate"}


def prepared(name):
    """The experiment of that name and its spec, read from the environment (a setting given wrong is refused, by
    name, here: before any stack starts)."""
    from benchkit import registry
    from benchkit.core import knobs
    experiment = registry.EXPERIMENTS.get(name) or sys.exit(
        f"no experiment {name!r}: {', '.join(registry.EXPERIMENTS)}")
    for knob in knobs.CORE:
        knob.value(os.environ)
    return experiment, knobs.spec_of(experiment.measures.Spec, experiment.group, **experiment.given)


def described(experiment, spec):
    """The settings of a run as a user gives them: NAME=value, …"""
    from benchkit.core import knobs
    shown = []
    for name, knob in knobs.fields(type(spec), experiment.group):
        value = getattr(spec, name)
        shown.append(f"{knob.name}={','.join(f'{v:g}' if isinstance(v, float) else str(v) for v in value)}"
                     if isinstance(value, tuple) else f"{knob.name}={value}")
    return ", ".join(shown) or "no settings of its own"


def run(argv):
    parser = argparse.ArgumentParser(prog="benchkit run", description="Run an experiment on a platform.")
    parser.add_argument("name")
    parser.add_argument("--platform", choices=("local", "kubernetes"), default="local")
    parser.add_argument("--results", help="where its document and report go (default: results/NAME-<time>)")
    args = parser.parse_args(argv)
    from benchkit.core import knobs
    from benchkit import platforms
    experiment, spec = prepared(args.name)
    if args.platform not in experiment.platforms:
        sys.exit(f"{args.name} runs on {' and '.join(experiment.platforms)} only")
    measures = experiment.measures
    versions = knobs.value("VERSIONS") or measures.versions(spec)
    platform = platforms.select(args.platform, versions, floor=measures.floor(spec))
    missing = [need.__name__ for need in measures.needs if platform.plugin(need) is None]
    if missing:
        sys.exit(f"{args.name} needs what {platform.where} does not have: {', '.join(missing)}")
    stamp = datetime.datetime.now(datetime.timezone.utc).strftime("%Y%m%dT%H%M%SZ")
    default = f"{'' if args.name == 'bench' else args.name + '-'}{stamp}{'-kubernetes' * (args.platform == 'kubernetes')}"
    directory = pathlib.Path(args.results or ROOT / "results" / default).resolve()
    directory.mkdir(parents=True, exist_ok=True)
    step(f"{args.name} on {platform.where}: {', '.join(platform.versions)}; {described(experiment, spec)}")
    written = measures.run(platform, spec, directory)
    if experiment.publishes.report:  # what is published of the run: its report, beside its document
        experiment.publishes.report(written)
    print(written)


def main():
    command, args = (sys.argv[1], sys.argv[2:]) if len(sys.argv) > 1 else ("", [])
    if command == "run":
        run(args)
    elif command == "settings":
        experiment, spec = prepared(args[0] if args else "")
        print(described(experiment, spec))
    elif command == "experiments" and args:  # for make: the standard library is enough
        from benchkit import catalogue
        catalogue.main(args)
    elif command == "experiments":
        from benchkit import registry
        for name, experiment in registry.EXPERIMENTS.items():
            print(f"{name:<12} {' '.join(experiment.platforms):<18} {experiment.package.__doc__.splitlines()[0]}")
    elif command == "knobs":
        from benchkit import registry
        from benchkit.core import knobs
        print(knobs.listing(registry.KNOBS))
        print(registry.load_listing())
    elif command == "unschedulable":  # for scripts/cluster/k8s.sh while helm waits; the standard library is enough
        from benchkit.platforms.kube import unschedulable
        print(unschedulable(args[0]))
    elif command == "architecture":  # for scripts/cluster/k8s.sh: what a program copied into an image was built for
        from benchkit.platforms.kube import elf_architecture
        print(elf_architecture(args[0]))
    elif command == "report" and len(args) == 1:  # a bench run's bench.json made again from its runs, then its report
        from benchkit.experiments.bench import document
        from benchkit.publish import bench
        results = pathlib.Path(args[0])
        document.write(results)
        bench.write_report(results / document.FILE)
    elif command in TOOLS:
        importlib.import_module(f"benchkit.{TOOLS[command]}").main(args)
    else:
        sys.exit(__doc__)


main()
