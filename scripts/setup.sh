# Shared by check.sh and demo.sh (sourced, not run): installs the system
# packages Loom needs when they are missing, then configures and builds.
# Safe to repeat: nothing is installed or configured twice, and Ninja only
# rebuilds what changed.

LOOM_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
LOOM_BUILD=${LOOM_BUILD_DIR:-$LOOM_ROOT/build}
LLVM_PREFIX=/usr/lib/llvm-22
# Extra cmake arguments for a fresh configure (check.sh --sanitize sets
# -DLOOM_SANITIZE=ON).
LOOM_CMAKE_ARGS=()

# chromium: the headless browser that loads loom-plan --html's page in
# test/Plan/html-report-chromium.test (Debian 12's package name).
loom_packages=(cmake ninja-build g++ python3 ccache libgtest-dev libfmt-dev
               libbenchmark-dev llvm-22-dev llvm-22-tools libmlir-22-dev
               mlir-22-tools chromium python3-dev python3-pybind11 python3-pytest)

loom_install_packages() {
  local missing=()
  for pkg in "${loom_packages[@]}"; do
    dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" ||
      missing+=("$pkg")
  done
  [ ${#missing[@]} -eq 0 ] && return 0
  echo "==> installing: ${missing[*]}"
  local sudo=""
  [ "$(id -u)" -ne 0 ] && sudo=sudo
  # A fresh machine has empty package lists; refresh them once.
  if ! apt-get install -y --no-install-recommends "${missing[@]}" >/dev/null 2>&1; then
    $sudo apt-get update -q
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -q \
      --no-install-recommends "${missing[@]}"
  fi
}

loom_configure() {
  [ -f "$LOOM_BUILD/build.ninja" ] && return 0
  local launcher=()
  command -v ccache >/dev/null && launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache
                                            -DCMAKE_C_COMPILER_LAUNCHER=ccache)
  echo "==> configuring $LOOM_BUILD"
  cmake -G Ninja -S "$LOOM_ROOT" -B "$LOOM_BUILD" \
    -DCMAKE_BUILD_TYPE=Release \
    -DMLIR_DIR=$LLVM_PREFIX/lib/cmake/mlir \
    -DLLVM_EXTERNAL_LIT=$LLVM_PREFIX/bin/lit \
    "${launcher[@]}" "${LOOM_CMAKE_ARGS[@]}"
}

loom_build() {
  loom_install_packages
  loom_configure
  echo "==> building"
  # Paths under the checkout's parent are hashed relative to it, so git
  # worktrees beside it (each with its own build) share ccache's objects.
  export CCACHE_BASEDIR=${CCACHE_BASEDIR:-$(dirname "$LOOM_ROOT")}
  # Two cores on the reference machine; more jobs only thrash.
  ninja -C "$LOOM_BUILD" -j"${LOOM_JOBS:-2}" "$@"
}
