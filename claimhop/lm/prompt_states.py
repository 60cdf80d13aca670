"""Prompt states kept on disk: llama.cpp's state (KV cache) of a chat call's fixed part, written once and read back
by every later process, so a fresh `claimhop check` does not compute the plan's ~420-token prefix again.

llama.cpp already reuses a prompt's cached prefix within a process (`cache_prompt`, `cache_ram_mib`), but that cache
dies with the process, and every one-claim CLI check is a new process: its plan read the whole prefix (system message
and worked examples) again, ~6-7 s of the ~16 s the call took here. Here the fixed part of a call (every message
before the last, and the start of the last user turn) is read once on its own with nothing generated, just before the
first call that needs it, saved through llama.cpp's own slot save (`/slots/0?action=save`), and restored
(`?action=restore`, milliseconds for ~10 MB) whenever a call needs it and the slot holds another call's prompt. (A restore replaces the slot without putting what it held into
llama.cpp's RAM cache, so the state a call left is restored again when its signature comes back.) A state belongs to
one model file, llama.cpp build, CPU and KV layout: the folder is named by them, so a state never meets an instance
that would read it wrongly. Nothing of a claim is kept: only the prefix that every call of a signature shares.

The in-process server answers the slot actions only on its loopback HTTP listener (xllamacpp has no handle for
them), which takes this process's key alone (local_engine.lock_listener), with file names llama.cpp checks itself
(no path separators), inside the folder given here. Nothing here may fail a model call: every fault is logged and
the call goes on as if no state were kept.
"""

from __future__ import annotations

import hashlib
import http.client
import json
import logging
import os
import secrets
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

from claimhop.lm.chat_template import chatml

log = logging.getLogger("claimhop")

# prefixes shorter than this (characters of chat-templated text, ~4 a token) are cheap to recompute: not kept
MIN_PREFIX_CHARS = 400
# states kept per engine folder, at most (each ~28 KB a token: the plan's ~7-12 MB); the least recently used go first
MAX_STATES = 24
SLOT_TIMEOUT_S = 60.0
TURN_START = "<|im_start|>"
STALE_TEMPORARY_S = 3600  # a temporary file this old was left by a process that died mid-save


def fixed_prefix(messages: list[dict]) -> str | None:
    """The chat-templated text every call with these leading messages shares: all messages but the last, then the
    last (user) turn's opening. None when the call has no such part worth keeping, or begins with no system message
    (the text would not be what llama.cpp's template makes of it)."""
    if len(messages) < 2 or messages[0].get("role") != "system" or messages[-1].get("role") != "user":
        return None  # without a system message llama.cpp's template writes a default one: not this text
    head = chatml(messages[:-1])
    head = head[: -len(f"{TURN_START}assistant\n")] + f"{TURN_START}user\n"
    return head if len(head) >= MIN_PREFIX_CHARS else None


def checksum(path: Path) -> str:
    """The first 16 hex digits of the file's sha256 (~20 ms for a 10 MB state)."""
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()[:16]


def state_folder(root: Path, model_path: Path, layout: dict[str, Any]) -> Path:
    """The folder of one model file's states under one KV layout (llama.cpp version, CPU features, context, attention
    kernel), made readable by this user alone."""
    stat = model_path.stat()
    identity = json.dumps({"model": model_path.name, "bytes": stat.st_size, **layout}, sort_keys=True)
    folder = root / hashlib.sha256(identity.encode()).hexdigest()[:16]
    folder.mkdir(mode=0o700, parents=True, exist_ok=True)
    return folder


class SlotRefused(Exception):
    """llama.cpp answered a slot action with an error: for a restore, the file is not one it can read."""


class PromptStates:
    """The states of one llama.cpp chat instance (slot 0). Every method runs under the engine's lock (one call at a
    time), so the slot is never read or written while a call uses it."""

    def __init__(self, server: Any, folder: Path, key: str) -> None:
        self.server = server
        self.folder = folder
        self._key = key  # the listener's key (claimhop.lm.local_engine.lock_listener)
        self._in_slot: str | None = None  # the prefix of the prompt the slot holds now, when known
        self._tried: set[str] = set()  # prefixes this process tried to keep (once each: a failure is not retried)
        self._whole: dict[Path, float] = {}  # files whose checksum was verified, at that modification time
        self._opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))  # loopback: never a proxy
        self.restored = 0
        self.saved = 0

    @staticmethod
    def name_of(prefix: str) -> str:
        """The prefix's name: the start of every state file kept for it (`NAME-CHECKSUM.bin`)."""
        return hashlib.sha256(prefix.encode()).hexdigest()[:32]

    def state_of(self, prefix: str) -> Path | None:
        """The prefix's kept state, if one is whole: its name ends with the checksum of its bytes, so a file cut short
        or damaged (llama.cpp aborts the process reading one) is deleted here instead of read."""
        for path in self.folder.glob(f"{self.name_of(prefix)}-*.bin"):
            try:
                modified = path.stat().st_mtime
                if self._whole.get(path) == modified or path.stem.rsplit("-", 1)[-1] == checksum(path):
                    self._whole[path] = modified
                    return path
                path.unlink(missing_ok=True)
            except FileNotFoundError:  # another process replaced or pruned it meanwhile
                continue
        return None

    def forget_slot(self) -> None:
        """Something other than a chat call (an embeddings pass on the same instance) overwrites the slot."""
        self._in_slot = None

    def has(self, prefix: str) -> bool:
        return self.state_of(prefix) is not None

    def before_call(self, messages: list[dict]) -> str | None:
        """Put the kept state of this call's prefix in the slot unless the slot holds that prefix already; returns
        the prefix when it should be kept before the call (no state kept yet), else None. Never raises."""
        prefix = fixed_prefix(messages)
        try:
            if prefix is None or prefix == self._in_slot:
                return None  # nothing fixed, or llama.cpp reuses the slot's own cached tokens
            path = self.state_of(prefix)
            if path is not None and self._slot("restore", path.name):
                self.restored += 1
                os.utime(path)  # recently used: the last to be pruned
                self._whole[path] = path.stat().st_mtime  # the bytes are the ones just checked: no checksum again
                return None
        except SlotRefused as err:
            log.info("prompt state %s not readable here, made again: %s", path, err)
            path.unlink(missing_ok=True)
        except Exception as err:  # noqa: BLE001 - a kept state only saves time; the call goes on without it
            log.info("prompt state not restored: %s", err)
        finally:
            self._in_slot = prefix
        if prefix in self._tried:
            return None
        self._tried.add(prefix)
        return prefix

    def keep(self, prefix: str) -> int:
        """Read the prefix alone (the part of the coming call it would read anyway; ~0.1 s when the slot holds it
        already) and save the slot's state under the prefix's name and its own checksum, atomically (a temporary
        name, then rename). Returns the prompt tokens this pass read (0 when nothing was kept). Never raises."""
        temporary = self.folder / f"tmp-{os.getpid()}-{secrets.token_hex(6)}.bin"
        read = 0
        try:
            result = self.server.handle_completions({"prompt": prefix, "n_predict": 0, "cache_prompt": True,
                                                     "temperature": 0.0})
            if not isinstance(result, dict) or "error" in result:
                log.info("prompt state not kept: %s", str(result)[:200])
                return 0
            self._in_slot = prefix  # the slot holds the prefix alone now
            read = int((result.get("timings") or {}).get("prompt_n") or 0)
            written = self._slot("save", temporary.name)
            if not written or temporary.stat().st_size != written:  # a full disk: short file, not a state
                return 0
            for old in self.folder.glob(f"{self.name_of(prefix)}-*.bin"):
                old.unlink(missing_ok=True)
            os.replace(temporary, self.folder / f"{self.name_of(prefix)}-{checksum(temporary)}.bin")
            self.saved += 1
            self._prune()
            return max(read, 1)
        except Exception as err:  # noqa: BLE001 - a kept state only saves time; the call goes on without it
            log.info("prompt state not kept: %s", err)
            return 0
        finally:
            temporary.unlink(missing_ok=True)

    def _prune(self) -> None:
        """At most MAX_STATES states, the most recently used; stale temporary files go too."""
        states, now = [], time.time()
        for path in self.folder.glob("*-*.bin"):
            try:
                if not path.name.startswith("tmp-"):
                    states.append((path.stat().st_mtime, path))
                elif now - path.stat().st_mtime > STALE_TEMPORARY_S:
                    path.unlink()
            except FileNotFoundError:  # another process pruned or replaced it meanwhile
                continue
        for _, old in sorted(states)[:-MAX_STATES]:
            old.unlink(missing_ok=True)

    def _slot(self, action: str, filename: str) -> int:
        """llama.cpp's slot action on slot 0: the tokens restored, or the bytes written by a save; 0 (logged) when
        the listener cannot be reached. Raises SlotRefused when llama.cpp answers with an error."""
        address = self.server.listening_address.rstrip("/")
        request = urllib.request.Request(f"{address}/slots/0?action={action}", method="POST",
                                         data=json.dumps({"filename": filename}).encode(),
                                         headers={"Content-Type": "application/json",
                                                  "Authorization": f"Bearer {self._key}"})
        try:
            with self._opener.open(request, timeout=SLOT_TIMEOUT_S) as reply:
                body = json.loads(reply.read() or b"{}")
        except urllib.error.HTTPError as err:
            if 400 <= err.code < 500 and err.code != 401:
                raise SlotRefused(f"{err.code} {err.read()[:200]!r}") from None
            log.info("prompt state %s of %s failed: %s", action, filename, err)
            return 0
        except (OSError, ValueError, http.client.HTTPException) as err:
            log.info("prompt state %s of %s failed: %s", action, filename, err)
            return 0
        return int(body.get("n_restored" if action == "restore" else "n_written") or 0)
