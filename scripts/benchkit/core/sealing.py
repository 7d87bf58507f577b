"""A published summary is sealed: what it holds stays what the commit that first added it in its present form held
(its oldest committed version of the same schema and keys: a summary migrated to a new schema is sealed from then).
A later change is an amendment: an entry of its "amended" list names the commit, why, and the paths it changed
({"commit", "why", "paths": ["cells.2.rounds", …]}); a change no amendment covers fails the figures check. Derived
figures are recomputed by each kind's consistency check; the seal keeps the measured ones from being edited with
them (a round's figures, a chaos run's recovery seconds, a latency map's degraded and shed counts)."""
from benchkit.core import stats

AMENDED = "amended"


def unamended(summary):
    return {k: v for k, v in summary.items() if k != AMENDED}


def alike(summary):
    """Whether a committed version has the summary's schema and keys (amendments aside)."""
    return lambda version: (version.get("schema") == summary.get("schema")
                            and unamended(version).keys() == unamended(summary).keys())


def problems(summary, first, known):
    """Where a summary is not what it first was (first: (commit, that version) or None) and no amendment of a commit
    git knows (known(commit)) says why."""
    found = []
    amendments = summary.get(AMENDED, ())
    for amendment in amendments:
        if not amendment.get("why") or not amendment.get("paths"):
            found.append(f"an amendment of {amendment.get('commit')} says no why or no paths")
        elif not known(amendment.get("commit", "")):
            found.append(f"an amendment of {amendment.get('commit')}: no commit of that name")
    if first is None:
        return found
    covered = [path for amendment in amendments for path in amendment.get("paths", ())]
    changed = [path for path in stats.differences(unamended(summary), unamended(first[1]))
               if not any(path == c or path.startswith(f"{c}.") for c in covered)]
    return found + [f"{path} is not what it was when first committed at {first[0][:7]}: an amendment says why"
                    for path in changed[:3]] + ([f"and {len(changed) - 3} more"] if len(changed) > 3 else [])
