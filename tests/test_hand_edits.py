"""A MEMORY.md a person edited by hand: read as typed or refused with `path:line`, and never rewritten lossily.

Hardening items 3 (duplicate keys lose facts) and 4 (YAML 1.1 coercion changes hand-typed values).
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import yaml
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from memfiles.cli import app
from memfiles.errors import FileFormatError
from memfiles.format.memoryfile import parse

runner = CliRunner()
PATH = "users/a/MEMORY.md"


def fact(n: int, value: str, key: str | None = None) -> str:
    """One fact as a person would type it into the list, `value` exactly as typed after `value: `."""
    key = key or f"k{n}"
    return (
        f"- id: f-{n:08x}\n"
        f"  key: {key}\n"
        f"  value: {value}\n"
        "  subject: user_preference\n"
        "  confidence: stated\n"
        "  source: user_statement\n"
        f"  stated_at: 2026-01-0{1 + n % 9}\n"
    )


def memory_file(*facts: str, facts_key_twice: bool = False) -> str:
    if facts_key_twice:
        half = len(facts) // 2
        listing = "facts:\n" + "".join(facts[:half]) + "facts:\n" + "".join(facts[half:])
    else:
        listing = "facts:\n" + "".join(facts)
    return f"---\nscope: user:a\n{listing}---\n# user:a\n\nMy own notes.\n"


def write(home: Path, text: str) -> Path:
    path = home / PATH
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def line_of(text: str, needle: str, occurrence: int = 1) -> int:
    """The 1-based line of the `occurrence`-th line that starts with `needle` (after indentation)."""
    hits = [n for n, line in enumerate(text.splitlines(), 1) if line.lstrip().startswith(needle)]
    return hits[occurrence - 1]


# --- item 3: duplicate keys ------------------------------------------------------------------------------


def test_a_facts_list_split_under_two_keys_is_an_error_everywhere_and_nothing_is_rewritten(home: Path) -> None:
    text = memory_file(fact(1, "email"), fact(2, "dark"), fact(3, "CAD"), fact(4, "weekly"), facts_key_twice=True)
    path = write(home, text)
    where = f"{PATH}:{line_of(text, 'facts:', 2)}"

    linted = runner.invoke(app, ["lint", str(path)])
    assert linted.exit_code == 1 and f"{where}:" in linted.output and "'facts' appears twice" in linted.output

    shown = runner.invoke(app, ["show", "-u", "a"])
    assert shown.exit_code == 1 and f"{where}: " in shown.output and "'facts' appears twice" in shown.output

    added = runner.invoke(app, ["add", "-u", "a", "timezone", "UTC"])
    assert added.exit_code == 1 and "'facts' appears twice" in added.output
    assert path.read_text() == text


def test_a_fact_with_two_value_lines_is_an_error_naming_the_second(home: Path) -> None:
    one = fact(1, "email").replace("  value: email\n", "  value: email\n  value: sms\n")
    text = memory_file(one, fact(2, "dark"))
    path = write(home, text)

    shown = runner.invoke(app, ["show", "-u", "a"])
    assert shown.exit_code == 1
    assert f"{PATH}:{line_of(text, 'value: sms')}: " in shown.output and "'value' appears twice" in shown.output
    added = runner.invoke(app, ["add", "-u", "a", "k1", "push"])
    assert added.exit_code == 1 and path.read_text() == text


def test_the_parser_reports_a_duplicate_key_with_its_line() -> None:
    text = memory_file(fact(1, "a"), fact(2, "b"), facts_key_twice=True)
    with pytest.raises(FileFormatError, match=rf"^{re.escape(PATH)}:{line_of(text, 'facts:', 2)}: "):
        parse(text.encode(), PATH, "user:a")


# --- item 4: what was typed is what is read --------------------------------------------------------------

TYPED = ["no", "on", "yes", "off", "y", "n", "True", "1:30", "0777", "007", "12.50", "1e3", "0x1F", ".inf", "-.5"]
TYPED += ["2026-01-01", "2026-01-01 10:00:00", "1_000", "+12", "null value", "~tilde", "NaN"]


@pytest.mark.parametrize("typed", TYPED)
def test_a_plain_value_reads_back_as_the_text_typed_and_survives_the_next_write(home: Path, typed: str) -> None:
    write(home, memory_file(fact(1, typed), fact(2, "dark")))

    shown = runner.invoke(app, ["show", "-u", "a", "--json"])
    assert shown.exit_code == 0, shown.output
    assert shown.stdout.count(f'"value": "{typed}"') == 1

    assert runner.invoke(app, ["add", "-u", "a", "timezone", "UTC"]).exit_code == 0
    doc = parse((home / PATH).read_bytes(), PATH, "user:a")
    assert {f.key: f.value for f in doc.facts} == {"k1": typed, "k2": "dark", "timezone": "UTC"}
    assert doc.body == b"# user:a\n\nMy own notes.\n"


@pytest.mark.parametrize("typed", ["~", "null", "Null", "", '""', "''", "|", "'   '"])
def test_a_missing_or_empty_value_is_refused_with_its_line(home: Path, typed: str) -> None:
    text = memory_file(fact(1, "email"), fact(2, typed))
    path = write(home, text)
    where = f"{PATH}:{line_of(text, 'value:', 2)}: "

    shown = runner.invoke(app, ["show", "-u", "a"])
    assert shown.exit_code == 1 and where in shown.output and "value" in shown.output
    linted = runner.invoke(app, ["lint", str(path)])
    assert linted.exit_code == 1 and where.rstrip(" ") in linted.output
    assert runner.invoke(app, ["add", "-u", "a", "k9", "x"]).exit_code == 1
    assert path.read_text() == text


# --- the fuzz test: any hand edit reads back as typed or is refused; no write drops a fact ------------------

# Plain scalars built from what people type into a value: words, digits and the punctuation YAML 1.1
# resolves (":", ".", "-", "_", "+", "~", "0x"); plus whole documents with a key typed twice.
plain = st.text(alphabet="abnoyesTrufl0123456789:._-+~x ", min_size=1, max_size=12).map(str.strip).filter(bool)
keys = st.sampled_from(["k1", "k2", "k3"])


NULLS = {"", "~", "null", "Null", "NULL"}


def typed_values(text: str) -> list[str] | None:
    """What the person typed as each fact's `value`: the YAML nodes' text before any tag is resolved.
    None when the document is not YAML, or a value is a null (missing): the cases a refusal is right."""
    front = text.removeprefix("---\n").split("\n---\n")[0]  # a value may itself be `---`
    try:
        root = yaml.compose(front, Loader=yaml.SafeLoader)
    except yaml.YAMLError:
        return None
    assert isinstance(root, yaml.MappingNode)
    facts = [v for k, v in root.value if k.value == "facts"][-1]
    typed = []
    for item in facts.value:
        node = {k.value: v for k, v in item.value}["value"]
        if not isinstance(node, yaml.ScalarNode) or node.value in NULLS:
            return None
        typed.append(node.value)
    return typed


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(values=st.lists(plain, min_size=1, max_size=4), fact_keys=st.lists(keys, min_size=4, max_size=4))
@example(values=["---"], fact_keys=["k1", "k1", "k1", "k1"])  # a value that is a frontmatter fence's text
def test_any_hand_edit_reads_back_as_typed_or_is_refused_and_no_write_drops_a_fact(
    home: Path, values: list[str], fact_keys: list[str]
) -> None:
    facts = [fact(n, value, fact_keys[n]) for n, value in enumerate(values)]
    split = len(facts) > 1 and fact_keys[3] == "k1"
    text = memory_file(*facts, facts_key_twice=split)
    path = write(home, text)
    typed = None if split else typed_values(text)

    try:
        doc = parse(text.encode(), PATH, "user:a")
    except FileFormatError as exc:
        assert typed is None, f"refused although every value was typed text {typed}: {exc}"
        assert re.match(rf"{re.escape(PATH)}:\d+: ", str(exc)), str(exc)
        assert runner.invoke(app, ["add", "-u", "a", "zz", "new"]).exit_code == 1
        assert path.read_text() == text
        return

    assert typed is not None and [f.value for f in doc.facts] == typed == values
    before = {f.id: f.value for f in doc.facts}
    result = runner.invoke(app, ["add", "-u", "a", "zz", "new"])
    assert result.exit_code == 0, result.output
    after = {f.id: f.value for f in parse(path.read_bytes(), PATH, "user:a").facts}
    assert before.items() <= after.items()
