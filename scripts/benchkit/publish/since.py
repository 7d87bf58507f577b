"""Which code a published figure describes: a summary was measured at a commit (its own "commit", or each run's in
one that compares or combines runs), and the services may have changed since. Where they have, a page that quotes the
summary says so with a statement rendered from git, between markers

    <!-- since NAME -->…<!-- /since -->

(what changed in the services' tree between the summary's commit and the checkout: how many files, in which modules,
and the command that shows how), and `figures check` fails where a page quotes such a summary without one, or where
one is not what git gives now. The checkout's own tree is compared, so a change and the statement it makes stale are
rendered and committed together."""
import json
import pathlib
import re
import subprocess

from benchkit.core.sealing import AMENDED

SINCE = re.compile(r"<!-- since (\S+) -->(.*?)<!-- /since -->", re.DOTALL)
CODE = "services"  # the tree whose figures are measured: every build's code, its build files and builds.conf
COMMIT_KEYS = ("commit", "git_commit")
NOT_SHIPPED = re.compile(r"/src/test/|^services/testing/|^services/\.mvn/")  # the tests, their support, Maven's own JVM: no build runs them


def commits_of(summary):
    """The commits a summary's figures were measured at, in the order first met: its own, or every run's it holds
    (a combined summary's "dce3321, 6cfbdd4" is two); an amendment's commit changed it, and measured nothing."""
    found = []

    def visit(value):
        if isinstance(value, dict):
            for key, item in value.items():
                if key in COMMIT_KEYS and isinstance(item, str):
                    found.extend(part.strip() for part in item.split(",") if part.strip())
                else:
                    visit(item)
        elif isinstance(value, list):
            for item in value:
                visit(item)
    visit({key: value for key, value in summary.items() if key != AMENDED})
    return list(dict.fromkeys(found))


def git(root, *arguments):
    return subprocess.run(["git", "-C", str(root), *arguments], capture_output=True, text=True)


def in_git(root):
    return git(root, "rev-parse", "--is-inside-work-tree").stdout.strip() == "true"


def known(root, commit):
    """Whether git knows the commit."""
    return bool(commit) and not git(root, "cat-file", "-e", f"{commit}^{{commit}}").returncode


def first_committed(root, path):
    """The text of a file as the commit that added it held it; None for a file not committed yet."""
    added = git(root, "log", "--diff-filter=A", "--format=%H", "--", str(path)).stdout.split()
    return git(root, "show", f"{added[-1]}:{pathlib.Path(path).resolve().relative_to(pathlib.Path(root).resolve())}"
               ).stdout if added else None


def first_alike(root, path, alike):
    """The oldest committed version of a file that alike(version) accepts, as data, with its commit: (commit, data),
    or None (a file not committed yet, or none alike)."""
    relative = pathlib.Path(path).resolve().relative_to(pathlib.Path(root).resolve())
    for commit in reversed(git(root, "log", "--format=%H", "--", str(path)).stdout.split()):
        version = json.loads(git(root, "show", f"{commit}:{relative}").stdout)
        if alike(version):
            return commit, version
    return None


def changed_files(root, commit):
    """The files of the services' tree that differ between a commit and the checkout; None where git does not know
    the commit (a clone without that history cannot tell which code a figure describes)."""
    if git(root, "cat-file", "-e", f"{commit}^{{commit}}").returncode:
        return None
    return tuple(sorted(path for path in git(root, "diff", "--name-only", commit, "--", CODE).stdout.split()
                        if not NOT_SHIPPED.search(path)))


SERVICE_NAMES = ("articles", "authors", "web-api")


def modules(files):
    """The parts of the services the files belong to, in words: each service's builds and shared parts together
    ("web-api v1, v3"), then the libraries every build shares ("tracing") and the files of the tree's top
    ("pom.xml")."""
    parts = {}
    for path in files:
        names = path.split("/")[1:]
        if names[0] in SERVICE_NAMES and len(names) > 2:
            parts.setdefault(names[0], []).append(names[1])
        else:
            parts.setdefault(names[0], [])
    return ", ".join(f"{name} {', '.join(dict.fromkeys(sorted(found)))}" if found else name
                     for name, found in parts.items())


def statement(root, name, summary):
    """What a page says of the code a summary's figures describe, from git."""
    commits = commits_of(summary)
    if not commits:
        return f"docs/results/{name}.json names no commit: which code its figures describe is unknown."
    parts = []
    for commit in commits:
        files = changed_files(root, commit)
        if files is None:
            return (f"docs/results/{name}.json was measured at `{commit}`, which this clone's history does not hold: "
                    "which code its figures describe is unknown here.")
        if files:
            differ = "files differ" if len(files) > 1 else "file differs"
            parts.append(f"`{commit}`: {len(files)} {differ} now, in {modules(files)} "
                         f"(`git diff {commit} -- {CODE}`)")
    if not parts:
        return (f"docs/results/{name}.json was measured on the services as they are in this checkout "
                f"(at {', '.join(f'`{c}`' for c in commits)}).")
    return f"docs/results/{name}.json was measured on older services, at " + "; at ".join(parts) + "."


def stale(root, summary):
    """Whether the services changed after a summary was measured (or which code it describes cannot be told)."""
    commits = commits_of(summary)
    return not commits or any(changed_files(root, commit) != () for commit in commits)


def rendered(text, found, where, root):
    """The text with every since marker filled in from git (outside a git checkout: left as it is)."""
    if not in_git(root):
        return text

    def fill(match):
        name = match.group(1)
        if name not in found:
            raise SystemExit(f"{where}: no summary docs/results/{name}.json")
        return f"<!-- since {name} -->{statement(root, name, found[name])}<!-- /since -->"
    return SINCE.sub(fill, text)


def problems(text, quoted, found, where, root):
    """[problem]: a summary the page quotes whose figures describe code that has changed since, with no statement."""
    if not in_git(root):
        return []
    said = {match.group(1) for match in SINCE.finditer(text)}
    return [f"{where} quotes docs/results/{name}.json, measured at {', '.join(commits_of(found[name])) or 'no commit'}, "
            f"and the services have changed since: the page must say so (<!-- since {name} --><!-- /since -->, then "
            "make docs-figures)"
            for name in dict.fromkeys(quoted) if name in found and name not in said and stale(root, found[name])]
