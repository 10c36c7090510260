"""The extractor protocol (FORMAT.md, "Extractor"): request, published schema, subprocess failures, validation."""

from __future__ import annotations

import json
import os
import py_compile
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest
from typer.testing import CliRunner

from memfiles import clock
from memfiles.cli import app
from memfiles.errors import UsageError
from memfiles.format.episodes import Episode
from memfiles.format.extractor import ExtractorOutput, extractor_schema
from memfiles.format.model import Fact
from memfiles.ops import extractor
from memfiles.ops.extractor import ExtractorError

ROOT = Path(__file__).resolve().parent.parent
FAKE = Path(__file__).resolve().parent / "fake_extractor.py"
runner = CliRunner()


def fake(mode: str) -> str:
    return f"{sys.executable} {FAKE} {mode}"


def fact(fact_id: str = "f-1a5de624", key: str = "goal", value: str = "save for house deposit") -> Fact:
    return Fact(
        id=fact_id,
        key=key,
        value=value,
        subject="goal",
        confidence="stated",
        source="user_statement",
        stated_at="2026-03-14",
        valid_from="2026-03-14",
    )


def episode(summary: str = "The user completed the purchase of their flat.") -> Episode:
    return Episode(
        id="e-5674c85fcbcd", scope="user:dana", started_at="2026-07-11T15:30:00Z", summary=summary, session="s-27"
    )


def payload() -> dict[str, object]:
    return extractor.request("user:dana", clock.parse_when("2026-07-18"), [fact()], [episode()])


# --- the prompt and where it ships ---


def test_packaged_prompt_is_the_documented_copy() -> None:
    text = extractor.prompt()
    assert text == (ROOT / "templates" / "consolidate.md").read_text(encoding="utf-8")
    assert "Review every existing fact" in text and "Only then extract new facts" in text


def test_prompt_passes_the_write_guard_itself() -> None:
    from memfiles.lint.rules import check_text

    # The prompt does address a model (a warning such as MEM109 is expected); it carries nothing the guard refuses.
    assert [f for f in check_text(extractor.prompt()) if f.severity == "error"] == []


def test_an_installed_copy_of_the_package_reads_the_prompt(tmp_path: Path) -> None:
    # What a non-editable install ships: setuptools' build_py output (the wheel's contents), outside the tree.
    source = tmp_path / "src"
    source.mkdir()
    for name in ("pyproject.toml", "README.md"):
        shutil.copy(ROOT / name, source / name)
    shutil.copytree(ROOT / "memfiles", source / "memfiles", ignore=shutil.ignore_patterns("__pycache__"))
    built = tmp_path / "lib"
    done = subprocess.run(
        [sys.executable, "-c", "from setuptools import setup; setup()", "-q", "build_py", "--build-lib", str(built)],
        cwd=source,
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stderr
    code = "import memfiles, memfiles.ops.extractor as e; print(memfiles.__file__); print(e.prompt(), end='')"
    env = {**os.environ, "PYTHONPATH": str(built)}
    shown = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, env=env, capture_output=True, text=True)
    assert shown.returncode == 0, shown.stderr
    where, text = shown.stdout.split("\n", 1)
    assert where.startswith(str(built))
    assert text == (ROOT / "templates" / "consolidate.md").read_text(encoding="utf-8")


# --- the request and the schema ---


def test_request_carries_prompt_facts_episodes_and_schema() -> None:
    request = payload()
    assert request["version"] == 1 and request["scope"] == "user:dana" and request["now"] == "2026-07-18"
    assert request["prompt"] == extractor.prompt()
    assert request["facts"] == [fact().to_dict()]
    assert request["episodes"] == [episode().to_dict()]
    assert request["response_schema"] == extractor_schema()
    json.dumps(request)  # plain JSON


def test_mem_schema_extractor_prints_the_published_schema() -> None:
    result = runner.invoke(app, ["schema", "extractor"])
    assert result.exit_code == 0
    schema = json.loads(result.stdout)
    assert schema == json.loads(json.dumps(extractor_schema()))
    assert schema["required"] == ["supersede", "expire", "new"]
    assert schema["additionalProperties"] is False
    assert all(d["additionalProperties"] is False for d in schema["$defs"].values())
    assert schema["$defs"]["ExtractorFact"]["required"] == ["key", "value", "subject"]
    assert runner.invoke(app, ["schema", "nothing"]).exit_code == 2


# --- validating an answer ---


def test_a_valid_answer_parses() -> None:
    answer = extractor.parse_output(
        '{"supersede": [{"id": "f-1a5de624", "reason": "bought the house", "episode": "e-5674c85fcbcd"}],'
        ' "expire": [], "new": [{"key": "goal", "value": "build emergency fund", "subject": "goal"}]}'
    )
    assert answer.supersede[0].episode == "e-5674c85fcbcd"
    assert answer.new[0].confidence == "inferred"


def test_invalid_json_is_a_clear_error() -> None:
    with pytest.raises(ExtractorError) as caught:
        extractor.parse_output("Sure! {nope", "llm")
    message = str(caught.value)
    assert message.startswith("extractor 'llm' printed invalid JSON (line 1, column 1: Expecting value)")
    assert "nothing was applied" in message and "Sure! {nope" in message


@pytest.mark.parametrize(
    ("answer", "where"),
    [
        ({"supersede": [], "expire": []}, "new: Field required"),
        ({"supersede": [], "expire": [], "new": [], "keep": []}, "keep: Extra inputs are not permitted"),
        ({"supersede": [], "expire": [], "new": [{"key": "goal", "value": "x", "subject": "wish"}]}, "new.0.subject"),
        ({"supersede": [], "expire": [], "new": [{"key": "Goal!", "value": "x", "subject": "goal"}]}, "new.0.key"),
        ({"supersede": [], "expire": [], "new": [{"key": "goal", "value": 5, "subject": "goal"}]}, "new.0.value"),
        ({"supersede": [{"id": "f-1", "reason": "r", "why": "x"}], "expire": [], "new": []}, "supersede.0.why"),
        ([], "answer"),
    ],
)
def test_schema_errors_name_the_field(answer: object, where: str) -> None:
    with pytest.raises(ExtractorError) as caught:
        extractor.parse_output(json.dumps(answer), "llm")
    message = str(caught.value)
    assert "does not match the schema (`mem schema extractor`)" in message and where in message
    assert message.endswith("nothing was applied")


def answer(**parts: object) -> ExtractorOutput:
    return ExtractorOutput.model_validate({"supersede": [], "expire": [], "new": [], **parts})


def test_check_ids_refuses_unknown_or_repeated_ids() -> None:
    facts, episodes = {"f-1a5de624"}, {"e-5674c85fcbcd"}
    extractor.check_ids(answer(supersede=[{"id": "f-1a5de624", "reason": "r"}]), facts, episodes)
    with pytest.raises(ExtractorError, match=r"supersede #1 names fact 'f-deadbeef', which is not one of"):
        extractor.check_ids(answer(supersede=[{"id": "f-deadbeef", "reason": "r"}]), facts, episodes)
    with pytest.raises(ExtractorError, match=r"names fact 'f-1a5de624' twice \(supersede #1 and expire #1\)"):
        both = {"id": "f-1a5de624", "reason": "r"}
        extractor.check_ids(answer(supersede=[both], expire=[both]), facts, episodes)
    with pytest.raises(ExtractorError, match=r"new #1 names episode 'e-000000000000'"):
        new = {"key": "goal", "value": "x", "subject": "goal", "episode": "e-000000000000"}
        extractor.check_ids(answer(new=[new]), facts, episodes)


# --- running the command ---


def test_run_sends_the_request_and_returns_the_answer(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    log = tmp_path / "requests.jsonl"
    monkeypatch.setenv("FAKE_EXTRACTOR_LOG", str(log))
    result = extractor.run(fake("valid"), payload(), timeout=30)
    assert [d.id for d in result.supersede] == ["f-1a5de624"]
    assert result.supersede[0].reason == "user completed a property purchase on 2026-07-11"
    assert json.loads(log.read_text()) == json.loads(json.dumps(payload()))


def test_non_zero_exit_reports_the_stderr_tail() -> None:
    with pytest.raises(ExtractorError) as caught:
        extractor.run(fake("fail"), payload(), timeout=30)
    assert str(caught.value) == (
        f"extractor {sys.executable!r} exited with status 3; its stderr ended with: "
        "model overloaded, try again later; nothing was applied"
    )


def test_timeout_stops_the_extractor_and_its_children() -> None:
    started = time.monotonic()
    with pytest.raises(ExtractorError, match=r"did not finish within 0.5 s \(mem.toml \[consolidate\] extractor_ti"):
        extractor.run(fake("sleep"), payload(), timeout=0.5)
    assert time.monotonic() - started < 30  # not the child's 60 s: the whole process group was stopped


def script(tmp_path: Path, name: str, body: str) -> str:
    """An extractor command running a small Python program."""
    path = tmp_path / f"{name}.py"
    path.write_text(body)
    return f"{sys.executable} {path}"


def run_guarded(command: str, timeout: float) -> str:
    """Run an extractor in a child Python process and return its error. The child's subprocess timeout only
    guards against a hang, and its address space is capped so that a regression fails here, not the machine."""
    code = (
        "import resource\n"
        "resource.setrlimit(resource.RLIMIT_AS, (1 << 30, 1 << 30))\n"
        "from memfiles.ops import extractor\n"
        "try:\n"
        f"    extractor.run({command!r}, {{'version': 1}}, timeout={timeout})\n"
        "except extractor.ExtractorError as exc:\n"
        "    print(exc)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=timeout + 60)
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


def test_an_extractor_that_prints_without_end_is_stopped_at_the_cap() -> None:
    yes = shutil.which("yes")
    assert yes is not None
    said = run_guarded("yes", timeout=30)
    assert said == "extractor 'yes' printed more than 16 MiB on stdout; it was stopped and nothing was applied"


def test_an_extractor_that_prints_slowly_without_end_is_stopped_at_its_timeout(tmp_path: Path) -> None:
    # Never reaches the cap before the timeout, and spams stderr too: only the end of stderr is kept.
    forever = script(
        tmp_path,
        "forever",
        "import subprocess, sys, time\n"
        "subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(60)'])\n"
        "while True:\n"
        "    sys.stdout.write('{' * 100); sys.stdout.flush()\n"
        "    sys.stderr.write('complaint ' * 1000); sys.stderr.flush()\n"
        "    time.sleep(0.001)\n",
    )
    started = time.monotonic()
    said = run_guarded(forever, timeout=1)
    assert said == (
        f"extractor {sys.executable!r} did not finish within 1 s (mem.toml [consolidate] extractor_timeout); "
        "it was stopped and nothing was applied"
    )
    assert time.monotonic() - started < 30  # not the child's 60 s: the whole process group was stopped


def test_a_long_stderr_is_quoted_by_its_end(tmp_path: Path) -> None:
    noisy = script(
        tmp_path,
        "noisy",
        "import sys\nsys.stderr.write('x' * 5_000_000 + ' the real reason')\nsys.exit(4)\n",
    )
    with pytest.raises(ExtractorError) as caught:
        extractor.run(noisy, payload(), timeout=30)
    assert str(caught.value).endswith("x the real reason; nothing was applied")
    assert len(str(caught.value)) < 1000


def test_an_answer_of_a_few_megabytes_still_works(tmp_path: Path) -> None:
    big = script(
        tmp_path,
        "big",
        "import json, sys\n"
        "request = json.load(sys.stdin)\n"
        "fact = request['facts'][0]['id']\n"
        "answer = {'supersede': [{'id': fact, 'reason': 'r' * 3_000_000}], 'expire': [], 'new': []}\n"
        "sys.stdout.write(json.dumps(answer, indent=2) + ' ' * 2_000_000)\n",
    )
    result = extractor.run(big, payload(), timeout=30)
    assert [d.id for d in result.supersede] == ["f-1a5de624"] and len(result.supersede[0].reason) == 3_000_000


def test_a_runaway_extractor_leaves_the_home_as_it_was(home: Path) -> None:
    def mem(*args: str) -> str:
        done = runner.invoke(app, list(args), env={"MEM_NOW": "2026-07-18"})
        assert done.exit_code == (1 if args[0] == "consolidate" else 0), done.output
        return done.output

    def state() -> tuple[str, dict[str, bytes]]:
        head = subprocess.run(["git", "-C", str(home), "rev-parse", "HEAD"], capture_output=True, text=True).stdout
        files = {p.as_posix(): p.read_bytes() for p in sorted(home.rglob("*")) if p.is_file() and ".git" not in p.parts}
        return head, {name: data for name, data in files.items() if "/.cache/" not in name}

    mem("add", "goal", "save for house deposit", "--subject", "goal", "-u", "dana")
    mem("episode", "The user bought a flat.", "--session", "s-27", "-u", "dana")
    before = state()
    said = mem("consolidate", "-u", "dana", "--extractor", "yes")
    assert "user:dana: extractor 'yes' printed more than 16 MiB on stdout; it was stopped" in said
    assert state() == before


def test_missing_command_and_empty_command() -> None:
    with pytest.raises(ExtractorError, match=r"cannot run extractor 'no-such-extractor-x': No such file"):
        extractor.run("no-such-extractor-x --flag", payload(), timeout=5)
    with pytest.raises(UsageError, match="no extractor command"):
        extractor.run("   ", payload(), timeout=5)
    with pytest.raises(UsageError, match="cannot be split into words"):
        extractor.run("llm 'unclosed", payload(), timeout=5)


def test_the_command_is_not_run_through_a_shell(tmp_path: Path) -> None:
    marker = tmp_path / "pwned"
    with pytest.raises(ExtractorError):
        extractor.run(f"{sys.executable} {FAKE} fail; touch {marker}", payload(), timeout=30)
    assert not marker.exists()


# --- the example extractor ---


def test_example_llm_extractor_compiles(tmp_path: Path) -> None:
    script = ROOT / "examples" / "extractor" / "llm_extractor.py"
    py_compile.compile(str(script), doraise=True, cfile=str(tmp_path / "llm_extractor.pyc"))


def test_example_llm_extractor_builds_its_llm_call_without_running_it() -> None:
    import importlib.util

    spec = importlib.util.spec_from_file_location("llm_extractor", ROOT / "examples" / "extractor" / "llm_extractor.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    request = payload()
    argv, stdin = module.llm_call(request, model="some-model")
    assert argv[:2] == ["llm", "prompt"] and "--no-stream" in argv and argv[argv.index("-m") + 1] == "some-model"
    assert json.loads(argv[argv.index("--schema") + 1]) == request["response_schema"]
    assert argv[argv.index("--system") + 1] == request["prompt"]
    assert json.loads(stdin) == {"facts": request["facts"], "episodes": request["episodes"], "now": "2026-07-18"}
    assert module.extract_json('Here you go:\n```json\n{"new": []}\n```\n') == {"new": []}


def test_the_format_doc_answer_example_is_valid() -> None:
    import re

    doc = (ROOT / "docs" / "FORMAT.md").read_text(encoding="utf-8")
    example = re.findall(r"```json extractor-example\n(.*?)```", doc, re.S)[0]
    parsed = extractor.parse_output(example)
    extractor.check_ids(parsed, {"f-1a5de624"}, {"e-704353ecdb51"})
    assert parsed.new[0].value == "build emergency fund"
