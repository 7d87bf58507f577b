#!/usr/bin/env python3
"""A CycloneDX SBOM of every image the project builds and ships (make sbom; make test checks it for drift, as it
checks docs/licenses.md): docs/sbom/<image>.cdx.json, one per image.

  - each service build's image (services/Dockerfile.jvm): its base image, and the build's runtime libraries as
    CycloneDX's Maven plugin lists them (cyclonedx-maven-plugin, makeBom: every compile and runtime dependency);
  - loadgen's image (load/Containerfile): its base image, and the Go modules of the binary as cyclonedx-gomod lists
    them (its `app` mode: what the main package links);
  - the latency proxy's and Jaeger's images (scripts/latency-proxy, scripts/tracing): their base image, and the Go
    modules their binaries were built from (make toxiproxy, make jaeger) as cyclonedx-gomod reads them from the
    binary itself (its `bin` mode);
  - the images make test builds for its node alone (scripts/cluster/test-cluster/images.sh), where the content is
    pinned: pause's and the Zalando operator's (each its binary alone, from `scratch`), read as the two above, and the
    stand-in for Strimzi's Kafka (the Kafka broker's jars on the node's base), read as the services are. The node's
    base (a jlink runtime of the machine's own JDK) and its Spilo-compatible image (Debian's PostgreSQL and Patroni as
    the archive serves them that day, each at least its pinned version) hold what the machine and the archive give:
    no document kept here could stay theirs, so each gets its own as it is built (--built-image, images.sh), from
    what its root file system holds.

Each file is the tool's own document under the image as its top component, with the fields that change at every
run left out (the serial number, the time, a locally built module's file hashes, the architecture a Go binary was
built for: the images are built for the cluster's, whatever the machine that writes this; and of a Go binary built
here, its own hashes and the Go toolchain that built it, which are the machine's: its file paths and its Go, at
least the one go.mod names): the same dependencies give the same bytes, so that a drift is a change of what ships,
on any machine (a tool's own hashes are left out too: cyclonedx-gomod is built on the machine that runs it).

  sbom.py --write DIR     writes DIR/<image>.cdx.json (after `make build`: the services' modules are installed)
  sbom.py --check DIR     fails where DIR is not what the dependencies give now, naming the images that drifted
  sbom.py --built-image NAME ROOTFS OUT
                          writes OUT: the SBOM of the image NAME built from ROOTFS, from what it holds: a Java
                          runtime's release file, and its Debian packages (its own dpkg database, or else the
                          machine's packages that own its files)
  sbom.py --self-test     proves the check bites: a changed, a missing and an extra document each drift, and what
                          changes at every run does not
"""
import argparse
import json
import os
import pathlib
import re
import shutil
import subprocess
import sys
import tempfile
import urllib.parse
from xml.etree import ElementTree

from check_licenses import SERVICE_MODULES, base_image  # what the licence inventory reads the same way

ROOT = pathlib.Path(__file__).resolve().parents[2]
MAVEN_PLUGIN = "cyclonedx-maven-plugin"  # org.cyclonedx's; its version and settings: services/pom.xml
KAFKA_STANDIN_MODULE = "testing/kafka-broker"
GOMOD = "github.com/CycloneDX/cyclonedx-gomod/cmd/cyclonedx-gomod@v1.10.0"
REPOSITORY = "localhost/reactive-bench"  # the images' names, as the charts pull them
OURS = "pkg:maven/io.reactivebench/"  # modules built here: their jars' hashes change with every build


def maven_plugin():
    """The Maven plugin's goal as services/pom.xml pins it, and each of its settings there given again on the command
    line (-DNAME=VALUE: each is also the plugin's property), so that the Kafka broker's module, which has no parent on
    purpose (services/testing/kafka-broker/pom.xml), is read with the same settings as the services'."""
    maven = {"m": "http://maven.apache.org/POM/4.0.0"}
    pom = ElementTree.parse(ROOT / "services" / "pom.xml").getroot()
    plugin = next(p for p in pom.iterfind(".//m:pluginManagement/m:plugins/m:plugin", maven)
                  if p.findtext("m:artifactId", namespaces=maven) == MAVEN_PLUGIN)
    version = plugin.findtext("m:version", namespaces=maven)
    if version.startswith("${"):  # a property of the pom's
        version = pom.findtext(f"m:properties/m:{version[2:-1]}", namespaces=maven)
    settings = [f"-D{setting.tag.rsplit('}', 1)[-1]}={setting.text}" for setting in plugin.find("m:configuration", maven)]
    return [f"org.cyclonedx:{MAVEN_PLUGIN}:{version}:makeBom", *settings]


def maven_boms():
    """{module: its CycloneDX document}, from the Maven plugin over the services' modules and the Kafka broker's at
    once, each into its target/cyclonedx.json."""
    modules = SERVICE_MODULES + [KAFKA_STANDIN_MODULE]
    subprocess.run([str(ROOT / "services" / "mvnw"), "-B", "-ntp", "-q", *maven_plugin(), "-pl", ",".join(modules)],
                   cwd=ROOT / "services", check=True)
    return {module: json.loads((ROOT / "services" / module / "target" / "cyclonedx.json").read_text())
            for module in modules}


def loadgen_version():
    """The version make gives loadgen (the Makefile's LOADGEN_VERSION)."""
    return re.search(r"^LOADGEN_VERSION \?= (\S+)", (ROOT / "Makefile").read_text(), re.M).group(1)


def gomod_bom(work):
    """loadgen's CycloneDX document: the modules its main package links. cyclonedx-gomod takes the main module's
    version from git; a copy of load/ in a repository of its own, tagged with loadgen's version, gives it that
    version rather than one that changes with every commit."""
    copy = pathlib.Path(work) / "load"
    shutil.copytree(ROOT / "load", copy)
    git = ["git", "-c", "user.name=sbom", "-c", "user.email=sbom@localhost", "-C", str(copy)]
    for command in (["init", "-q"], ["add", "-A"], ["commit", "-qm", "loadgen"], ["tag", f"v{loadgen_version()}"]):
        subprocess.run(git + command, check=True)
    output = pathlib.Path(work) / "loadgen.json"
    # the image's binary: static, for Linux (make loadgen's build constraints)
    subprocess.run(["go", "run", GOMOD, "app", "-json", "-noserial", "-notimestamp", "-licenses", "-output",
                    str(output), "-main", ".", "."], cwd=copy, check=True,
                   env={**os.environ, "CGO_ENABLED": "0", "GOOS": "linux"})
    return json.loads(output.read_text())


def binary_bom(binary, version=None):
    """The CycloneDX document of a Go binary built here (make toxiproxy, make jaeger, the node's pause and operator):
    the modules it was built from, as its build information records them; version: its main module's, where it was
    built in that module's directory (which records none)."""
    with tempfile.TemporaryDirectory() as work:
        output = pathlib.Path(work) / "bom.json"
        subprocess.run(["go", "run", GOMOD, "bin", "-json", "-licenses", *(["-version", version] if version else []),
                        "-output", str(output), str(binary)], cwd=ROOT / "load", check=True)
        return json.loads(output.read_text())


def the_machines(name):
    """Whether a Go build's property (cyclonedx-gomod's) is the machine's that built it, not what ships: the binary's
    own hashes (its file paths are the machine's), the Go toolchain (any at least go.mod's), the architecture (the
    cluster's, whatever the machine's) and its level."""
    return name.startswith("cdx:gomod:binary:hash:") or name in (
        "cdx:gomod:build:env:GOVERSION", "cdx:gomod:build:env:GOARCH", "cdx:gomod:build:env:GOAMD64",
        "cdx:gomod:build:env:GOARM64", "cdx:gomod:build:env:GOARM")


def normalised(bom, image, base):
    """The tool's document as the image's: the image the top component, its base (None: from scratch) and the tool's
    top component the image's parts, and what changes at every run, or with the machine, left out."""
    # a Go module's architecture qualifier names the machine that built the binary here, not the cluster's
    bom = json.loads(re.sub(r"goarch=[a-z0-9]+&", "", json.dumps(bom)))
    bom.pop("serialNumber", None)
    metadata = bom.setdefault("metadata", {})
    metadata.pop("timestamp", None)
    # The tools that wrote it are named by name and version; their own bytes are this machine's (cyclonedx-gomod is
    # built here, its binary holding the module cache's path), not what ships.
    tools = metadata.get("tools")
    for tool in (tools.get("components", []) if isinstance(tools, dict) else tools or []):
        tool.pop("hashes", None)
    application = metadata.pop("component", None)
    for described in (metadata, application or {}):
        if "properties" in described:
            described["properties"] = [p for p in described["properties"] if not the_machines(p["name"])]
    top = f"{REPOSITORY}/{image}"
    metadata["component"] = {"type": "container", "bom-ref": top, "name": top}
    parts = []
    if base:
        name, _, tag = base.partition(":")
        parts.append({"type": "container", "bom-ref": f"base:{base}", "name": name, "version": tag})
    if application:
        parts.append(application)
    components = parts + bom.get("components", [])
    for component in components:
        # what identifies a part and its licence is kept; its description and links are the registry's to give
        for field in ("description", "externalReferences"):
            component.pop(field, None)
        component["hashes"] = [h for h in component.get("hashes", []) if h["alg"] == "SHA-256"]
        if component.get("purl", "").startswith(OURS) or component is application or not component["hashes"]:
            component.pop("hashes")  # built here: its jar's bytes change with the build's time
    bom["components"] = sorted(components, key=lambda c: (c.get("purl") or "", c.get("bom-ref") or ""))
    dependencies = bom.get("dependencies", [])
    dependencies.append({"ref": top, "dependsOn": [c["bom-ref"] for c in parts if c.get("bom-ref")]})
    bom["dependencies"] = sorted(dependencies, key=lambda d: d["ref"])
    return bom


def images(work):
    """{image name: its SBOM}."""
    services = base_image("services/Dockerfile.jvm")
    boms = maven_boms()
    found = {module.replace("/", "-"): normalised(bom, module.replace("/", "-"), services)
             for module, bom in boms.items() if module != KAFKA_STANDIN_MODULE}
    found["standin-kafka"] = normalised(boms[KAFKA_STANDIN_MODULE], "standin-kafka",
                                        base_image("scripts/cluster/test-cluster/operator-standins/kafka.Containerfile"))
    found["loadgen"] = normalised(gomod_bom(work), "loadgen", base_image("load/Containerfile"))
    # (image, the Makefile's variable naming its binary, its base, its main module's version where the build records
    # none, the make target that builds it)
    for image, binary, base, version, target in (
            ("latency-proxy", "TOXIPROXY", base_image("scripts/latency-proxy/Containerfile"), None, "toxiproxy"),
            ("jaeger", "JAEGER", base_image("scripts/tracing/Containerfile"), None, "jaeger"),
            ("pause", "PAUSE", None, None, "node-binaries"),
            ("postgres-operator", "POSTGRES_OPERATOR", None, os.environ.get("ZALANDO_OPERATOR_VERSION"), "node-binaries")):
        path = os.environ.get(binary)
        if not path or not pathlib.Path(path).exists():
            sys.exit(f"{binary} names no binary ({path}): make sets it (make {target})")
        found[image] = normalised(binary_bom(path, version), image, base)
    return found


def deb_component(name, version, architecture, distro):
    purl = f"pkg:deb/debian/{name}@{urllib.parse.quote(version)}?arch={architecture}&distro={distro}"
    return {"type": "library", "bom-ref": purl, "name": name, "version": version, "purl": purl}


def installed(packages=(), admindir=None):
    """{(package, version, architecture)} installed, of the packages named (every one where none is), in the dpkg
    database at admindir (the machine's where none is given)."""
    found = subprocess.run(["dpkg-query", *([f"--admindir={admindir}"] if admindir else []), "-W",
                            "-f=${db:Status-Status}\t${Package}\t${Version}\t${Architecture}\n", *packages],
                           capture_output=True, text=True, check=True).stdout
    return {(n, v, a) for status, n, v, a in (line.split("\t") for line in found.splitlines()) if status == "installed"}


def owners(path):
    """The machine's packages that own a file (dpkg -S), by its path, the file it resolves to, or its path on the
    other side of the merged /usr (/bin is /usr/bin here: a package names either)."""
    merged = path.removeprefix("/usr") if path.startswith("/usr/") else f"/usr{path}"
    said = subprocess.run(["dpkg", "-S", path, os.path.realpath(path), merged], capture_output=True, text=True).stdout
    return {owner.split(":")[0] for line in said.splitlines() if not line.startswith("diversion by")
            for owner in line.split(": ")[0].split(", ")}


def release(file):
    """A KEY="value" file (os-release, a Java runtime's release) as a dict."""
    pairs = (line.split("=", 1) for line in file.read_text().splitlines() if "=" in line)
    return {key: value.strip('"') for key, value in pairs}


def built_image(name, rootfs):
    """The SBOM of an image built here from a root file system, from what it holds: a Java runtime (its release
    file), and Debian's packages, from the file system's own dpkg database, or else the machine's packages that own
    its files (dpkg -S: what the node's base copied from this machine)."""
    components = []
    java = rootfs / "opt" / "java" / "release"
    if java.exists():
        runtime = release(java)  # jlink writes the version and the modules
        purl = f"pkg:generic/openjdk@{urllib.parse.quote(runtime['JAVA_VERSION'])}"
        components.append({"type": "framework", "bom-ref": purl, "name": "OpenJDK runtime (jlink)",
                           "version": runtime["JAVA_VERSION"], "purl": purl,
                           "properties": [{"name": "java:modules", "value": runtime.get("MODULES", "")}]})
    if (rootfs / "var" / "lib" / "dpkg" / "status").exists():
        # (its /etc/os-release is a link to this file: read inside the file system, never the machine's)
        distro = "debian-" + release(rootfs / "usr" / "lib" / "os-release").get("VERSION_CODENAME", "?")
        packages = installed(admindir=rootfs / "var" / "lib" / "dpkg")
    else:  # files copied from this machine (the node's base: the libraries its runtime loads, a shell, cat, sleep)
        distro = "debian-" + release(pathlib.Path("/etc/os-release")).get("VERSION_CODENAME", "?")
        files = sorted(f"/{path.relative_to(rootfs)}" for path in rootfs.rglob("*")
                       if path.is_file() and not path.is_relative_to(rootfs / "opt" / "java")
                       and not path.is_relative_to(rootfs / "etc"))
        owned = {file: owners(file) for file in files}
        names = sorted(set().union(*owned.values()))
        packages = installed(names) if names else set()
        # a file no package owns is named as a file: what it is, nobody's SBOM says
        components += [{"type": "file", "bom-ref": f"file:{file}", "name": file} for file, by in owned.items() if not by]
    components += [deb_component(*package, distro) for package in sorted(packages)]
    top = f"{REPOSITORY}/{name}"
    return {"bomFormat": "CycloneDX", "specVersion": "1.5", "version": 1,
            "metadata": {"component": {"type": "container", "bom-ref": top, "name": top}},
            "components": components, "dependencies": [{"ref": top, "dependsOn": [c["bom-ref"] for c in components]}]}


def text(bom):
    return json.dumps(bom, indent=1, sort_keys=True) + "\n"


def drifted(found, kept):
    """The images whose SBOM (found: {name: document}) is not the text kept ({name: text}), or is kept alone."""
    return sorted(name for name in found.keys() | kept.keys()
                  if name not in found or kept.get(name) != text(found[name]))


def self_test():
    def tool(version, serial, time, hash_):
        def hashes(content):
            return [{"alg": "MD5", "content": "m"}, {"alg": "SHA-256", "content": content}]
        return {"bomFormat": "CycloneDX", "serialNumber": serial, "metadata": {"timestamp": time, "component": {
            "bom-ref": "app", "name": "authors-v1", "hashes": hashes(hash_)},
            "tools": [{"name": "cyclonedx-gomod", "version": "v1.10.0", "hashes": hashes(hash_)}]}, "components": [
            {"bom-ref": "lib", "purl": f"pkg:maven/org.example/lib@{version}", "hashes": hashes("h-lib")},
            {"bom-ref": "ours", "purl": f"{OURS}problem@1.0", "hashes": hashes(hash_)}], "dependencies": []}
    before = {"authors-v1": normalised(tool("1.0", "urn:1", "t1", "h1"), "authors-v1", "base:1")}
    kept = {name: text(bom) for name, bom in before.items()}

    def go_binary(hash_, go, arch, cgo="0"):  # cyclonedx-gomod's document of a binary (its bin mode)
        return {"bomFormat": "CycloneDX", "metadata": {"component": {"bom-ref": "app", "name": "pause"}, "properties": [
            {"name": "cdx:gomod:binary:hash:SHA-256", "value": hash_}, {"name": "cdx:gomod:build:env:GOVERSION", "value": go},
            {"name": "cdx:gomod:build:env:GOARCH", "value": arch}, {"name": "cdx:gomod:build:env:CGO_ENABLED", "value": cgo}]},
            "components": [], "dependencies": []}
    binary = {"pause": text(normalised(go_binary("b1", "go1.26.8", "amd64"), "pause", None))}
    checks = {
        "another run on another machine: serial, time and the hashes of what is built here (the tool too) change": (
            drifted({"authors-v1": normalised(tool("1.0", "urn:2", "t2", "h2"), "authors-v1", "base:1")}, kept), []),
        "a library's version changed": (
            drifted({"authors-v1": normalised(tool("1.1", "urn:1", "t1", "h1"), "authors-v1", "base:1")}, kept),
            ["authors-v1"]),
        "the base image changed": (
            drifted({"authors-v1": normalised(tool("1.0", "urn:1", "t1", "h1"), "authors-v1", "base:2")}, kept),
            ["authors-v1"]),
        "an image's document missing": (drifted(before, {}), ["authors-v1"]),
        "a document of no image": (drifted(before, {**kept, "gone-v9": "{}"}), ["gone-v9"]),
        "a library's own hash kept": ("h-lib" in kept["authors-v1"], True),
        "a Go binary built on another machine: its own hashes, its Go and its architecture differ": (
            drifted({"pause": normalised(go_binary("b2", "go1.27.1", "arm64"), "pause", None)}, binary), []),
        "a Go binary's build setting changed": (
            drifted({"pause": normalised(go_binary("b1", "go1.26.8", "amd64", cgo="1"), "pause", None)}, binary),
            ["pause"]),
        "an image from scratch: no base among its parts": ('"base:' in binary["pause"], False),
    }
    with tempfile.TemporaryDirectory() as root:  # an image's root file system with its own dpkg database
        rootfs = pathlib.Path(root)
        (rootfs / "var" / "lib" / "dpkg").mkdir(parents=True)
        (rootfs / "usr" / "lib").mkdir(parents=True)
        (rootfs / "var" / "lib" / "dpkg" / "status").write_text(
            "Package: patroni\nStatus: install ok installed\nArchitecture: all\nVersion: 4.0.7-3~deb13u1\n\n"
            "Package: gone\nStatus: deinstall ok config-files\nArchitecture: all\nVersion: 1.0\n")
        (rootfs / "usr" / "lib" / "os-release").write_text('VERSION_CODENAME="trixie"\n')
        built = built_image("spilo-compatible", rootfs)
    checks["an image built from Debian's packages: each installed one, nothing removed, in the image's distribution"] = (
        [c["purl"] for c in built["components"]], ["pkg:deb/debian/patroni@4.0.7-3~deb13u1?arch=all&distro=debian-trixie"])
    failed = [f"{what}: {got}, not {expected}" for what, (got, expected) in checks.items() if got != expected]
    if failed:
        sys.exit("sbom.py's check does not bite: " + "; ".join(failed))
    print(f"sbom.py: {len(checks)} self-tests passed")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    action = parser.add_mutually_exclusive_group(required=True)
    action.add_argument("--write", type=pathlib.Path, metavar="DIR")
    action.add_argument("--check", type=pathlib.Path, metavar="DIR")
    action.add_argument("--self-test", action="store_true")
    action.add_argument("--built-image", nargs=3, metavar=("NAME", "ROOTFS", "OUT"))
    args = parser.parse_args(argv)
    if args.self_test:
        return self_test()
    if args.built_image:
        name, rootfs, out = args.built_image
        bom = built_image(name, pathlib.Path(rootfs))
        pathlib.Path(out).parent.mkdir(parents=True, exist_ok=True)
        pathlib.Path(out).write_text(text(bom))
        print(f"SBOM of {REPOSITORY}/{name}: {len(bom['components'])} components, in {out}")
        return
    with tempfile.TemporaryDirectory() as work:
        found = images(work)
    if args.write:
        args.write.mkdir(parents=True, exist_ok=True)
        for stale in set(args.write.glob("*.cdx.json")) - {args.write / f"{n}.cdx.json" for n in found}:
            stale.unlink()
        for name, bom in found.items():
            (args.write / f"{name}.cdx.json").write_text(text(bom))
        print(f"{len(found)} SBOMs in {args.write}: {', '.join(found)}")
        return
    kept = {p.name.removesuffix(".cdx.json"): p.read_text() for p in args.check.glob("*.cdx.json")}
    if drifted(found, kept):
        sys.exit(f"{args.check}: the SBOMs of {', '.join(drifted(found, kept))} are not what the dependencies give "
                 "now: make sbom writes them again (after a change of dependencies)")
    print(f"{len(found)} SBOMs in {args.check} are what the dependencies give ({', '.join(found)})")


if __name__ == "__main__":
    main()
