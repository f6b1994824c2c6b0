#!/usr/bin/env bash
# Installs what building rust_kernels/ (the cuTile Rust crates) needs on a fresh Debian
# machine with Rust and Python already present, and prints the environment it needs:
#   - libclang-dev (bindgen in cuda-bindings parses cuda.h; it needs clang's builtin headers)
#   - CUDA 13 headers from pip wheels (cuda.h, curand.h, crt/) -> CUDA_TOOLKIT_PATH
#   - tileiras / tileirdisasm (nvidia-cuda-tileiras) for cubins and IR text
# Idempotent: installs only what is missing.
#
# Use either
#   eval "$(scripts/setup_rust.sh)"      # prints `export ...` lines on stdout
#   source scripts/setup_rust.sh         # exports into the current shell
# Progress goes to stderr. PYTHON selects the interpreter (default python3).

# Pinned to the CUDA 13.5 wheels of nvidia-cuda-tileiras 13.5.37 (pyproject [tools] extra).
# cutile >= 0.3 requires CUDA_VERSION >= 13020 in cuda.h; the 13.5 runtime wheel has 13050.
_TILEIR_RUST_WHEELS=(
    "nvidia-cuda-runtime==13.5.37"
    "nvidia-cuda-crt==13.5.37"
    "nvidia-curand==10.4.5.25"
    "nvidia-cuda-tileiras==13.5.37"
)

_tileir_setup_rust() {
    local py="${PYTHON:-python3}"
    if ! command -v cargo >/dev/null 2>&1; then
        echo "setup_rust: cargo not found (install Rust >= 1.89 first)" >&2
        return 1
    fi

    if ! dpkg -s libclang-dev >/dev/null 2>&1; then
        echo "setup_rust: installing libclang-dev" >&2
        if [ "$(id -u)" = 0 ]; then
            apt-get update -qq >&2 && apt-get install -y -qq libclang-dev >&2 || return 1
        else
            sudo apt-get update -qq >&2 && sudo apt-get install -y -qq libclang-dev >&2 || return 1
        fi
    fi

    # One interpreter start instead of a `pip show` per wheel.
    local missing=()
    mapfile -t missing < <("$py" - "${_TILEIR_RUST_WHEELS[@]}" <<'EOF'
import sys
from importlib import metadata
for pin in sys.argv[1:]:
    name, want = pin.split("==")
    try:
        have = metadata.version(name)
    except metadata.PackageNotFoundError:
        have = None
    if have != want:
        print(pin)
EOF
)
    if [ "${#missing[@]}" -gt 0 ]; then
        echo "setup_rust: pip install ${missing[*]}" >&2
        "$py" -m pip install -q "${missing[@]}" >&2 || return 1
    fi

    # The wheels share the nvidia/ namespace package: find the cu13 folder holding cuda.h.
    local cuda_root
    cuda_root="$("$py" - <<'EOF'
import os, sys
import nvidia
for p in nvidia.__path__:
    root = os.path.join(p, "cu13")
    if os.path.isfile(os.path.join(root, "include", "cuda.h")):
        print(root)
        sys.exit(0)
sys.exit("setup_rust: no nvidia/cu13/include/cuda.h in " + ", ".join(nvidia.__path__))
EOF
)" || return 1
    local version
    version="$(sed -n 's/^#define CUDA_VERSION \([0-9]*\).*/\1/p' "$cuda_root/include/cuda.h")"
    if [ -z "$version" ] || [ "$version" -lt 13020 ]; then
        echo "setup_rust: $cuda_root/include/cuda.h has CUDA_VERSION ${version:-?}; cutile needs >= 13020" >&2
        return 1
    fi
    for header in curand.h crt/host_config.h; do
        if [ ! -f "$cuda_root/include/$header" ]; then
            echo "setup_rust: $cuda_root/include/$header missing" >&2
            return 1
        fi
    done

    local libclang
    # The newest LLVM that ships libclang.so (libclang-dev's unversioned link).
    libclang="$(ls -d /usr/lib/llvm-*/lib/libclang.so 2>/dev/null | sort -V | tail -n 1)"
    libclang="${libclang%/libclang.so}"
    if [ -z "$libclang" ]; then
        echo "setup_rust: libclang.so not found under /usr/lib/llvm-*/lib" >&2
        return 1
    fi

    export CUDA_TOOLKIT_PATH="$cuda_root"
    export LIBCLANG_PATH="$libclang"
    # Two cores here: keep cargo from oversubscribing the machine.
    export CARGO_BUILD_JOBS="${CARGO_BUILD_JOBS:-2}"
    echo "export CUDA_TOOLKIT_PATH='$CUDA_TOOLKIT_PATH'"
    echo "export LIBCLANG_PATH='$LIBCLANG_PATH'"
    echo "export CARGO_BUILD_JOBS='$CARGO_BUILD_JOBS'"
    echo "setup_rust: CUDA_VERSION $version at $cuda_root; libclang in $libclang" >&2
}

if [ "${BASH_SOURCE[0]}" = "$0" ]; then
    set -euo pipefail
    _tileir_setup_rust
else
    # Sourced: export into the caller's shell, print nothing on stdout.
    _tileir_setup_rust >/dev/null
fi
