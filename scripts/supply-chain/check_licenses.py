#!/usr/bin/env python3
"""Checks the licence of every dependency the project builds or installs (part of make test), and fails on a
licence the project does not take: the AGPL, the SSPL, the BUSL, a proprietary licence, or none that can be named.

  - Maven: every artifact the services resolve, in every scope (mvnw dependency:list), its licence from its POM
    or its parents' (the local Maven repository holds them once the build has run);
  - Go: every module compiled into a Go binary in .tools/bin (go version -m: the load generator, helm, the
    Kubernetes components, Calico, the Zalando operator, …), its LICENSE file in the module cache;
  - Python: every distribution in the project's virtualenvs (.tools/*/), from its METADATA.

  check_licenses.py [--inventory FILE]   the check; FILE gets one line per dependency (kind, name, version, licence)
  check_licenses.py --shipped FILE [--write]
                                         what the project ships, with licences: the services' images' Java
                                         libraries, the Go modules of the programs in the cluster's images, the
                                         charts installed at deploy time, the images' bases; fails where FILE
                                         (docs/licenses.md) differs from it (--write: writes it) or one is refused
  check_licenses.py --self-test          proves it bites: fixtures carrying the AGPL, the SSPL, the BUSL and no
                                         licence at all must fail, permissive ones must pass
"""
import argparse
import functools
import os
import pathlib
import pwd
import re
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ElementTree

ROOT = pathlib.Path(__file__).resolve().parents[2]
LOCALBIN = ROOT / ".tools" / "bin"

# What a licence is called, from the words of its name or text; the first that matches names it.
REFUSED = (("AGPL", r"affero|\bagpl"), ("SSPL", r"server side public license|\bsspl"),
           ("BUSL", r"business source license|\bbusl|\bbsl-1"), ("proprietary", r"\bproprietary\b"))
ALLOWED = (
    ("Apache-2.0", r"apache|\basl\b"), ("MIT", r"\bmit\b|permission is hereby granted, free of charge"),
    ("BSD", r"\b0?bsd\b|redistribution and use in source and binary forms"), ("ISC", r"\bisc\b|permission to use, copy, modify, and/?or distribute"),
    ("MPL-2.0", r"mozilla public|\bmpl"), ("EPL", r"eclipse public|\bepl\b"), ("EDL", r"eclipse distribution|\bedl\b"),
    ("LGPL", r"lesser general public|library general public|\blgpl"),
    ("GPL with the Classpath exception", r"classpath[ -]exception|\bcpe\b|gpl2 w/ cpe|gnu general public license, version 2 with"),
    ("GPL", r"gnu general public|\bgpl"), ("CDDL", r"common development and distribution|\bcddl"),
    ("UPL", r"universal permissive"), ("CC0 / public domain", r"\bcc0|public domain|unlicense|unencumbered"),
    ("Go", r"go license"), ("Bouncy Castle", r"bouncy castle"), ("zlib", r"\bzlib\b|provided 'as-is'"),
    ("PSF", r"python software foundation|\bpsf\b"), ("HPND", r"\bhpnd\b|historical permission"),
    ("Boost", r"boost software"), ("CC-BY", r"creative commons attribution|\bcc-by"),
    ("Unicode", r"unicode"), ("W3C", r"\bw3c\b"), ("JSON", r"\bjson license"), ("Zope", r"zope public"),
)


def classify(*descriptions):
    """(licence names, refused names) for a dependency whose licence is described by these texts (a POM's names
    and URLs, a LICENSE file, a METADATA's fields). A dependency offered under several licences (EPL-2.0 OR
    GPL-2.0 with the Classpath exception) is refused only when every one of them is."""
    names, refused = [], []
    for text in (d.lower() for d in descriptions if d and d.strip()):
        # A licence names itself first; its body may name others (the MPL-2.0 names the AGPL as a secondary
        # licence): the head decides, the whole text only where the head names none.
        head = text[:500]
        found = (next((name for name, pattern in REFUSED + ALLOWED if re.search(pattern, head)), None) or
                 next((name for name, pattern in ALLOWED + REFUSED if re.search(pattern, text)), None))
        if found:
            names.append(found)
            if found in dict(REFUSED):
                refused.append(found)
    if not names:
        return ["unknown"], ["unknown"]
    return names, refused if len(refused) == len(names) else []


# ---------- Maven

def pom_path(repository, group, artifact, version):
    return repository / group.replace(".", "/") / artifact / version / f"{artifact}-{version}.pom"


def pom_licences(repository, group, artifact, version, depth=0):
    """The licences (name and URL, each a text) a POM declares, or its nearest parent's."""
    path = pom_path(repository, group, artifact, version)
    if depth > 10 or not path.exists():
        return []
    tree = ElementTree.parse(path).getroot()
    namespace = {"m": tree.tag[1:].split("}")[0]} if tree.tag.startswith("{") else {}
    find = (lambda node, tag: node.find(f"m:{tag}", namespace)) if namespace else (lambda node, tag: node.find(tag))
    licences = find(tree, "licenses")
    if licences is not None and len(licences):
        return [" ".join(filter(None, (getattr(find(licence, "name"), "text", None),
                                       getattr(find(licence, "url"), "text", None)))) for licence in licences]
    parent = find(tree, "parent")
    if parent is None:
        return []
    return pom_licences(repository, find(parent, "groupId").text, find(parent, "artifactId").text,
                        find(parent, "version").text, depth + 1)


@functools.lru_cache(maxsize=None)
def maven_modules():
    """{module directory: {(group, artifact, version, scope)}} of every module of services/, every scope, from one
    mvnw dependency:list (each module's list in its own target/)."""
    name = "licence-dependencies.txt"
    for old in (ROOT / "services").glob(f"**/target/{name}"):
        old.unlink()
    listed = subprocess.run(["./mvnw", "-B", "-q", "-ntp", "dependency:list", f"-DoutputFile=target/{name}",
                             "-DexcludeReactor=true"], cwd=ROOT / "services", capture_output=True, text=True)
    if listed.returncode:
        raise SystemExit(f"mvnw dependency:list failed:\n{(listed.stdout + listed.stderr)[-2000:]}")
    found = {}
    for listing in (ROOT / "services").glob(f"**/target/{name}"):
        module = str(listing.parent.parent.relative_to(ROOT / "services"))
        found[module] = set()
        for line in listing.read_text().splitlines():
            fields = line.strip().split(" ")[0].split(":")
            if len(fields) >= 5 and not line.startswith("The following"):
                found[module].add((fields[0], fields[1], fields[-2], fields[-1]))  # group:artifact:type[:classifier]:version:scope
    return found


def maven_dependencies(modules=None, scopes=None):
    """{(group, artifact, version)} of these modules (every one), in these scopes (every one)."""
    return {(group, artifact, version) for module, found in maven_modules().items() if modules is None or module in modules
            for group, artifact, version, scope in found if scopes is None or scope in scopes}


def maven_inventory(repository, modules=None, scopes=None):
    for group, artifact, version in sorted(maven_dependencies(modules, scopes)):
        if group.startswith("io.reactivebench"):
            continue  # this project's own modules
        names, refused = classify(*pom_licences(repository, group, artifact, version))
        yield "maven", f"{group}:{artifact}", version, names, refused


# ---------- Go

LICENCE_FILES = re.compile(r"^(licen[cs]e|copying|unlicense)(\.(txt|md|rst|apache2?|mit|bsd))?$", re.I)


def module_cache_dir(gomodcache, path, version):
    escaped = re.sub(r"[A-Z]", lambda m: "!" + m.group(0).lower(), f"{path}@{version}")
    return pathlib.Path(gomodcache) / escaped


def licence_texts(directory):
    """The texts of a module's licence files (the first 4,000 characters of each)."""
    if not directory.is_dir():
        return []
    return [f.read_text(errors="replace")[:4000] for f in sorted(directory.iterdir())
            if f.is_file() and LICENCE_FILES.match(f.name)]


def licence_of_any_version(gomodcache, path):
    """The licence texts of the first version of a module the cache holds that has any."""
    pattern = module_cache_dir(gomodcache, path, "*")
    for directory in sorted(pattern.parent.glob(pattern.name)):
        if texts := licence_texts(directory):
            return texts
    return []


def go_binaries():
    # the host's tools, and the programs built for a cluster's nodes (linux-ARCH/: Jaeger's, a node's loadgen)
    return sorted(path for path in [*LOCALBIN.glob("*"), *LOCALBIN.glob("linux-*/*")]
                  if path.is_file() and os.access(path, os.X_OK)
                  and subprocess.run(["go", "version", str(path)], capture_output=True).returncode == 0)


def go_modules(binaries):
    """{(module, version): where its licence is} for every module compiled into the binaries: its own place in the
    module cache (replacements resolved), or, for a module replaced by a directory of the main module's build
    (Calico's nested api module), the main module's (the same repository's licence)."""
    found = {}
    for binary in binaries:
        info = subprocess.run(["go", "version", "-m", str(binary)], capture_output=True, text=True).stdout
        main, last = None, None
        for line in info.splitlines():
            fields = line.strip().split("\t")
            if fields[0] == "mod" and len(fields) >= 3:
                main = (fields[1], fields[2])
                if fields[2] != "(devel)":
                    found.setdefault(main, main)
            elif fields[0] == "dep" and len(fields) >= 3:
                last = (fields[1], fields[2])
                found[last] = last
            elif fields[0] == "=>" and last:  # a replacement of the line before it: that is what was built
                del found[last]
                local = fields[1].startswith((".", "/"))
                found[(last[0], "local copy") if local else (fields[1], fields[2])] = main if local else (fields[1], fields[2])
    return found


@functools.lru_cache(maxsize=None)
def module_cache():
    return subprocess.run(["go", "env", "GOMODCACHE"], capture_output=True, text=True).stdout.strip()


def go_inventory(binaries=None):
    gomodcache = module_cache()
    modules = go_modules(go_binaries() if binaries is None else binaries)
    for (path, version), source in sorted(modules.items()):
        if source[1] != "(devel)":
            texts = licence_texts(module_cache_dir(gomodcache, *source))
        else:  # built from a copy of the module (Calico's build directory): its repository's licence, any version
            texts = licence_of_any_version(gomodcache, source[0])
        parent = source[0]
        # A module nested in a repository's subdirectory may carry no licence of its own (the Go proxy's zip holds
        # only its directory): then its repository's root module's, where that was built too.
        while not texts and "/" in parent:
            parent = parent.rsplit("/", 1)[0]
            for candidate in [(p, v) for p, v in modules if p == parent and v != "local copy"]:
                texts = licence_texts(module_cache_dir(gomodcache, *candidate))
        names, refused = classify(*texts)
        yield "go", path, version, names, refused


# ---------- Python

def python_inventory(tools=ROOT / ".tools"):
    for metadata in sorted(tools.glob("*/lib/python3*/site-packages/*.dist-info/METADATA")):
        fields = {}
        for line in metadata.read_text(errors="replace").split("\n\n", 1)[0].splitlines():
            key, _, value = line.partition(": ")
            fields.setdefault(key, []).append(value)
        texts = fields.get("License-Expression", []) + [c for c in fields.get("Classifier", []) if c.startswith("License ::")]
        texts += [text for text in fields.get("License", []) if len(text) < 200]  # some paste the whole text here
        names, refused = classify(*texts)
        yield "python", fields.get("Name", ["?"])[0], fields.get("Version", ["?"])[0], names, refused


# ---------- what is shipped

# The service modules whose jars go into images (services/<service>/vN), and the programs in the cluster's other
# images (the Makefile's paths: the load generator's, the latency proxy's, Jaeger's).
SERVICE_MODULES = sorted(str(p.parent.relative_to(ROOT / "services")) for p in (ROOT / "services").glob("*/v[0-9]*/pom.xml"))
IMAGE_PROGRAMS = {"loadgen": "LOADGEN", "the latency proxy (toxiproxy-server)": "TOXIPROXY", "the trace store (jaeger)": "JAEGER"}
# What is installed or built on without being resolved here: each as its publisher licenses it (a fact, checked
# against the refused list like everything else; the Zalando operator's also against its module's own LICENSE).
DEPLOYED = (
    ("chart", "Strimzi's strimzi-kafka-operator (installs Kafka)", "STRIMZI_CHART_VERSION", "Apache License 2.0", None),
    ("chart", "Zalando's postgres-operator (installs PostgreSQL)", "ZALANDO_CHART_VERSION", "MIT License",
     "github.com/zalando/postgres-operator@v{}"),
    # what those charts and the resources they reconcile pull, by their charts' defaults
    ("image", "Strimzi's operator and Kafka images (the operator's chart of that version, Kafka as the platform chart "
     "asks)", "STRIMZI_CHART_VERSION", "Apache License 2.0", None),
    ("image", "Zalando's Spilo (the operator's chart's docker_image: PostgreSQL and Patroni)", "ZALANDO_CHART_VERSION",
     "Apache License 2.0; PostgreSQL License (BSD-style); Patroni: MIT License", None),
)


def base_image(dockerfile):
    """The base image a Dockerfile names by default (its ARG BASE_IMAGE)."""
    match = re.search(r"^ARG BASE_IMAGE=(\S+)", (ROOT / dockerfile).read_text(), re.M)
    return match.group(1) if match else "?"


def base_images():
    services = base_image("services/Dockerfile.jvm")
    rows = [("image base", f"{services} (services/Dockerfile.jvm)", "Eclipse Temurin: GNU General Public License, "
             "version 2 with the Classpath Exception; Ubuntu 24.04's base packages: each under the free licence of "
             "its copyright file (GNU GPL and LGPL, MIT, BSD and others)")]
    for dockerfile in ("load/Containerfile", "scripts/latency-proxy/Containerfile", "scripts/tracing/Containerfile"):
        if base_image(dockerfile) != services:
            rows.append(("image base", f"{base_image(dockerfile)} ({dockerfile})", "unknown"))
    rows.append(("image base", "the test node's: a jlink runtime of the JDK that builds it, with Debian 12's C "
                 "libraries (scripts/cluster/test-cluster/images.sh)", "OpenJDK: GNU General Public License, version 2 with the "
                 "Classpath Exception; glibc: GNU Lesser General Public License"))
    rows.append(("image base", "the test node's Spilo-compatible image: Debian 13's PostgreSQL 17 and Patroni 4",
                 "PostgreSQL License (BSD-style); Patroni: MIT License"))
    return rows


def shipped_inventory(repository):
    """(section, name, version, licence names, refused) of everything the project ships."""
    for _, name, version, names, refused in maven_inventory(repository, SERVICE_MODULES, ("compile", "runtime")):
        # a native library's artifact is chosen by the building machine's platform (brotli4j's): named alike on every one
        yield "maven", re.sub(r":native-(linux|osx|windows)-\w+$", ":native-(the building machine's platform)", name), \
            version, names, refused
    binaries = [pathlib.Path(os.environ.get(variable) or "") for variable in IMAGE_PROGRAMS.values()]
    for (what, variable), path in zip(IMAGE_PROGRAMS.items(), binaries):
        if not path.is_file():
            raise SystemExit(f"{what} is not built ({variable}={path}): make loadgen toxiproxy jaeger first")
    yield from go_inventory(binaries)
    for kind, name, variable, licence, module in DEPLOYED:
        version = os.environ.get(variable) or "?"
        names, refused = declared(licence)
        if module:  # where its source is here, its own LICENSE must say the same
            texts = licence_texts(module_cache_dir(module_cache(), *module.format(version).split("@")))
            if texts and classify(*texts)[0] != classify(licence)[0]:
                names, refused = classify(*texts)[0], ["not as declared"]
        yield kind, name, version, names, refused
    for kind, name, licence in base_images():
        yield kind, name, "", *declared(licence)


def declared(licence):
    """A licence as its publisher states it, shown as stated; each part (split at "; ") named, and refused as any."""
    refused = [name for part in licence.split("; ") for name in classify(part)[1]]
    return [licence], refused


SHIPPED_SECTIONS = {
    "maven": ("The services' images: Java libraries", "every artifact on the runtime classpath of every build "
              "(`services/<service>/vN`, the floor v0 among them, `mvnw dependency:list`, compile and runtime scopes), as its POM licenses it"),
    "go": ("The load generator's, the latency proxy's and Jaeger's images: Go modules", "every module compiled into "
           "loadgen, toxiproxy-server and jaeger (`go version -m`), as its LICENSE file says; and Go's standard library "
           "(BSD)"),
    "chart": ("Installed at deploy time: the operators' charts", "by `make deploy-vN`, pinned in the Makefile"),
    "image": ("Pulled at deploy time: the operators' images", "what those charts run and reconcile, by their defaults "
              "(on minikube; the test node builds stand-ins for them: scripts/cluster/test-cluster/images.sh), at the version "
              "of the chart that names them"),
    "image base": ("The images' bases", "what the images are built on"),
}


def shipped_document(rows):
    lines = ["# Licences of what this project ships", "",
             "Rendered by `make licenses` (`scripts/supply-chain/check_licenses.py --shipped`); `make test` fails where it differs from",
             "what the build resolves, or where a licence is one the project does not take (the AGPL, the SSPL, the",
             "BUSL, a proprietary licence or none that can be named). The tools that build and test the project are",
             "checked too, but not listed here (`.local/licenses.tsv` after `make test-licenses`). Notices: `NOTICE`.", ""]
    for kind, (title, what) in SHIPPED_SECTIONS.items():
        found = [row for row in rows if row[0] == kind]
        lines += [f"## {title}", "", f"{len(found)}: {what}.", "", "| name | version | licence |", "|---|---|---|"]
        lines += [f"| {name} | {version} | {' / '.join(names)} |" for _, name, version, names, _ in found]
        lines.append("")
    return "\n".join(lines)


def check_shipped(document, rows, write):
    rendered = shipped_document(rows)
    ok = check(rows)
    if write:
        document.write_text(rendered)
        print(f"{document}: {len(rows)} rows written")
        return ok
    committed = document.read_text() if document.exists() else ""
    if committed != rendered:
        old, new = set(committed.splitlines()), set(rendered.splitlines())
        for line in sorted(old - new)[:20]:
            print(f"  - {line}")
        for line in sorted(new - old)[:20]:
            print(f"  + {line}")
        print(f"{document} is not what the build ships (- committed, + shipped): make licenses writes it")
        return False
    print(f"{document}: every one of its {len(rows)} rows is what the build ships")
    return ok


# ---------- the check

def check(inventory, out=None):
    rows = list(inventory)
    refused = [row for row in rows if row[4]]
    if out:
        out.write_text("".join(f"{kind}\t{name}\t{version}\t{' / '.join(names)}\n"
                               for kind, name, version, names, _ in rows))
    kinds = {kind: sum(1 for row in rows if row[0] == kind) for kind in ("maven", "go", "python", "chart", "image base")}
    print(f"licences: {kinds['maven']} Maven artifacts, {kinds['go']} Go modules, {kinds['python']} Python "
          f"distributions" + "".join(f", {kinds[k]} {k}s" for k in ("chart", "image base") if kinds[k]) +
          f"; {len(refused)} refused")
    for kind, name, version, names, why in refused:
        print(f"  REFUSED {kind} {name} {version}: {' / '.join(why)}")
    return not refused


def self_test():
    """Fixtures in a scratch directory, each as the real sources would show it."""
    work = pathlib.Path(tempfile.mkdtemp())
    repository = work / "m2"

    def pom(group, artifact, version, licences=(), parent=None):
        path = pom_path(repository, group, artifact, version)
        path.parent.mkdir(parents=True, exist_ok=True)
        body = "".join(f"<license><name>{name}</name></license>" for name in licences)
        parent_xml = (f"<parent><groupId>{parent[0]}</groupId><artifactId>{parent[1]}</artifactId>"
                      f"<version>{parent[2]}</version></parent>") if parent else ""
        path.write_text(f'<project xmlns="http://maven.apache.org/POM/4.0.0">{parent_xml}'
                        f'{"<licenses>" + body + "</licenses>" if licences else ""}</project>')

    pom("org.example", "parent", "1", ["GNU Affero General Public License v3"])
    pom("org.example", "child", "1", parent=("org.example", "parent", "1"))
    pom("org.example", "dual", "1", ["Eclipse Public License 2.0", "GNU General Public License, version 2 with the GNU Classpath Exception"])
    pom("org.example", "none", "1")
    agpl_text = "                    GNU AFFERO GENERAL PUBLIC LICENSE\n                       Version 3, 19 November 2007\n"
    mit_text = "MIT License\n\nPermission is hereby granted, free of charge, to any person obtaining a copy\n"
    cases = {
        "a POM whose parent carries the AGPL": (classify(*pom_licences(repository, "org.example", "child", "1")), True),
        "a POM without a licence, nor a parent": (classify(*pom_licences(repository, "org.example", "none", "1")), True),
        "a POM under EPL-2.0 or GPL-2.0 with the Classpath exception": (classify(*pom_licences(repository, "org.example", "dual", "1")), False),
        "a Go module whose LICENSE is the AGPL": (classify(agpl_text), True),
        "a Go module whose LICENSE is MIT": (classify(mit_text), False),
        "a Go module under the SSPL": (classify("Server Side Public License\nVERSION 1, OCTOBER 16, 2018"), True),
        "a Go module under the BUSL": (classify("Business Source License 1.1\n\nParameters\n"), True),
        "a Python distribution under AGPL-3.0-only": (classify("AGPL-3.0-only"), True),
        "a Python distribution classified OSI Approved :: BSD": (classify("License :: OSI Approved :: BSD License"), False),
        "an image base whose second part is proprietary": (declared("OpenJDK: GNU General Public License, version 2 with "
                                                                "the Classpath Exception; a vendor's proprietary agent"), True),
        "an image base declared as nothing one can name": (declared("the vendor's own terms"), True),
    }
    (work / "mod" / "example.com" / "agpl@v1.0.0").mkdir(parents=True)
    (work / "mod" / "example.com" / "agpl@v1.0.0" / "LICENSE").write_text(agpl_text)
    cases["a module cache's LICENSE file read as the AGPL"] = (
        classify(*licence_texts(module_cache_dir(work / "mod", "example.com/agpl", "v1.0.0"))), True)
    wrong = [name for name, ((_, refused), should_refuse) in cases.items() if bool(refused) != should_refuse]
    for name in wrong:
        print(f"  WRONG: {name}: {cases[name][0]}")
    inventory = [("go", "example.com/agpl", "v1.0.0", *classify(agpl_text))]
    bites = not check(inventory)
    shipped = [("go", "example.com/mit", "v1.0.0", *classify(mit_text))]
    document = work / "licenses.md"
    document.write_text(shipped_document(shipped).replace("v1.0.0", "v1.0.1"))
    drift_bites = not check_shipped(document, shipped, write=False)
    if not drift_bites:
        print("  WRONG: an inventory that differs from what is shipped passes")
    print(f"check_licenses self-test: {len(cases)} fixtures, {len(wrong)} wrong; a run with the AGPL fixture "
          f"{'fails' if bites else 'PASSES'}; an inventory unlike what is shipped {'fails' if drift_bites else 'PASSES'}")
    return not wrong and bites and drift_bites


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--self-test", action="store_true")
    parser.add_argument("--inventory", type=pathlib.Path)
    parser.add_argument("--shipped", type=pathlib.Path)
    parser.add_argument("--write", action="store_true")
    # Maven's: under the JVM's user.home, which is the account's home directory, not $HOME (they differ under a HOME
    # set for one command: the licences were then read from an empty repository, every one unknown)
    parser.add_argument("--maven-repository", type=pathlib.Path,
                        default=pathlib.Path(pwd.getpwuid(os.getuid()).pw_dir) / ".m2" / "repository")
    args = parser.parse_args()
    if args.self_test:
        sys.exit(0 if self_test() else 1)
    if args.write:
        sys.exit(0 if check_shipped(args.shipped.resolve(), list(shipped_inventory(args.maven_repository)), True) else 1)
    inventory = [*maven_inventory(args.maven_repository), *go_inventory(), *python_inventory()]
    if args.inventory:
        args.inventory.parent.mkdir(parents=True, exist_ok=True)
    passed = check(inventory, args.inventory)
    if args.shipped:  # the same Maven listing serves both
        passed = check_shipped(args.shipped.resolve(), list(shipped_inventory(args.maven_repository)), False) and passed
    sys.exit(0 if passed else 1)


if __name__ == "__main__":
    main()
