"""The capture hook's time, start to exit, on a 2,000-line Claude Code transcript, against W (issue 27).

    python bench/capture.py [--runs 7] [--work /tmp/mem-bench]

W is the simplification issue's baseline, `python -c "import typer, rich.console, pydantic, yaml, git"`:
the imports a write needs. `mem` is a regular install of this checkout in WORK/venv, as bench/run.py
makes it (the development install's import hook would add its own start-up), and W runs on that
venv's python; `--mem` times another `mem` (W then runs on this python). Each run is one whole
`mem capture --hook` process (SessionEnd) on a home of 200 episodes; the transcript grows by one
prompt before each run, so every run replaces the session's episode and commits, as a real hook at
PreCompact and SessionEnd does. Target: ≤ 1.5 × W. The median of `--runs`, ours and W interleaved
(A B A B …) so that a busy machine slows both alike.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import corpus
from timing import environment, regular_install

W_IMPORTS = "import typer, rich.console, pydantic, yaml, git"
SESSION = "bench-capture-0001"
LINES = 2000


def transcript(path: Path, extra: int) -> None:
    """A 2,000-line session: prompts, edits, commands with long outputs (which are never copied), failures."""
    lines = []
    n = 0
    while len(lines) < LINES:
        at = f"2026-09-01T{10 + n // 3600:02d}:{n // 60 % 60:02d}:{n % 60:02d}.000Z"
        base = {"sessionId": SESSION, "cwd": "/work/project", "timestamp": at}
        if n % 25 == 0:
            prompt = f"Step {n}: refactor the parser module so that the tokenizer handles case {n}"
            lines.append({**base, "type": "user", "message": {"role": "user", "content": prompt}})
        tool = ("Edit", {"file_path": f"/work/project/src/mod_{n % 40}.py", "old_string": "a", "new_string": "b"})
        if n % 3 == 1:
            tool = ("Bash", {"command": f"pytest -q tests/test_mod_{n % 40}.py"})
        use = {"type": "tool_use", "id": f"t{n}", "name": tool[0], "input": tool[1]}
        lines.append({**base, "type": "assistant", "message": {"role": "assistant", "content": [use]}})
        output = ("Exit code 1\n" if n % 17 == 0 else "") + "collected 40 items\n" + "." * 2000
        result = {"type": "tool_result", "tool_use_id": f"t{n}", "content": output, "is_error": n % 17 == 0}
        lines.append({**base, "type": "user", "message": {"role": "user", "content": [result]}})
        n += 1
    for k in range(extra):
        said = {"role": "user", "content": f"One more thing, number {k}: update the changelog entry"}
        lines.append({"sessionId": SESSION, "type": "user", "timestamp": "2026-09-01T18:00:00.000Z", "message": said})
    path.write_text("\n".join(json.dumps(line) for line in lines[: LINES + extra]) + "\n")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--work", type=Path, default=Path("/tmp/mem-bench"))
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--mem", help="the mem to time (default: a regular install of this checkout)")
    args = parser.parse_args()
    mem, python = (args.mem, sys.executable) if args.mem else regular_install(args.work)
    baseline = [python, "-c", W_IMPORTS]
    home = corpus.scope_home(args.work / "scope-200", 200)
    env = environment(home)
    path = args.work / "capture-transcript.jsonl"
    hook = json.dumps(
        {"session_id": SESSION, "transcript_path": str(path), "cwd": "/work/project", "hook_event_name": "SessionEnd"}
    )
    command = [mem, "capture", "--hook", "-u", "bench"]
    ours, theirs, episodes = [], [], []
    for run in range(args.runs + 1):  # the first of each is a warm-up
        transcript(path, run)
        started = time.perf_counter()
        done = subprocess.run(command, input=hook, env=env, capture_output=True, text=True, check=False)
        took = time.perf_counter() - started
        if done.returncode != 0 or done.stdout or done.stderr:
            raise SystemExit(f"the hook failed: {done.returncode} {done.stdout!r} {done.stderr!r}")
        started = time.perf_counter()
        subprocess.run(baseline, env=env, check=True)
        base = time.perf_counter() - started
        started = time.perf_counter()  # the reference: one `mem episode`, the write a capture makes
        episode = [mem, "episode", f"Bench capture reference {time.time_ns()}: refund issued", "-u", "bench"]
        subprocess.run(episode, env=env, check=True, capture_output=True)
        alone = time.perf_counter() - started
        if run:
            ours.append(took * 1000)
            theirs.append(base * 1000)
            episodes.append(alone * 1000)
    mine, w, one = statistics.median(ours), statistics.median(theirs), statistics.median(episodes)
    verdict = "ok" if mine <= 1.5 * w else "OVER"
    print(f"mem episode (reference), same home: {one:.0f} ms; {one / w:.2f} × W")
    print(
        f"mem capture --hook, {LINES}-line transcript: {mine:.0f} ms; W {w:.0f} ms; {mine / w:.2f} × W "
        f"(target ≤ 1.5 × W: {verdict})"
    )
    return 0 if verdict == "ok" else 1


if __name__ == "__main__":
    sys.exit(main())
