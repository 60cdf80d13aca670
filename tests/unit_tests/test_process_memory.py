"""The health endpoint's memory figures: the peak it reports is never below the resident memory it reports,
even right after the process grew (CI once saw rss 3829.8 > peak 3829.7 from two different kernel counters)."""

from claimhop.server.process_memory import memory_mib


def test_peak_is_never_below_resident_memory_after_the_process_grows():
    before_now, before_peak = memory_mib()
    ballast = bytearray(64 * 1024 * 1024)
    ballast[::4096] = b"x" * len(ballast[::4096])  # touch every page so it becomes resident
    now, peak = memory_mib()
    assert now <= peak
    assert now >= before_now + 60 and peak >= before_peak
    del ballast
