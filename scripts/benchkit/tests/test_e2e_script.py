"""What e2e-test.sh's own helpers do, run in bash with the services and curl stubbed."""
import re
import subprocess

import pytest

from benchkit import ROOT


def e2e_function(name):
    """A shell function of e2e-test.sh, as written there."""
    text = (ROOT / "scripts" / "checks" / "e2e-test.sh").read_text()
    return re.search(rf"^{name}\(\) {{.*?^}}$", text, re.DOTALL | re.MULTILINE).group(0)


@pytest.mark.parametrize("answers, status", [(["degraded"] * 20, 1), (["degraded", "complete"], 0)])
def test_e2e_s_complete_answer_fails_on_answers_that_stay_degraded(tmp_path, answers, status):
    # the byte-for-byte comparison after it must never run on an answer whose look-ups fell back
    (tmp_path / "answers").write_text("\n".join(answers) + "\n")
    script = f"""set -euo pipefail
info() {{ :; }}; die() {{ echo "$*" >&2; exit 1; }}; sleep() {{ :; }}; service_url() {{ :; }}
curl() {{ local first; first=$(head -1 {tmp_path}/answers); sed -i 1d {tmp_path}/answers
  if [[ $first == degraded ]]; then echo '[{{"authorBlog":null}}]'; else echo '[{{"authorBlog":"b"}}]'; fi; }}
{e2e_function("complete_answer")}
complete_answer v1 {tmp_path}/v1.json"""
    found = subprocess.run(["bash", "-c", script], capture_output=True, text=True)
    assert found.returncode == status, found.stderr
    assert ("20 answers in a row were degraded" in found.stderr) == bool(status)
