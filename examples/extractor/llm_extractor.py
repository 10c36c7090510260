#!/usr/bin/env python3
"""An example memfiles extractor that asks a language model through the `llm` command-line tool.

    pip install llm && llm keys set openai          # or any llm plugin and its model
    mem consolidate -u dana --extractor "python examples/extractor/llm_extractor.py"
    MEM_LLM_MODEL=gpt-4o-mini mem consolidate ...   # optional: the model (default: llm's default)

It reads mem's request on stdin, runs `llm prompt` with the request's prompt as the system prompt,
the facts and episodes as the message and the response schema as `--schema`, and prints the model's
JSON answer. It decides nothing itself: mem validates the answer against `mem schema extractor` and
puts every change through its guarded write path, so an instruction-shaped "fact" is still refused.
Standard library only; needs Python 3.9+.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from typing import Any

_FENCE = re.compile(r"```(?:json)?\s*\n(.*?)```", re.S)


def llm_call(request: dict[str, Any], model: str | None = None) -> tuple[list[str], str]:
    """The `llm` command line and the message it reads on stdin for one request."""
    argv = ["llm", "prompt", "--no-stream", "--system", request["prompt"]]
    argv += ["--schema", json.dumps(request["response_schema"])]
    if model:
        argv += ["-m", model]
    message = {"now": request["now"], "facts": request["facts"], "episodes": request["episodes"]}
    return argv, json.dumps(message, ensure_ascii=False, indent=1)


def extract_json(text: str) -> Any:
    """The JSON object in a model's answer (bare, or inside a fenced code block)."""
    fenced = _FENCE.search(text)
    body = fenced.group(1) if fenced else text
    try:
        return json.loads(body)
    except json.JSONDecodeError:
        start, end = body.find("{"), body.rfind("}")
        if start < 0 or end < start:
            raise ValueError(f"no JSON object in the answer: {text[:200]!r}") from None
        return json.loads(body[start : end + 1])


def main() -> int:
    request = json.load(sys.stdin)
    argv, message = llm_call(request, os.environ.get("MEM_LLM_MODEL") or None)
    try:
        done = subprocess.run(argv, input=message, capture_output=True, text=True)
    except FileNotFoundError:
        print("llm is not installed: pip install llm, then set a key (llm keys set openai)", file=sys.stderr)
        return 127
    if done.returncode != 0:
        sys.stderr.write(done.stderr)
        return done.returncode
    try:
        answer = extract_json(done.stdout)
    except ValueError as exc:
        print(f"the model did not answer with JSON: {exc}", file=sys.stderr)
        return 1
    json.dump(answer, sys.stdout, ensure_ascii=False)
    sys.stdout.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
