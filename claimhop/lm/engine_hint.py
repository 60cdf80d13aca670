"""Whether this CPU would run the model faster with the native engine build (scripts/build-native-engine.sh): said
once per machine, at the first model load, since README's install keeps the registry's AVX2 wheel."""

from __future__ import annotations

import sys
from pathlib import Path

from claimhop.atomic import write_text
from claimhop.cache_root import cache_root

NATIVE_FLAGS = ("avx512f", "avx512bw", "avx512vl", "avx512_vnni")  # what the native build compiles for
MEASURED = "prompts read 1.45x faster, generation about the same (docs/speed.md, on a 2-core Xeon)"


def cpu_flags(cpuinfo: Path = Path("/proc/cpuinfo")) -> set[str]:
    try:
        text = cpuinfo.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return set()
    line = next((row for row in text.splitlines() if row.startswith("flags")), "")
    return set(line.partition(":")[2].split())


def native_hint(system_info: str, flags: set[str]) -> str | None:
    """The advice for a CPU with AVX-512 running an engine built without it, or None."""
    if "AVX512 = 1" in system_info or not all(flag in flags for flag in NATIVE_FLAGS):
        return None
    return ("claimhop: this CPU has AVX-512 but the installed llama.cpp engine uses AVX2 only; "
            f"`bash scripts/build-native-engine.sh` builds one for it (~6 min): {MEASURED}.")


def say_once(system_info: str) -> None:
    """Print the hint to stderr the first time this machine's cache folder sees it."""
    hint = native_hint(system_info, cpu_flags())
    marker = cache_root() / "native-engine-hint.shown"
    if hint and not marker.exists():
        print(hint, file=sys.stderr, flush=True)
        write_text(marker, hint + "\n")
