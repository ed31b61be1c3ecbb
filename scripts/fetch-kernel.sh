#!/usr/bin/env bash
# Fetch a kernel source tree for `rmapcheck cdiff --kernel DIR` and the cdiff tests.
#
# Takes Debian's linux-source-7.3 package (suite experimental), or, when it cannot be had, the
# newest linux-source-7.x that apt can get (experimental, then sid, both pinned so that nothing
# else on the machine is upgraded from them). Only the directories the cdiff harness reads are
# unpacked: mm, lib, include, tools, kernel, arch/x86/include and the top Makefile.
#
# The tree goes to $RMAPCHECK_KERNEL_CACHE (default $HOME/.cache/rmapcheck/kernel)/<package>_<version>/
# and that path is also written to $RMAPCHECK_KERNEL_CACHE/current. When the tree is already there
# nothing is fetched. Standard output: the tree's path, alone on one line; the version used and the
# steps go to standard error.
#
# Also installs what the harness build needs (cc, make, liburcu-dev, xz-utils) when missing.
# Runs as root, or through sudo. Nothing from the tree is ever copied into the repository.
#
# `--package NAME` (or RMAPCHECK_KERNEL_PACKAGE=NAME) asks for one Debian source package, for
# example linux-source-6.12 for the LTS line: exactly that package, its newest version over the
# configured suites (sid added, pinned to priority 1), never a fallback to another one. It is
# cached beside the default tree and does not replace it as `current`.
set -euo pipefail

cache="${RMAPCHECK_KERNEL_CACHE:-$HOME/.cache/rmapcheck/kernel}"
want="${RMAPCHECK_KERNEL_PACKAGE:-}"
while [ $# -gt 0 ]; do
  case "$1" in
    --package)
      [ $# -ge 2 ] || { echo "fetch-kernel: error: --package needs a package name" >&2; exit 2; }
      want="$2"
      shift 2
      ;;
    --package=*)
      want="${1#--package=}"
      shift
      ;;
    *)
      echo "fetch-kernel: error: unknown argument $1 (usage: fetch-kernel.sh [--package NAME])" >&2
      exit 2
      ;;
  esac
done
exact=0
if [ -n "$want" ]; then
  case "$want" in
    linux-source-[0-9]*) ;;
    *) echo "fetch-kernel: error: $want is not a linux-source-X.Y package name" >&2; exit 2 ;;
  esac
  exact=1
else
  want=linux-source-7.3
fi
# The file that names the tree last unpacked for this request.
if [ "$exact" = 1 ]; then
  current="$cache/current-$want"
else
  current="$cache/current"
fi
dirs=(mm lib include tools kernel arch/x86/include Makefile)

say() { echo "fetch-kernel: $*" >&2; }
die() { say "error: $*"; exit 1; }

if [ "$(id -u)" = 0 ]; then
  sudo=()
elif command -v sudo >/dev/null 2>&1; then
  sudo=(sudo)
else
  sudo=(__no_root__)
fi
as_root() {
  if [ "${sudo[0]:-}" = __no_root__ ]; then
    die "need root (or sudo) to run: $*"
  fi
  "${sudo[@]}" "$@"
}

# An existing tree whose unpacking finished.
if [ -f "$current" ]; then
  tree="$(cat "$current")"
  if [ -f "$tree/.rmapcheck-complete" ] && [ -f "$tree/mm/vma.c" ]; then
    say "using cached $(cat "$tree/.rmapcheck-complete")"
    echo "$tree"
    exit 0
  fi
fi

# Build dependencies of the harness.
missing=()
command -v cc >/dev/null 2>&1 || missing+=(gcc)
command -v make >/dev/null 2>&1 || missing+=(make)
command -v xz >/dev/null 2>&1 || missing+=(xz-utils)
dpkg -s liburcu-dev >/dev/null 2>&1 || missing+=(liburcu-dev)
apt_updated=0
apt_update() {
  if [ "$apt_updated" = 0 ]; then
    as_root apt-get update -q >&2
    apt_updated=1
  fi
}
if [ "${#missing[@]}" -gt 0 ]; then
  say "installing ${missing[*]}"
  apt_update
  as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -q "${missing[@]}" >&2
fi

# The suites: experimental is NotAutomatic in its Release file (apt gives it priority 1), so it
# never upgrades anything by itself.
if [ "${RMAPCHECK_NO_APT_SOURCES:-0}" != 1 ]; then
  if ! grep -rqs 'experimental' /etc/apt/sources.list /etc/apt/sources.list.d/ 2>/dev/null; then
    say "adding the Debian experimental suite (priority 1)"
    as_root tee /etc/apt/sources.list.d/rmapcheck-experimental.sources >/dev/null <<'SRC'
Types: deb
URIs: http://deb.debian.org/debian
Suites: experimental
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
SRC
    apt_updated=0
  fi
fi
apt_update

# sid, pinned to priority 1: only for the fallback to an older linux-source-7.x.
add_sid() {
  [ "${RMAPCHECK_NO_APT_SOURCES:-0}" != 1 ] || return 0
  if [ ! -f /etc/apt/sources.list.d/rmapcheck-sid.sources ]; then
    say "adding the Debian sid suite pinned to priority 1 (fallback for older linux-source-7.x)"
    as_root tee /etc/apt/preferences.d/rmapcheck-sid >/dev/null <<'PIN'
Package: *
Pin: release a=unstable
Pin-Priority: 1
PIN
    as_root tee /etc/apt/sources.list.d/rmapcheck-sid.sources >/dev/null <<'SRC'
Types: deb
URIs: http://deb.debian.org/debian
Suites: sid
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
SRC
    apt_updated=0
  fi
  apt_update
}

# The newest candidate version of a package over every suite, or nothing.
newest_version() {
  apt-cache madison "$1" 2>/dev/null | awk -F'|' '{gsub(/ /, "", $2); print $2}' |
    while read -r v; do echo "$v"; done | sort -V -r | head -n 1 || true
}

pkg="$want"
ver="$(newest_version "$pkg")"
if [ -z "$ver" ] && [ "$exact" = 1 ]; then
  add_sid
  ver="$(newest_version "$pkg")"
  if [ -z "$ver" ]; then
    have="$(apt-cache search --names-only '^linux-source-[0-9]+\.[0-9]+$' | awk '{print $1}' | sort -V | tr '\n' ' ')"
    die "$pkg is in none of the configured suites (they have: ${have:-no linux-source-X.Y})"
  fi
fi
if [ -z "$ver" ]; then
  add_sid
  say "$want is not available; looking for the newest linux-source-7.x"
  pkg="$(apt-cache search --names-only '^linux-source-7\.[0-9]+$' | awk '{print $1}' | sort -V -r | head -n 1 || true)"
  [ -n "$pkg" ] || die "no linux-source-7.x package in the configured suites"
  ver="$(newest_version "$pkg")"
  [ -n "$ver" ] || die "$pkg has no downloadable version"
fi
say "kernel source: $pkg $ver"

safe_ver="${ver//[:~]/_}"
tree_parent="$cache/${pkg}_${safe_ver}"
mkdir -p "$cache"
work="$(mktemp -d "$cache/.fetch.XXXXXX")"
trap 'rm -rf "$work"' EXIT
(
  cd "$work"
  # apt-get download runs as the _apt user when root; a world-writable temp dir lets it write
  chmod 0777 "$work"
  apt-get download -q "$pkg=$ver" >&2
)
deb="$(ls "$work"/*.deb | head -n 1)"
[ -f "$deb" ] || die "apt-get download left no .deb"
dpkg -x "$deb" "$work/x"
tarball="$(ls "$work"/x/usr/src/linux-source-*.tar.* 2>/dev/null | head -n 1)"
[ -f "$tarball" ] || die "$deb holds no /usr/src/linux-source-*.tar.*"
top="$(basename "$tarball")"
top="${top%%.tar.*}"
pats=()
for d in "${dirs[@]}"; do
  pats+=("$top/$d")
done
say "unpacking ${dirs[*]} from $(basename "$tarball")"
rm -rf "$tree_parent"
mkdir -p "$tree_parent"
tar -xf "$tarball" -C "$tree_parent" "${pats[@]}"
tree="$tree_parent/$top"
[ -f "$tree/mm/vma.c" ] || die "$tree/mm/vma.c missing after unpacking"
echo "$pkg $ver" >"$tree/.rmapcheck-complete"
echo "$tree" >"$current"
say "tree: $tree"
echo "$tree"
