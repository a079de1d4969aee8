#!/usr/bin/env bash
# Installs what posenc needs and is missing, and only that; safe to run again.
#   bash scripts/bootstrap.sh            toolchains for building and serving
#   bash scripts/bootstrap.sh --browser  also Debian's chromium, for the browser tests
#   bash scripts/bootstrap.sh --fuzz     also clang-14 and its libFuzzer runtime (npm run fuzz)
# Debian packages come from apt (as root, or through sudo); JS packages from the
# npm registry with `npm ci`, whenever node_modules is missing or older than
# package-lock.json.
set -euo pipefail

want_browser=0
want_fuzz=0
for arg in "$@"; do
  case "$arg" in
    --browser) want_browser=1 ;;
    --fuzz) want_fuzz=1 ;;
    *) echo "bootstrap: unknown option '$arg' (accepted: --browser, --fuzz)" >&2; exit 2 ;;
  esac
done
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)

# Node.js: the machine's own (Vite needs 20.19 or newer; npm comes with node).
if ! command -v node >/dev/null || ! command -v npm >/dev/null; then
  echo "bootstrap: node and npm are needed (Node.js 20.19 or newer); install them first." >&2
  exit 1
fi
if ! node -e 'const [a, b] = process.versions.node.split(".").map(Number); process.exit(a > 20 || (a === 20 && b >= 19) ? 0 : 1)'; then
  echo "bootstrap: Node.js $(node --version) is too old; posenc needs 20.19 or newer." >&2
  exit 1
fi

# ccache: the native and sanitizer builds reuse what an earlier build of the same sources compiled (CMakeLists.txt).
packages=(cmake ninja-build g++ ccache emscripten libxtensor-dev libxsimd-dev nlohmann-json3-dev catch2 wabt)
[ "$want_browser" = 1 ] && packages+=(chromium)
[ "$want_fuzz" = 1 ] && packages+=(clang-14 libclang-rt-14-dev)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done

if [ ${#missing[@]} -gt 0 ]; then
  if [ "$(id -u)" = 0 ]; then
    as_root=()
  elif command -v sudo >/dev/null; then
    as_root=(sudo)
  else
    echo "bootstrap: these Debian packages are missing: ${missing[*]}" >&2
    echo "bootstrap: installing them needs root or sudo, and this user has neither." >&2
    echo "bootstrap: as root, run: apt-get install --no-install-recommends ${missing[*]}" >&2
    exit 1
  fi
  echo "bootstrap: installing Debian packages: ${missing[*]}"
  if ! "${as_root[@]}" apt-get update -qq ||
     ! DEBIAN_FRONTEND=noninteractive "${as_root[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"; then
    echo "bootstrap: apt-get could not install: ${missing[*]} (is this Debian bookworm, and are you root or a sudoer?)" >&2
    exit 1
  fi
fi

# JS packages, pinned by package-lock.json.
stamp="$root/node_modules/.posenc-lock-sha256"
lock_sum=$(sha256sum "$root/package-lock.json" | cut -d' ' -f1)
if [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "$lock_sum" ]; then
  echo "bootstrap: installing npm packages (npm ci)"
  (cd "$root" && npm ci --no-audit --no-fund --loglevel=error)
  echo "$lock_sum" > "$stamp"
fi
