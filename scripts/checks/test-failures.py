#!/usr/bin/env python3
"""Prints which contract tests failed, with their messages, from the surefire reports under services/.

Maven prints its summary of failures before the reactor's many lines of BUILD FAILURE; a log read from its
end (a CI's excerpt, a terminal's last screen) would show only those. `make test-services` runs this after
a failed build, so the last lines say which test failed and why.

  test-failures.py [--since EPOCH]
                            the failures and errors in the reports (written since EPOCH: a module the build
                            did not reach keeps an older run's); exit 0 even if there are none
"""
import argparse
import pathlib
import sys
import xml.etree.ElementTree as ElementTree

ROOT = pathlib.Path(__file__).resolve().parents[2]
MESSAGE_CHARACTERS = 600
OWN_FRAMES = 4  # the stack lines in the project's own code that place the failure


def failures(services, since=0.0):
    """(module, test, kind, message, own frames) of every failing test case in the reports written since then."""
    for report in sorted(services.glob("**/target/surefire-reports/TEST-*.xml")):
        if report.stat().st_mtime < since:
            continue
        module = report.parent.parent.parent.relative_to(services)
        for case in ElementTree.parse(report).getroot().iter("testcase"):
            for problem in [*case.findall("failure"), *case.findall("error")]:
                frames = [line.strip() for line in (problem.text or "").splitlines()
                          if line.strip().startswith("at io.reactivebench.")]
                yield (str(module), f"{case.get('classname', '?').rsplit('.', 1)[-1]}.{case.get('name', '?')}",
                       problem.get("type", problem.tag), problem.get("message") or "", frames[:OWN_FRAMES])


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--since", type=float, default=0.0, help="only reports written since (seconds since 1970)")
    found = list(failures(ROOT / "services", parser.parse_args().since))
    if not found:
        print("==> No failing test in the surefire reports (the build failed elsewhere: see above)")
        return 0
    print(f"==> {len(found)} failing contract test(s):")
    for module, test, kind, message, frames in found:
        print(f"  {module}: {test}  [{kind}]")
        text = " ".join(message.split())
        print(f"    {text[:MESSAGE_CHARACTERS]}{' …' if len(text) > MESSAGE_CHARACTERS else ''}")
        for frame in frames:
            print(f"      {frame}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
