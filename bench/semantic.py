"""The semantic extra on the paraphrase set: found@3 of the hybrid ranking beside the lexical one.

    python bench/semantic.py [--json FILE]
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path
from typing import Any

from stories import paraphrase_report, paraphrase_table

from memfiles.api import open_home
from memfiles.format.layout import Scope


def hybrid_ranker(root: Path, scope: Scope, question: str, now: str) -> tuple[list[str], list[str]]:
    """`mem recall` with its defaults and the extra's hybrid ranking (what the block would show, per kind)."""
    os.environ["MEM_NOW"] = now
    found = open_home(root).recall(question, [str(scope)])
    facts = [i.facts[0].key for i in found.items if not i.episode]
    return facts, [i.episode.session or i.episode.id for i in found.items if i.episode]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", type=Path, help="also write the report as JSON to this file ('-' = stdout)")
    args = parser.parse_args(argv)
    lexical = paraphrase_report()
    hybrid = paraphrase_report(hybrid_ranker)
    print(paraphrase_table(hybrid, "hybrid"))
    print(f"paraphrases (lexical): found@3 {100 * lexical['found@3']:.0f}% of {lexical['questions']} questions")
    result: dict[str, Any] = {"lexical": lexical, "hybrid": hybrid}
    if args.json:
        text = json.dumps(result, indent=2) + "\n"
        sys.stdout.write(text) if str(args.json) == "-" else args.json.write_text(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
