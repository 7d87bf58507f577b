"""Which code a published figure describes: a summary was measured at a commit (its own "commit", or each run's in
one that compares or combines runs), and the services may have changed since. Where the code they run has (more than
comments: code_of), a page that quotes the summary says so in one line rendered from git, between markers

    <!-- since NAME -->…<!-- /since -->

(whether that code changed, in which parts of the services, and `make since NAME=…`, which lists the files), and
`figures check` fails where a page quotes such a summary without one, or where one is not what git gives now. The
checkout's own tree is compared, so a change and the statement it makes stale are rendered and committed together."""
import json
import pathlib
import re
import subprocess

from benchkit import FLOOR, VERSIONS
from benchkit.core.sealing import AMENDED

SINCE = re.compile(r"<!-- since (\S+) -->(.*?)<!-- /since -->", re.DOTALL)
CODE = "services"  # the tree whose figures are measured: every build's code, its build files and builds.conf
COMMIT_KEYS = ("commit", "git_commit")
# the tests, their support, Maven's own JVM and what the image's build leaves out: no build runs them
NOT_SHIPPED = re.compile(r"/src/test/|^services/testing/|^services/\.mvn/|^services/\.dockerignore$")


def entries(summary):
    """(key, value) of every entry of every mapping a summary holds, at any depth, in order; its amendments left out
    (an amendment changed the summary, and measured nothing)."""
    def walk(value):
        if isinstance(value, dict):
            for key, item in value.items():
                yield key, item
                yield from walk(item)
        elif isinstance(value, list):
            for item in value:
                yield from walk(item)
    return walk({key: value for key, value in summary.items() if key != AMENDED})


def commits_of(summary):
    """The commits a summary's figures were measured at, in the order first met: its own, or every run's it holds
    (a combined summary's "dce3321, 6cfbdd4" is two)."""
    return list(dict.fromkeys(part.strip() for key, item in entries(summary) if key in COMMIT_KEYS and isinstance(item, str)
                              for part in item.split(",") if part.strip()))


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
    if not known(root, commit):
        return None
    return tuple(sorted(path for path in git(root, "diff", "--name-only", commit, "--", CODE).stdout.split()
                        if not NOT_SHIPPED.search(path)))


# What a file of the services says beyond its comments: a change that leaves it alone changes nothing a build runs.
# Java (and Go): its // and /* */ comments, outside string, text-block and character literals; XML (the poms): <!-- -->;
# everything else (properties, builds.conf, Dockerfiles, YAML, SQL): its whole-line comments (#, ! or --). Blank lines
# and trailing blanks go too. Anything else a change touches is code: a value, a dependency, a statement.
LINE_COMMENTS = {".properties": ("#", "!"), ".sql": ("--",)}


def without_comments_java(text):
    found, i, n = [], 0, len(text)
    while i < n:
        if text.startswith('"""', i):
            end = text.find('"""', i + 3)
            end = n if end < 0 else end + 3
            found.append(text[i:end])
            i = end
        elif text[i] in "\"'":
            quote, j = text[i], i + 1
            while j < n and text[j] != quote and text[j] != "\n":
                j += 2 if text[j] == "\\" else 1
            found.append(text[i:j + 1])
            i = j + 1
        elif text.startswith("//", i):
            end = text.find("\n", i)
            i = n if end < 0 else end
        elif text.startswith("/*", i):
            end = text.find("*/", i + 2)
            i = n if end < 0 else end + 2
        else:
            found.append(text[i])
            i += 1
    return "".join(found)


def code_of(path, text):
    """A file's text without its comments, blank lines and trailing blanks (LINE_COMMENTS above)."""
    suffix = pathlib.PurePath(path).suffix
    if suffix in (".java", ".go", ".kt"):
        text = without_comments_java(text)
    elif suffix == ".xml":
        text = re.sub(r"<!--.*?-->", "", text, flags=re.DOTALL)
    marks = LINE_COMMENTS.get(suffix, ("#",))
    lines = (line.rstrip() for line in text.splitlines())
    return "\n".join(line for line in lines if line and not line.lstrip().startswith(marks))


# {(root, commit, path): its code there, or None}: a commit never changes, so each is read once
COMMITTED: dict[tuple[str, str, str], str | None] = {}


def committed_code(root, commit, paths):
    """{path: its code (code_of) as the commit holds it, or None where it holds no such file}, the files not read
    before in one git process."""
    wanted = [path for path in paths if (str(root), commit, path) not in COMMITTED]
    if wanted:
        out = subprocess.run(["git", "-C", str(root), "cat-file", "--batch"], capture_output=True, check=True,
                             input="".join(f"{commit}:{path}\n" for path in wanted).encode()).stdout
        at = 0
        for path in wanted:  # each answer: "<object> blob <size>\n<content>\n", or "<name> missing\n"
            header, at = out[at:out.index(b"\n", at)].split(), out.index(b"\n", at) + 1
            text = None
            if header[-1] != b"missing":
                size = int(header[-1])
                text, at = code_of(path, out[at:at + size].decode(errors="replace")), at + size + 1
            COMMITTED[(str(root), commit, path)] = text
    return {path: COMMITTED[(str(root), commit, path)] for path in paths}


def served_differently(root, commit, paths):
    """The files of these, changed in the services' tree since a commit, that differ in more than their comments
    (added or removed: they do)."""
    then = committed_code(root, commit, paths)
    return {path for path in paths if then[path] is None or not (pathlib.Path(root) / path).exists()
            or then[path] != code_of(path, (pathlib.Path(root) / path).read_text(errors="replace"))}


BUILD_DIR = re.compile(r"^services/[^/]+/(v\d+)/")  # a build's own code of a service: services/<service>/<build>/
# the image each build's services are built into: the floor's own, and every other build's
DOCKERFILES = {"services/Dockerfile.floor": set(FLOOR), "services/Dockerfile.jvm": set(VERSIONS)}


def artifact_of(pom):
    """A module's own artifactId (the first after its parent's)."""
    text = re.sub(r"<parent>.*?</parent>", "", pom.read_text(), flags=re.DOTALL)
    found = re.search(r"<artifactId>([^<]+)</artifactId>", text)
    return found.group(1) if found else None


def build_poms(root):
    """[(build, its pom's text)] of every service's build in the checkout."""
    return [(pom.parent.name, pom.read_text()) for pom in pathlib.Path(root, "services").glob("*/v*/pom.xml")]


def used_by(root, path, poms):
    """The builds whose code a file of the services is part of: a build's own directory, an image's Dockerfile, a
    shared module by the builds whose poms (build_poms) name it; None for what every build reads (the parent pom,
    builds.conf)."""
    own = BUILD_DIR.match(path)
    if own:
        return {own.group(1)}
    if path in DOCKERFILES:
        return DOCKERFILES[path]
    parts = path.split("/")
    for depth in (3, 2):  # a service's own module (articles/model), then a module of the tree's top (jdbc)
        pom = pathlib.Path(root, *parts[:depth], "pom.xml")
        if len(parts) > depth and pom.exists() and (artifact := artifact_of(pom)):
            return {build for build, text in poms if f"<artifactId>{artifact}</artifactId>" in text}
    return None


BUILD = re.compile(r"v\d+")


def measured_builds(summary):
    """The builds a summary measured, or None where it names none: every build a cell, a run or a fault names ("build",
    "version", "versions"), and every key that is a build's name (a table per build)."""
    found = set()
    for key, item in entries(summary):
        found.add(key)
        if key in ("build", "version") and isinstance(item, str):
            found.add(item.split()[0])
        elif key == "versions" and isinstance(item, list):
            found.update(v for v in item if isinstance(v, str))
    return {build for build in found if isinstance(build, str) and BUILD.fullmatch(build)} or None


def changes(root, commits, builds=None):
    """(the files that differ since the oldest of the commits, those of them whose code differs, {file: the builds
    it is part of, used_by}): of every build, or of these builds' own code and what every build shares; None where
    git does not know a commit."""
    found = [changed_files(root, commit) for commit in commits]
    if any(files is None for files in found):
        return None
    poms = build_poms(root)
    users = {path: used_by(root, path, poms) for path in {f for files in found for f in files}}

    def ours(path):
        return builds is None or users[path] is None or bool(users[path] & builds)
    found = [tuple(f for f in files if ours(f)) for files in found]
    files = tuple(sorted({f for files in found for f in files}))
    differ = set().union(*(served_differently(root, commit, mine) for commit, mine in zip(commits, found)))
    code = tuple(f for f in files if f in differ)
    return files, code, users


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
    """One line of what a page says of the code a summary's figures describe, from git: whether the code the services
    run changed since it was measured, where, and the command that lists the files."""
    commits = commits_of(summary)
    if not commits:
        return f"docs/results/{name}.json names no commit: which code its figures describe is unknown."
    at = ", ".join(f"`{c}`" for c in commits)
    found = changes(root, commits, measured_builds(summary))
    if found is None:
        return (f"docs/results/{name}.json was measured at {at}, which this clone's history does not hold: which code "
                "its figures describe is unknown here.")
    files, code, users = found
    if not files:
        return f"docs/results/{name}.json, at {at}: the services are as they were measured."
    if not code:
        return (f"docs/results/{name}.json, at {at}: the code is as it was measured; only comments changed since "
                f"(`make since NAME={name}`).")
    builds = measured_builds(summary)
    if builds:  # of the builds measured, those whose code the changes are part of
        builds = set().union(*((users[path] or builds) & builds for path in code)) or builds
    of = f"the code {', '.join(sorted(builds))} run{'s' if len(builds) == 1 else ''}" if builds else "the services' code"
    return f"docs/results/{name}.json, at {at}: {of} has changed since, in {modules(code)} (`make since NAME={name}`)."


def listing(root, name, summary):
    """What `make since` prints: each file of the services changed since the summary was measured, code or comments."""
    commits = commits_of(summary)
    found = changes(root, commits, measured_builds(summary))
    if found is None:
        return f"{name}: measured at {', '.join(commits)}, which this clone's history does not hold"
    files, code, _ = found
    lines = [f"{name}: measured at {', '.join(commits)}; {len(code)} of {len(files)} changed files differ in code "
             f"(`git diff {commits[0]} -- {CODE}`)"]
    lines += [f"  {'code    ' if path in code else 'comments'}  {path}" for path in files]
    return "\n".join(lines)


def stale(root, summary):
    """Whether the code the services run changed after a summary was measured (or which code it describes cannot be
    told): a page that quotes it must say so."""
    commits = commits_of(summary)
    found = changes(root, commits, measured_builds(summary)) if commits else None
    return found is None or bool(found[1])


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
