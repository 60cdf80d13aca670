"""This process's resident memory now and at its peak, read in one go from /proc so the two always agree
(peak >= now); ru_maxrss and VmRSS are kept by different kernel counters and can disagree by a page."""

from __future__ import annotations

from pathlib import Path


def memory_mib() -> tuple[float, float]:
    """(resident now, resident peak) in MiB; NaNs where /proc is missing (not Linux)."""
    fields: dict[str, int] = {}
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            name, _, value = line.partition(":")
            if name in ("VmRSS", "VmHWM"):
                fields[name] = int(value.split()[0])
    except OSError:
        return float("nan"), float("nan")
    now = fields.get("VmRSS")
    if now is None:
        return float("nan"), float("nan")
    peak = max(now, fields.get("VmHWM", now))
    return round(now / 1024, 1), round(peak / 1024, 1)


def peak_rss_mib() -> float:
    """The most resident memory this process has used so far, in MiB."""
    return memory_mib()[1]
