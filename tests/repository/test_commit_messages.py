"""Commit messages say what changed in a short subject; the why and the figures go in the body.

Checked for every commit after the base of the rule (issue 43's base commit): older history keeps
its long subjects, since rewriting landed commits is not an option.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
RULE_BASE = "0463a7d"      # the last commit before the rule
MAX_SUBJECT = 72


def git(*args: str) -> str:
    return subprocess.run(["git", "-C", str(ROOT), *args], capture_output=True, text=True,
                          check=True).stdout


def commits_under_the_rule() -> list[str]:
    """Hashes after RULE_BASE; in a shallow clone without it, HEAD alone."""
    base_known = subprocess.run(["git", "-C", str(ROOT), "cat-file", "-e", f"{RULE_BASE}^{{commit}}"],
                                capture_output=True).returncode == 0
    if not base_known:
        return [git("rev-parse", "HEAD").strip()]
    return git("rev-list", f"{RULE_BASE}..HEAD").split()


def test_subjects_are_at_most_72_characters_and_a_blank_line_separates_the_body() -> None:
    bad = []
    for commit in commits_under_the_rule():
        message = git("log", "-1", "--format=%B", commit).rstrip("\n").split("\n")
        subject = message[0]
        if len(subject) > MAX_SUBJECT:
            bad.append(f"{commit[:9]}: subject of {len(subject)} characters: {subject[:80]}…")
        if len(message) > 1 and message[1].strip():
            bad.append(f"{commit[:9]}: no blank line between subject and body")
    assert not bad, "\n".join(bad)


def test_the_rule_base_is_in_the_history_of_a_full_clone() -> None:
    # A full clone must have the base; only a shallow one may fall back to HEAD alone.
    shallow = git("rev-parse", "--is-shallow-repository").strip() == "true"
    if not shallow:
        git("cat-file", "-e", f"{RULE_BASE}^{{commit}}")
