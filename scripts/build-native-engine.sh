#!/usr/bin/env bash
# Optional: rebuild the llama.cpp engine (xllamacpp, same version, from its source on PyPI) for a CPU with AVX-512,
# in place of the registry's AVX2 wheel. Measured on this 2-core Xeon (docs/speed.md): prompts 1.45x faster,
# generation unchanged; the build takes ~6 min. On a CPU without AVX-512 it does nothing.
#   bash scripts/build-native-engine.sh [VENV]      (default VENV: .venv)
# Undo: VENV/bin/pip install --force-reinstall --no-deps xllamacpp==<version>
set -euo pipefail
venv="${1:-.venv}"
py="$venv/bin/python"
[ -x "$py" ] || { echo "no Python at $py: create the virtual environment first (see README)" >&2; exit 2; }
for flag in avx512f avx512bw avx512vl avx512_vnni; do
  if ! grep -qw "$flag" /proc/cpuinfo; then
    echo "this CPU has no $flag: the registry's AVX2 wheel stays"
    exit 0
  fi
done
version=$("$py" -c 'import importlib.metadata as m; print(m.version("xllamacpp"))')
# No network beyond the package registries: llguidance and BoringSSL (fetched from git by default) are left out.
# AMX stays off: on these KVM guests llama.cpp's AMX code dies with a general protection fault at start.
export CMAKE_ARGS="-DLLAMA_LLGUIDANCE=OFF -DLLAMA_BUILD_BORINGSSL=OFF -DLLAMA_OPENSSL=OFF -DGGML_NATIVE=OFF \
-DGGML_AVX=ON -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON -DGGML_BMI2=ON -DGGML_AVX_VNNI=ON -DGGML_AVX512=ON \
-DGGML_AVX512_VBMI=ON -DGGML_AVX512_VNNI=ON -DGGML_AVX512_BF16=ON -DGGML_AMX_TILE=OFF -DGGML_AMX_INT8=OFF \
-DGGML_AMX_BF16=OFF"
echo "building xllamacpp $version for AVX-512 (about 6 minutes on 2 cores)..."
"$venv/bin/pip" install --quiet --force-reinstall --no-deps --no-binary xllamacpp "xllamacpp==$version"
"$py" -c 'import xllamacpp; info = xllamacpp.get_system_info(); print(info); assert "AVX512 = 1" in info'
