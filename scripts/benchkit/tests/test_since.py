"""A figure says which code it describes: a page that quotes a summary measured before a change to the services fails
the figures check until it says so, in words rendered from git."""
import json
import subprocess

import pytest

from benchkit import figures
from benchkit.publish import since


def git(root, *arguments):
    return subprocess.run(["git", "-C", str(root), *arguments], check=True, capture_output=True, text=True).stdout.strip()


@pytest.fixture
def repository(tmp_path):
    """A repository with services at a first commit (where a summary was measured), then a change to web-api v3."""
    git(tmp_path, "init", "-q")
    git(tmp_path, "config", "user.email", "t@example.org")
    git(tmp_path, "config", "user.name", "t")
    code = tmp_path / "services" / "web-api" / "v3" / "src" / "main"
    code.mkdir(parents=True)
    (code / "Lookups.java").write_text("class Lookups {}\n")
    (tmp_path / "services" / "pom.xml").write_text("<project/>\n")
    git(tmp_path, "add", "-A")
    git(tmp_path, "commit", "-qm", "measured here")
    measured = git(tmp_path, "rev-parse", "--short", "HEAD")
    summaries = tmp_path / "docs" / "results"
    summaries.mkdir(parents=True)
    # a summary of a kind the registry knows, with a figure to quote (an A/B's)
    from benchkit.core import cells
    summary = {"schema": cells.SCHEMA, "design": "tracing", "modes": ["off", "on"], "commit": measured,
               "compared": cells.MODE, "reference": "off",
               "cells": [{"build": "v3", "mode": "off", "size": "0", "rounds": [{"complete_per_s": 400.0}]},
                         {"build": "v3", "mode": "on", "size": "0", "rounds": [{"complete_per_s": 300.0}]}]}
    summary["cells"] = cells.with_ratios(summary)
    (summaries / "cost.json").write_text(json.dumps(summary))
    (tmp_path / "README.md").write_text("v3 traced answers <!-- figure cost cells.[build=v3,mode=on].ratios.complete_per_s.median "
                                        "{:.2f}× -->0.75×<!-- /figure --> as much.\n")
    git(tmp_path, "add", "-A")
    git(tmp_path, "commit", "-qm", "published")
    return tmp_path, summaries, measured


def test_a_summary_measured_on_the_services_as_they_are_needs_no_statement(repository):
    root, summaries, _ = repository
    assert figures.check(root, summaries) == []


def test_a_quote_of_a_summary_older_than_a_services_change_fails_until_the_page_says_so(repository):
    root, summaries, measured = repository
    (root / "services" / "web-api" / "v3" / "src" / "main" / "Lookups.java").write_text("class Lookups { int n; }\n")
    git(root, "commit", "-qam", "a change to v3's look-ups")
    problems = figures.check(root, summaries)
    assert len(problems) == 1 and "README.md quotes docs/results/cost.json" in problems[0]
    # the statement, rendered from git, satisfies the check and names what changed
    readme = root / "README.md"
    readme.write_text(readme.read_text() + "\n<!-- since cost --><!-- /since -->\n")
    readme.write_text(figures.rendered(readme.read_text(), {"cost": json.loads((summaries / "cost.json").read_text())},
                                       "README.md", root))
    assert (f"docs/results/cost.json, at `{measured}`: the code v3 runs has changed since, in web-api v3 "
            "(`make since NAME=cost`).") in readme.read_text()
    git(root, "commit", "-qam", "said so")
    assert figures.check(root, summaries) == []
    # a later change to the code makes the statement stale: typed or left behind, it fails again
    (root / "services" / "pom.xml").write_text("<project><modules/></project>\n")
    git(root, "commit", "-qam", "a change to the parent pom")
    assert any("a figure is not its summary's" in problem for problem in figures.check(root, summaries))
    # make since lists each file, and whether its code changed
    assert since.listing(root, "cost", json.loads((summaries / "cost.json").read_text())).splitlines()[1:] == [
        "  code      services/pom.xml", "  code      services/web-api/v3/src/main/Lookups.java"]


def test_a_change_to_comments_alone_changes_no_figure_and_the_statement_says_so(repository):
    root, summaries, measured = repository
    lookups = root / "services" / "web-api" / "v3" / "src" / "main" / "Lookups.java"
    lookups.write_text("/** Why the look-ups are so. */\nclass Lookups {} // said again\n\n")
    (root / "services" / "pom.xml").write_text("<!-- a note -->\n<project/>\n")
    git(root, "commit", "-qam", "comments")
    assert figures.check(root, summaries) == []  # no statement needed
    summary = json.loads((summaries / "cost.json").read_text())
    assert since.statement(root, "cost", summary) == (f"docs/results/cost.json, at `{measured}`: the code is as it was "
                                                      "measured; only comments changed since (`make since NAME=cost`).")
    # what looks like a comment inside a string is code
    lookups.write_text('class Lookups { String u = "http://a"; }\n')
    git(root, "commit", "-qam", "a URL")
    before = 'class Lookups { String u = "http://b"; }'
    assert since.code_of("A.java", lookups.read_text()) != since.code_of("A.java", before)
    assert since.stale(root, summary)


@pytest.mark.parametrize("path", ["web-api/v1/src/main/Lookups.java", "web-api/v3/src/test/LookupsTest.java"])
def test_a_change_to_another_build_s_code_or_to_tests_alone_changes_no_figure(repository, path):
    root, summaries, _ = repository
    changed = root / "services" / path
    changed.parent.mkdir(parents=True, exist_ok=True)
    changed.write_text("class Changed {}\n")
    git(root, "add", "-A")
    git(root, "commit", "-qm", "another build's code, or a test")
    assert figures.check(root, summaries) == []


def test_the_commits_of_a_summary_are_its_own_and_each_run_s():
    assert since.commits_of({"commit": "dce3321, 6cfbdd4", "local": {"commit": "dce3321"},
                             "environment": {"git_commit": "0392ca0"}}) == ["dce3321", "6cfbdd4", "0392ca0"]
    assert since.modules(["services/web-api/v3/pom.xml", "services/web-api/v1/src/A.java", "services/tracing/pom.xml",
                          "services/pom.xml"]) == "web-api v1, v3, tracing, pom.xml"
