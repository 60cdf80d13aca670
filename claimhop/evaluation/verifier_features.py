"""The passage verifier's features for labelled claims: one model pass per (claim, documents), each hidden state saved
on its own as soon as it is read, so a stopped run resumes where it was and a finished one is never read twice.

An item is {"key", "claim", "titles", "label", ...}: `titles` are the documents it is checked on (gold, retrieved
or a synthetic claim's), in order. Each state is saved under a hash of the prompt the model read, in a folder named
by the prompt's version and the model's hash, so a change of prompt or model never mixes with old features."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import numpy as np
from tqdm import tqdm

from claimhop.atomic import atomic_path
from claimhop.cache_root import cache_root
from claimhop.lm.weights import QWEN_CODER_1_5B
from claimhop.program.verify.reading import (
    ReadingRule,
    hidden_state,
    passage_messages,
    passages_read,
    read_passages,
)
from claimhop.program.verify.stage import StateReader
from claimhop.retrieval.corpus import Corpus


def features_dir(rule: ReadingRule) -> Path:
    """Where the features of this reading (prompt, rule, layer) and model are kept."""
    return cache_root() / "verifier-features" / f"{rule.version()}-{QWEN_CODER_1_5B.sha256[:12]}"


def prompt_key(claim: str, documents: list[dict], rule: ReadingRule) -> str:
    """A hash of exactly what the model reads (the chat messages), so a saved state is reused only for the same
    prompt, whatever documents or order led to it."""
    return messages_key(passage_messages(claim, passages_read(documents, claim, rule)))


def messages_key(messages: list[dict]) -> str:
    return hashlib.sha256(json.dumps(messages, ensure_ascii=False).encode()).hexdigest()[:24]


def state_path(folder: Path, claim: str, documents: list[dict], rule: ReadingRule) -> Path:
    return folder / f"{prompt_key(claim, documents, rule)}.npy"


def documents_for(corpus: Corpus, titles: list[str]) -> list[dict]:
    from claimhop.retrieval.corpus import documents_by_title

    return documents_by_title(corpus, titles)


def item_documents(corpus: Corpus, item: dict) -> list[dict]:
    """The documents an item is read on: carried inline (a user's labelled pair's evidence among the collection's
    passages), else the corpus's documents of its titles."""
    return item["documents"] if item.get("documents") else documents_for(corpus, item["titles"])


def save_atomic(path: Path, array: np.ndarray) -> None:
    """Written to a temporary file, then renamed: a crash leaves either no file or a whole one."""
    with atomic_path(path, suffix=".npy") as tmp:
        np.save(tmp, array)


def extract_features(items: list[dict], corpus: Corpus, rule: ReadingRule, folder: Path | None = None,
                     desc: str = "features") -> Path:
    """Read every item not read yet (one model pass each, as `rule` reads), with a progress bar; returns the
    folder."""
    from claimhop.lm.provider import local_engine

    folder = folder or features_dir(rule)
    folder.mkdir(parents=True, exist_ok=True)
    paths = {item["key"]: state_path(folder, item["claim"], item_documents(corpus, item), rule) for item in items}
    todo = [item for item in items if not paths[item["key"]].is_file()]
    if not todo:
        return folder
    engine = local_engine()
    with tqdm(total=len(items), initial=len(items) - len(todo), desc=desc, unit="claim") as bar:
        for item in todo:
            reading = read_passages(engine, item["claim"], item_documents(corpus, item), rule)
            save_atomic(paths[item["key"]], reading.state.astype(np.float32))
            bar.update()
    return folder


def saved_state_reader(folder: Path | None = None) -> StateReader:
    """The verify stage's state reader for measurements: a state saved by an earlier read of the same prompt
    (`claimhop train-verifier`, an earlier `eval-verify`), else the local model's, saved at once."""
    from claimhop.lm.provider import local_engine

    def read(messages: list[dict], rule: ReadingRule) -> np.ndarray:
        where = folder or features_dir(rule)
        path = where / f"{messages_key(messages)}.npy"
        if path.is_file():
            return np.load(path)
        where.mkdir(parents=True, exist_ok=True)
        state = hidden_state(local_engine(), messages, rule.blocks).astype(np.float32)
        save_atomic(path, state)
        return state

    return read


def load_features(items: list[dict], corpus: Corpus, rule: ReadingRule, folder: Path | None = None
                  ) -> np.ndarray:
    """The saved states of `items`, one row each; a clear error when some were never read."""
    folder = folder or features_dir(rule)
    paths = [state_path(folder, item["claim"], item_documents(corpus, item), rule) for item in items]
    missing = [item["key"] for item, path in zip(items, paths) if not path.is_file()]
    if missing:
        raise ValueError(f"{len(missing)} items have no features in {folder} (run `claimhop train-verifier` to read "
                         f"them), e.g. {missing[0]}")
    return np.stack([np.load(path) for path in paths])
