"""A one-shot read's query, embedded in a child process while this one ranks by words.

Recall by meaning always embeds the query, and in a one-shot process (`mem recall`, the per-prompt hook) loading
the model is most of that: importing numpy and onnxruntime, opening the model, a first inference (about 0.25 s
here). A thread cannot hide it (imports hold Python's lock, so the ranking by words slowed by as much as the thread
saved), a second process can: it loads and embeds on another core while this one opens the index and ranks, and
hands back one vector (float32, little-endian) on its standard output. Only a process's first query is embedded
aside: a process that asks again (`mem mcp`, the API) loads the model once, in place, and keeps it. If the child
fails in any way, the read embeds in place, and says what went wrong as it would have without the child.

    python -m memfiles.recall.query_embedding MODEL TOKENIZER CACHE < query  (the child; CACHE may be "")
"""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from memfiles.recall import embedder

if TYPE_CHECKING:
    from memfiles.recall.embedder import Matrix

TIMEOUT_S = 60.0  # a child that takes longer than this is stopped, and the read embeds in place
_asked = False  # whether this process has embedded a query aside already


def worth_it() -> bool:
    """Whether to embed a query aside: the process's first query, with no model loaded here."""
    return not _asked and embedder.loaded() is None


def start(files: embedder.ModelFiles, cache: Path | None, query: str) -> Callable[[], Matrix | None]:
    """Start embedding `query` in a child process; the call returned waits for its vector (None: it failed)."""
    global _asked
    _asked = True
    argv = [sys.executable, "-m", __name__, str(files.model), str(files.tokenizer), str(cache or "")]
    try:
        child = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    except OSError:
        return lambda: None
    text = query.encode("utf-8", "replace")

    def result() -> Matrix | None:
        import numpy as np

        try:
            out, _ = child.communicate(text, timeout=TIMEOUT_S)
        except (OSError, subprocess.SubprocessError):
            child.kill()
            child.wait()
            return None
        if child.returncode != 0 or not out or len(out) % 4:
            return None
        return np.frombuffer(out, dtype="<f4").astype(np.float32)

    return result


def main(argv: list[str]) -> int:
    model, tokenizer, cache = argv
    query = sys.stdin.buffer.read().decode("utf-8", "replace")
    files = embedder.ModelFiles(Path(model), Path(tokenizer))
    try:
        vector = embedder.load(files, cache=Path(cache) if cache else None).embed([query])[0]
    except embedder.ModelUnavailable:
        return 1
    sys.stdout.buffer.write(vector.astype("<f4").tobytes())
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
