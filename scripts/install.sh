#!/bin/sh
# Installs loopbreaker from a release: finds this machine's OS and CPU,
# downloads the archive and checksums.txt, checks the archive's SHA-256,
# and puts the binary in ~/.local/bin (or PREFIX/bin).
#
#   curl -fsSL https://github.com/loopbreaker/loopbreaker/releases/latest/download/install.sh | sh
#   sh install.sh [--prefix DIR] [--base-url URL] [--version V]
#
#   --prefix DIR     install into DIR/bin (default: ~/.local)
#   --base-url URL   where the archives and checksums.txt are: https:// or
#                    file:// (default: the GitHub release); plain http://
#                    is refused, since whoever can alter the archive on the
#                    way can alter its checksum too;
#                    also LOOPBREAKER_INSTALL_BASE_URL
#   --version V      the version the archives are named with (default: the
#                    release this script came with); also LOOPBREAKER_VERSION
# scripts/release fills in the defaults below. The whole script is one
# function called on its last line, so that a download cut off under
# `curl | sh` runs nothing.
set -eu

die() { echo "install.sh: $*" >&2; exit 1; }

# fetch URL FILE: file:// is copied, https:// downloaded with curl or wget.
fetch() {
  case $1 in
    file://*) cp "${1#file://}" "$2" 2>/dev/null || die "cannot read ${1#file://}: check --base-url and --version" ;;
    *)
      if command -v curl >/dev/null 2>&1; then
        curl -fsSL --proto '=https' --proto-redir '=https' -o "$2" "$1" || die "cannot download $1: check --base-url and --version"
      elif command -v wget >/dev/null 2>&1; then
        wget -q -O "$2" "$1" || die "cannot download $1: check --base-url and --version"
      else
        die "needs curl or wget to download $1"
      fi ;;
  esac
}

main() {
  version=${LOOPBREAKER_VERSION:-@VERSION@}
  base_url=${LOOPBREAKER_INSTALL_BASE_URL:-@BASE_URL@}
  prefix=""

  while [ $# -gt 0 ]; do
    case $1 in
      --prefix) [ $# -ge 2 ] || die "--prefix needs a directory"; prefix=$2; shift ;;
      --prefix=*) prefix=${1#--prefix=} ;;
      --base-url) [ $# -ge 2 ] || die "--base-url needs a URL"; base_url=$2; shift ;;
      --base-url=*) base_url=${1#--base-url=} ;;
      --version) [ $# -ge 2 ] || die "--version needs a version"; version=$2; shift ;;
      --version=*) version=${1#--version=} ;;
      -h | --help) sed -n '2,/^set -eu/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
      *) die "unknown argument $1 (see sh install.sh --help)" ;;
    esac
    shift
  done
  case $version in @*@) die "no version known: this is the unreleased script; give --version V (and --base-url)" ;; esac
  case $base_url in @*@) die "no base URL known: this is the unreleased script; give --base-url URL" ;; esac
  base_url=${base_url%/}
  case $base_url in
    https://* | file:///*) ;;
    http://*) die "refusing $base_url: over plain http whoever can alter the archive can alter checksums.txt too, so the check proves nothing; use https:// (or file:///a/directory for archives you have)" ;;
    *) die "--base-url $base_url: give https://HOST/PATH, or file:///a/directory" ;;
  esac
  [ -n "$prefix" ] || prefix=${HOME:?install.sh: HOME is not set: give --prefix DIR}/.local

  case $(uname -s) in
    Linux) os=linux ;;
    Darwin) os=darwin ;;
    MINGW* | MSYS* | CYGWIN*) die "on Windows download loopbreaker_${version}_windows_amd64.zip from $base_url, or use npm install -g loopbreaker" ;;
    *) die "no release for $(uname -s): build from source (see docs/install.md)" ;;
  esac
  case $(uname -m) in
    x86_64 | amd64) arch=amd64 ;;
    aarch64 | arm64) arch=arm64 ;;
    *) die "no release for the CPU $(uname -m): build from source (see docs/install.md)" ;;
  esac
  archive=loopbreaker_${version}_${os}_${arch}.tar.gz

  tmp=$(mktemp -d "${TMPDIR:-/tmp}/loopbreaker-install.XXXXXX")
  trap 'rm -rf "$tmp"' EXIT INT TERM

  echo "install.sh: loopbreaker $version for $os/$arch from $base_url"
  fetch "$base_url/$archive" "$tmp/$archive"
  fetch "$base_url/checksums.txt" "$tmp/checksums.txt"

  want=$(awk -v f="$archive" '$2 == f || $2 == "*" f { print $1 }' "$tmp/checksums.txt")
  [ -n "$want" ] || die "checksums.txt names no $archive: the release is incomplete; nothing installed"
  if command -v sha256sum >/dev/null 2>&1; then
    got=$(sha256sum "$tmp/$archive" | cut -d' ' -f1)
  elif command -v shasum >/dev/null 2>&1; then
    got=$(shasum -a 256 "$tmp/$archive" | cut -d' ' -f1)
  else
    die "needs sha256sum or shasum to check the download"
  fi
  [ "$got" = "$want" ] || die "$archive has SHA-256 $got, checksums.txt says $want: the download is damaged or altered; nothing installed"

  mkdir "$tmp/x"
  tar -xzf "$tmp/$archive" -C "$tmp/x" loopbreaker loopbreaker-hook || die "cannot unpack $archive"
  mkdir -p "$prefix/bin" || die "cannot create $prefix/bin: give --prefix DIR"
  # Copy then rename, so that a running loopbreaker (a hook) is never seen
  # half written. loopbreaker-hook, the thin hook client, goes beside it:
  # it runs the loopbreaker next to it (docs/resident.md).
  for f in loopbreaker loopbreaker-hook; do
    cp "$tmp/x/$f" "$prefix/bin/.$f.new"
    chmod 755 "$prefix/bin/.$f.new"
    mv -f "$prefix/bin/.$f.new" "$prefix/bin/$f"
    echo "install.sh: installed $prefix/bin/$f"
  done
  "$prefix/bin/loopbreaker" version || true
  case ":$PATH:" in
    *":$prefix/bin:"*) ;;
    *) echo "install.sh: $prefix/bin is not on your PATH: add it (export PATH=\"$prefix/bin:\$PATH\" in your shell's profile)" ;;
  esac
}

main "$@"
