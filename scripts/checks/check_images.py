#!/usr/bin/env python3
"""No image a chart names by default can come from a registry the project does not own (part of make test-k8s).

Every chart is rendered with its defaults (helm template), the services' chart with every optional part switched on
(the latency proxy, Jaeger, helm test's pod), and every container's image is read: each must name the local-only
registry `localhost`, which nobody can push to, so an image that is not in the cluster fails to start, naming itself,
instead of being pulled from whatever a public namespace serves under that name (a name without a registry is Docker
Hub's). A cluster that pulls from a registry of its own gets it from make deploy-vN (IMAGES=registry
IMAGE_REPOSITORY=…), never from a default.

  check_images.py               every image of every chart's defaults, and whether it is local-only (exit 1 if not)
  check_images.py --self-test   proves the check bites first: the services' chart given a repository with no
                                registry, and the load Job's chart a Docker Hub image, must each fail it
"""
import argparse
import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1]))  # the harness, scripts/benchkit

from benchkit.platforms.kube import helm_template

LOCAL_ONLY = "localhost"
# each chart, with the values that switch every optional part of it on
CHARTS = {"reactive-bench": ("latencyProxy.enabled=true", "tracing.enabled=true"), "platform": (), "load-job": ()}


def registry(image):
    """The registry an image reference is pulled from: its first part where that names a host (a dot, a port or
    localhost), else Docker Hub's."""
    first, _, rest = image.partition("/")
    return first if rest and ("." in first or ":" in first or first == LOCAL_ONLY) else "docker.io"


def images(manifests):
    """[(kind/name, container, image)] of every container and init container the manifests run."""
    found = []
    for manifest in manifests:
        spec = manifest.get("spec") or {}
        pod = spec if manifest.get("kind") == "Pod" else spec.get("template", {}).get("spec", {})
        for container in [*pod.get("initContainers", ()), *pod.get("containers", ())]:
            found.append((f"{manifest['kind']}/{manifest['metadata']['name']}", container["name"], container["image"]))
    return found


def problems(charts=CHARTS, given=None):
    """[problem] of every image of the charts' defaults (with the --set values given per chart) that is not
    local-only."""
    found = []
    for chart, switched_on in charts.items():
        settings = [argument for value in (*switched_on, *(given or {}).get(chart, ())) for argument in ("--set", value)]
        for where, container, image in images(helm_template("check", chart, *settings)):
            ok = registry(image) == LOCAL_ONLY
            print(f"    {'local' if ok else 'PUBLIC'}  {chart}: {where} {container}: {image}")
            if not ok:
                found.append(f"{chart}: {where} runs {image}, pulled from {registry(image)} by default")
    return found


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--self-test", action="store_true")
    args = parser.parse_args()
    if args.self_test:
        print("==> Image self-test: a repository with no registry, and a Docker Hub image, must fail the check")
        bitten = problems({"reactive-bench": (), "load-job": ()},
                          {"reactive-bench": ("image.repository=reactive-bench",),
                           "load-job": ("image=docker.io/reactive-bench/loadgen:0.1.0",)})
        if not (any(p.startswith("reactive-bench:") for p in bitten) and any(p.startswith("load-job:") for p in bitten)):
            sys.exit("the image check did not bite: " + "; ".join(bitten))
    print("==> Every image the charts name by default is local-only (never pulled from a registry we do not own)")
    found = problems()
    if found:
        sys.exit("\n".join(found))


if __name__ == "__main__":
    main()
