"""Extractor recipes: the LLM command-line tools a user already has, as the consolidation extractor
(docs/SETUP.md, "An extractor from the LLM you already have"), and writing one into this machine's
mem.local.toml (`mem setup extractor NAME`).

Every recipe pipes the request memfiles ships (`ops/extractor.request`: the prompt of
templates/consolidate.md, the facts, the episodes and the answer's JSON schema) on the tool's stdin, gives
it one short instruction as its prompt argument, and reads the answer on stdout, as each tool documents:

- claude-code: `claude -p PROMPT --output-format text`; piped stdin is the input the prompt is about, and
  print mode writes the final answer on stdout.
- codex: `codex exec … PROMPT`; with stdin piped and a prompt given, the prompt is the instruction and
  stdin the context; progress goes to stderr, only the final message to stdout.
- llm: `llm -s SYSTEM -x`; stdin is the prompt, `-s` the system prompt, `-x` prints only the first fenced
  code block of the answer (the whole answer when there is none).
- ollama: `ollama run MODEL PROMPT --format json`; piped stdin is read as the prompt, before the
  argument, and `--format json` constrains the answer to JSON.

The answer is validated as any extractor's is (ops/extractor.parse_output), and every fact it proposes
still goes through the guarded write path.
"""

from __future__ import annotations

import json
import re
import shlex
import shutil
import tomllib
from dataclasses import dataclass

from memfiles.errors import ConfigError, UsageError

INSTRUCTION = (
    "Standard input is a JSON request from memfiles. Do what its `prompt` field says with its `facts` and "
    "`episodes`, and answer with only the JSON object its `response_schema` describes: no prose, no code fence."
)
TIMEOUT = 300.0  # seconds: an agent CLI starts slower than an API call


@dataclass(frozen=True, slots=True)
class Recipe:
    name: str
    program: str
    model_option: str | None  # how the tool is told the model (None: the model is a positional argument)
    default_model: str | None  # None: the tool's own default
    docs: str

    def argv(self, model: str | None) -> list[str]:
        chosen = model or self.default_model
        pick = [self.model_option, chosen] if chosen and self.model_option else []
        if self.name == "claude-code":
            return ["claude", "-p", INSTRUCTION, "--output-format", "text", *pick]
        if self.name == "codex":
            return [
                "codex",
                "exec",
                "--skip-git-repo-check",
                "--sandbox",
                "read-only",
                "--ephemeral",
                *pick,
                INSTRUCTION,
            ]
        if self.name == "llm":
            return ["llm", *pick, "-s", INSTRUCTION, "-x"]
        return ["ollama", "run", chosen or "llama3.2", INSTRUCTION, "--format", "json"]


RECIPES = {
    r.name: r
    for r in (
        Recipe("claude-code", "claude", "--model", None, "https://code.claude.com/docs/en/cli-reference"),
        Recipe("codex", "codex", "--model", None, "https://developers.openai.com/codex/noninteractive"),
        Recipe("llm", "llm", "-m", None, "https://llm.datasette.io/en/stable/usage.html"),
        Recipe("ollama", "ollama", None, "llama3.2", "https://github.com/ollama/ollama/blob/main/docs/cli.md"),
    )
}


def recipe(name: str) -> Recipe:
    found = RECIPES.get(name)
    if found is None:
        raise UsageError(f"no extractor recipe {name!r}: use one of {', '.join(RECIPES)}")
    return found


def command(name: str, model: str | None = None) -> str:
    """The recipe as the one command line mem.local.toml holds (split again like a shell would, never run by one)."""
    return shlex.join(recipe(name).argv(model))


def on_path(name: str) -> bool:
    return shutil.which(recipe(name).program) is not None


def set_extractor(text: str, line: str, timeout: float) -> str:
    """mem.local.toml's text with `[consolidate] extractor` (and its timeout) set; every other line kept."""
    wanted = {"extractor": json.dumps(line, ensure_ascii=False), "extractor_timeout": f"{timeout:g}"}
    lines = text.splitlines(keepends=True)
    header = next((i for i, row in enumerate(lines) if re.match(r"\s*\[\s*consolidate\s*\]\s*(#.*)?$", row)), None)
    if header is None:
        prefix = text if not text or text.endswith("\n") else text + "\n"
        block = "".join(f"{k} = {v}\n" for k, v in wanted.items())
        updated = prefix + ("\n" if prefix.strip() else "") + "[consolidate]\n" + block
    else:
        end = next((i for i in range(header + 1, len(lines)) if lines[i].lstrip().startswith("[")), len(lines))
        for key, value in wanted.items():
            at = next((i for i in range(header + 1, end) if re.match(rf"\s*{key}\s*=", lines[i])), None)
            if at is None:
                lines.insert(header + 1, f"{key} = {value}\n")
                end += 1
            else:
                lines[at] = f"{key} = {value}\n"
        updated = "".join(lines)
    try:
        read = tomllib.loads(updated).get("consolidate", {})
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(
            f"mem.local.toml would not be valid TOML ({exc}); fix the file, then run this again"
        ) from None
    if read.get("extractor") != line:
        raise ConfigError("mem.local.toml sets [consolidate] in a way mem setup cannot edit; set `extractor` by hand")
    return updated
