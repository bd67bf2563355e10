"""The documents' examples as tests/containers/test_doc_examples.py finds them: every marker is
understood, few examples are left out (each saying why), and every JSON body an example posts
says it is JSON (without the header the daemons answer 415: the guard against web pages)."""

from __future__ import annotations

import re

from testbed.doc_examples import all_examples, on_ports, strip_comment

EXAMPLES = all_examples()     # raises BadMarker on a marker it cannot read


def test_the_examples_are_found_and_few_are_skipped() -> None:
    assert len([e for e in EXAMPLES if e.lang != "python"]) >= 15, [e.id for e in EXAMPLES]
    skipped = {e.id: e.skip for e in EXAMPLES if e.skip is not None}
    assert len(skipped) <= 3, skipped
    assert all(reason.strip() for reason in skipped.values()), skipped


def test_every_json_body_an_example_sends_is_labelled_json() -> None:
    unlabelled = []
    for example in EXAMPLES:
        if example.lang == "python":
            continue
        # A command is its lines joined at their backslashes; a body is -d/--data.
        for command in re.split(r"(?<!\\)\n", example.code):
            command = " ".join(strip_comment(line) for line in command.split("\\\n"))
            if re.search(r"(?<![\w-])curl\b", command) and re.search(r"\s(-d|--data(-raw|-binary)?)\s", command) \
                    and "Content-Type: application/json" not in command:
                unlabelled.append(f"{example.id}: {command.strip()[:100]}")
    assert not unlabelled, "\n".join(unlabelled)


def test_ports_become_the_published_ones_and_others_stay() -> None:
    text = "D=http://127.0.0.1:8080; curl -s localhost:8122/health; http://127.0.0.1:8081/x"
    assert on_ports(text, {8080: 32768, 8122: 32769}) == \
        "D=http://127.0.0.1:32768; curl -s localhost:32769/health; http://127.0.0.1:8081/x"
