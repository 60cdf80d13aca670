"""The once-per-machine advice to build the native engine: given only where the CPU has what that build uses."""

from __future__ import annotations

from claimhop.lm.engine_hint import cpu_flags, native_hint


def test_the_native_engine_hint_names_the_build_only_where_it_helps(tmp_path):
    cpuinfo = tmp_path / "cpuinfo"
    cpuinfo.write_text("processor : 0\nflags : fpu avx avx2 avx512f avx512bw avx512vl avx512_vnni\n")
    flags = cpu_flags(cpuinfo)
    wheel = "CPU : SSE3 = 1 | AVX = 1 | AVX2 = 1 | FMA = 1 |"
    assert "build-native-engine.sh" in native_hint(wheel, flags)
    assert native_hint(wheel + " AVX512 = 1 |", flags) is None  # already the native build
    assert native_hint(wheel, {"avx", "avx2"}) is None  # a CPU without AVX-512 (an AMD EPYC here)
    assert cpu_flags(tmp_path / "missing") == set()
