#!/usr/bin/env python3
"""The Python requirements installed with their hashes (pip's --require-hashes): every pin of a requirements file
carries the sha256 of each file pip would install for it on the machines make doctor accepts (Linux on x86-64 or
arm64, CPython 3.11 to 3.14), as the package index lists them; pip then refuses any other file under that name.

    scripts/supply-chain/hashes.py write FILE…    each pin's hashes, asked of the index with pip itself (a dry run that
                                                 resolves each platform's wheel and downloads nothing), written under it
    scripts/supply-chain/hashes.py check FILE…    fails where a pin has no hash (make test-static)
    scripts/supply-chain/hashes.py --self-test    a hash that is not the file's is refused by pip (needs the index)

Run `write` after changing a pin; pip's own client reads the index, with its configuration (its mirror, its proxy)."""
import json
import pathlib
import re
import subprocess
import sys
import tempfile

# each architecture as a glibc 2.28 or newer machine takes its wheels (Debian 12 has 2.36): the newest tag it supports
# first, then the older ones a wheel may carry alone
PLATFORMS = {arch: tuple(f"{tag}_{arch}" for tag in ("manylinux_2_28", "manylinux_2_27", "manylinux_2_17", "manylinux2014"))
             for arch in ("x86_64", "aarch64")}
PYTHONS = ("3.11", "3.12", "3.13", "3.14")
PIN = re.compile(r"^([A-Za-z0-9_.\-\[\]]+)==([^\s\\;]+)")


def pins(text):
    """[(name, version)] of a requirements file's pins, in order."""
    return [match.groups() for line in text.splitlines() if (match := PIN.match(line.strip()))]


def resolved(found, platforms, python, pip=(sys.executable, "-m", "pip")):
    """{name: sha256} of the files pip would install for these pins on a platform (its tags) and Python, without
    downloading them; None where one has no file for it."""
    with tempfile.TemporaryDirectory() as work:
        report = pathlib.Path(work) / "report.json"
        done = subprocess.run([*pip, "install", "--dry-run", "--quiet", "--disable-pip-version-check", "--no-deps",
                               "--only-binary=:all:", *(f"--platform={tag}" for tag in platforms),
                               "--python-version", python,
                               "--implementation", "cp", "--target", str(pathlib.Path(work) / "t"), "--report",
                               str(report), *(f"{name}=={version}" for name, version in found)],
                              capture_output=True, text=True)
        if done.returncode:
            return None
        return {item["metadata"]["name"].lower().replace("_", "-"):
                item["download_info"]["archive_info"]["hashes"]["sha256"]
                for item in json.loads(report.read_text())["install"]}


def write(path):
    """The file again, each pin followed by the hashes of its files on every platform and Python pip resolves it
    for; a pin pip cannot resolve for any stops it."""
    text = pathlib.Path(path).read_text()
    found = pins(text)
    hashes = {name.lower().replace("_", "-"): set() for name, _ in found}
    for platform, tags in PLATFORMS.items():
        for python in PYTHONS:
            each = resolved(found, tags, python)
            if each is None:  # one pin has no file there: ask for each alone, so that the others still count
                each = {}
                for pin in found:
                    each.update(resolved([pin], tags, python) or {})
            for name, sha in each.items():
                hashes[name].add(sha)
            print(f"{path}: {platform}, Python {python}: {len(each)} of {len(found)} pins", file=sys.stderr)
    missing = [name for name, found_hashes in hashes.items() if not found_hashes]
    if missing:
        sys.exit(f"{path}: no file of {', '.join(missing)} for any platform asked: pin another version")
    kept = [line for line in text.splitlines() if line.startswith("#") or not line.strip()]
    kept = kept[:next((i for i, line in enumerate(kept) if not line.strip()), len(kept))]  # the header
    lines = [*kept, ""] if kept else []
    for name, version in found:
        mine = sorted(hashes[name.lower().replace("_", "-")])
        lines.append(f"{name}=={version} \\")
        lines += [f"    --hash=sha256:{sha}" + (" \\" if i < len(mine) - 1 else "") for i, sha in enumerate(mine)]
    pathlib.Path(path).write_text("\n".join(lines) + "\n")


def check(path):
    """[problem]: each pin of the file without a hash."""
    text = pathlib.Path(path).read_text().replace("\\\n", " ")
    return [f"{path}: {line.split()[0]} has no --hash (scripts/supply-chain/hashes.py write {path})"
            for line in text.splitlines() if PIN.match(line.strip()) and "--hash=sha256:" not in line]


def self_test():
    """pip refuses a file whose hash is not the one written: a pure wheel, pinned with a wrong hash, in a dry run
    that still downloads it to check (pip checks every file it fetches)."""
    with tempfile.TemporaryDirectory() as work:
        requirements = pathlib.Path(work) / "requirements.txt"
        requirements.write_text("iniconfig==2.3.0 \\\n    --hash=sha256:" + "0" * 64 + "\n")
        done = subprocess.run([sys.executable, "-m", "pip", "download", "--quiet", "--disable-pip-version-check",
                               "--no-deps", "--require-hashes", "-r", str(requirements), "-d", work],
                              capture_output=True, text=True)
        assert done.returncode and "DO NOT MATCH THE HASHES" in done.stderr, done.stderr
        assert check(requirements) == []
        requirements.write_text("iniconfig==2.3.0\n")
        assert check(requirements) == [f"{requirements}: iniconfig==2.3.0 has no --hash "
                                       f"(scripts/supply-chain/hashes.py write {requirements})"]
    print("hashes.py --self-test: ok")


if __name__ == "__main__":
    command, files = (sys.argv[1] if len(sys.argv) > 1 else ""), sys.argv[2:]
    if command == "write" and files:
        for file in files:
            write(file)
    elif command == "check" and files:
        problems = [problem for file in files for problem in check(file)]
        print("\n".join(problems) or f"every pin of {', '.join(files)} has its hashes")
        sys.exit(1 if problems else 0)
    elif command == "--self-test":
        self_test()
    else:
        sys.exit(__doc__)
