#!/usr/bin/env bash
# build.sh OUTDIR: builds the icost workload suite into OUTDIR (static
# riscv64 Linux programs and their inputs; the manifest's {W}).
#
#  - extra programs (src/x_*.c), each with a behaviour the suite lacks,
#    tagged extra: bench_validate.sh TAG=extra checks accuracy beyond the
#    suite;
#  - the project's own kernels (src/*.c): chase stream branchy depchain
#    stencil mix;
#  - bzip2, gzip and lua5.4 from their Debian source packages, fetched with
#    `apt-get source` through a private deb-src configuration derived from
#    the machine's own apt sources (the system's apt setup is never touched);
#  - deterministic inputs: generated text (src/gen_text.c, run on the host),
#    its .bz2/.gz made by the suite's own bzip2/gzip under qemu-riscv64, and
#    bench.lua.
#
# Idempotent: a step whose output is newer than its inputs is skipped.
# Quiet on success; on failure it names the step and shows its log.
set -euo pipefail

if [ $# -ne 1 ]; then
  echo "usage: bash bench/workloads/build.sh OUTDIR" >&2
  exit 2
fi
HERE=$(cd "$(dirname "$0")" && pwd)
OUT=$(realpath -m "$1")
case "$OUT/" in
  "$HERE"/*) echo "build.sh: OUTDIR must not be inside $HERE" >&2; exit 2 ;;
esac
mkdir -p "$OUT"
LOGS=$OUT/logs
mkdir -p "$LOGS" "$OUT/tools"

CROSS=${CROSS:-riscv64-linux-gnu-gcc}
HOSTCC=${HOSTCC:-cc}
CFLAGS_RV=(-O2 -static)

die() { echo "build.sh: $*" >&2; exit 1; }

need() { # need TOOL PACKAGE
  command -v "$1" >/dev/null 2>&1 || die "$1 not found (install the Debian package $2)"
}
need "$CROSS" gcc-riscv64-linux-gnu
need "$HOSTCC" gcc
need qemu-riscv64 qemu-user
need make make

step() { # step NAME CMD...: runs CMD with output in logs/NAME.log, shown on failure
  local name=$1; shift
  if ! "$@" >"$LOGS/$name.log" 2>&1; then
    echo "build.sh: step '$name' failed (log: $LOGS/$name.log):" >&2
    tail -n 40 "$LOGS/$name.log" >&2
    exit 1
  fi
}

uptodate() { # uptodate TARGET DEP...: true if TARGET exists and is newer than every DEP
  local t=$1; shift
  [ -e "$t" ] || return 1
  local d
  for d in "$@"; do [ "$t" -nt "$d" ] || return 1; done
}

# ---- the project's own kernels -------------------------------------------
KDEPS=("$HERE/src/kernels.c" "$HERE/src/kernels.h" "$HERE/src/wl_common.h" "$HERE/build.sh")
for p in chase stream branchy depchain stencil mix; do
  if ! uptodate "$OUT/$p" "$HERE/src/$p.c" "${KDEPS[@]}"; then
    step "$p" "$CROSS" "${CFLAGS_RV[@]}" -Wall -Wextra -o "$OUT/$p.tmp" \
      "$HERE/src/$p.c" "$HERE/src/kernels.c" -lm
    mv "$OUT/$p.tmp" "$OUT/$p"
  fi
done

# ---- extra programs (tag extra: outside the suite's averages) --------------
# OUT:SOURCE:OPT; x_qsort_O0 is x_qsort built -O0
for e in x_qsort:x_qsort:-O2 x_qsort_O0:x_qsort:-O0 x_longjmp:x_longjmp:-O2 x_hash:x_hash:-O2 \
         x_strings:x_strings:-O2 x_matmul:x_matmul:-O2 x_interp:x_interp:-O2 \
         x_bsearch:x_bsearch:-O2 x_hist:x_hist:-O2 x_storebw:x_storebw:-O2 x_list:x_list:-O2 \
         x_branchmiss:x_branchmiss:-O2; do
  IFS=: read -r p src opt <<<"$e"
  if ! uptodate "$OUT/$p" "$HERE/src/$src.c" "$HERE/build.sh"; then
    step "$p" "$CROSS" "$opt" -static -Wall -Wextra -o "$OUT/$p.tmp" "$HERE/src/$src.c"
    mv "$OUT/$p.tmp" "$OUT/$p"
  fi
done

# ---- generated inputs ------------------------------------------------------
if ! uptodate "$OUT/tools/gen_text" "$HERE/src/gen_text.c"; then
  step gen_text "$HOSTCC" -O2 -Wall -Wextra -o "$OUT/tools/gen_text.tmp" "$HERE/src/gen_text.c"
  mv "$OUT/tools/gen_text.tmp" "$OUT/tools/gen_text"
fi
gen() { # gen FILE SEED BYTES
  if ! uptodate "$OUT/$1" "$OUT/tools/gen_text"; then
    step "gen-$1" sh -c '"$1" "$2" "$3" > "$4.tmp" && mv "$4.tmp" "$4"' sh \
      "$OUT/tools/gen_text" "$2" "$3" "$OUT/$1"
  fi
}
gen text-small.txt 1 2048
gen text-full.txt 2 200000
if ! uptodate "$OUT/bench.lua" "$HERE/bench.lua"; then
  cp "$HERE/bench.lua" "$OUT/bench.lua.tmp"
  mv "$OUT/bench.lua.tmp" "$OUT/bench.lua"
fi

# ---- Debian sources: bzip2, gzip, lua5.4 -----------------------------------
# A private apt configuration: the machine's `deb` entries turned into
# `deb-src`, with lists and cache under OUTDIR, passed to apt-get by -o.
SRC=$OUT/src
APTD=$OUT/apt
PKGS=(bzip2 gzip lua5.4)
srcdir() { # the extracted source directory of package $1, or nothing
  local d
  for d in "$SRC/$1"-[0-9]*/; do [ -d "$d" ] && { echo "${d%/}"; return; }; done
}
missing=()
for p in "${PKGS[@]}"; do [ -n "$(srcdir "$p")" ] || missing+=("$p"); done
if [ ${#missing[@]} -gt 0 ]; then
  need apt-get apt
  need dpkg-source dpkg-dev
  rm -rf "$APTD"
  mkdir -p "$APTD/sources.list.d" "$APTD/lists/partial" "$APTD/cache/archives/partial" "$SRC"
  : > "$APTD/sources.list"
  nsrc=0
  if [ -f /etc/apt/sources.list ]; then
    sed -nE 's/^[[:space:]]*deb([[:space:]])/deb-src\1/p' /etc/apt/sources.list \
      > "$APTD/sources.list"
    nsrc=$((nsrc + $(wc -l < "$APTD/sources.list")))
  fi
  for f in /etc/apt/sources.list.d/*.list /etc/apt/sources.list.d/*.sources; do
    [ -f "$f" ] || continue
    b=$(basename "$f")
    case "$f" in
      *.list) sed -nE 's/^[[:space:]]*deb([[:space:]])/deb-src\1/p' "$f" > "$APTD/sources.list.d/$b" ;;
      *.sources) sed -E 's/^Types:.*$/Types: deb-src/' "$f" > "$APTD/sources.list.d/$b" ;;
    esac
    nsrc=$((nsrc + $(grep -cE '^(deb-src|Types:)' "$APTD/sources.list.d/$b" || true)))
  done
  [ "$nsrc" -gt 0 ] || die "no deb entries in /etc/apt/sources.list{,.d} to derive deb-src from"
  APT=(apt-get -q -o "Dir::Etc::SourceList=$APTD/sources.list"
       -o "Dir::Etc::SourceParts=$APTD/sources.list.d" -o "Dir::State::Lists=$APTD/lists"
       -o "Dir::Cache=$APTD/cache" -o "APT::Sandbox::User=root")
  step apt-update "${APT[@]}" update
  step apt-source sh -c 'cd "$1" && shift && "$@"' sh "$SRC" "${APT[@]}" source "${missing[@]}"
  for p in "${missing[@]}"; do
    [ -n "$(srcdir "$p")" ] || die "apt-get source $p left no source directory in $SRC"
  done
fi

# bzip2: the program's own .c files compiled directly
BZ=$(srcdir bzip2)
BZC=("$BZ"/{blocksort,huffman,crctable,randtable,compress,decompress,bzlib,bzip2}.c)
if ! uptodate "$OUT/bzip2" "${BZC[@]}" "$HERE/build.sh"; then
  step bzip2 "$CROSS" "${CFLAGS_RV[@]}" -D_FILE_OFFSET_BITS=64 -w -o "$OUT/bzip2.tmp" "${BZC[@]}"
  mv "$OUT/bzip2.tmp" "$OUT/bzip2"
fi

# lua5.4: the interpreter and its libraries compiled directly (no dlopen in
# a static program: LUA_USE_POSIX, not LUA_USE_LINUX); Debian's luaconf.h
# wants a header naming the multiarch triplet. The string-hash seed is
# fixed: Lua mixes time() and addresses into it, which would make the run
# (its control flow, not its output) differ from one run to the next.
LU=$(srcdir lua5.4)
LUC=()
for f in "$LU"/src/*.c; do [ "$(basename "$f")" = luac.c ] || LUC+=("$f"); done
if ! uptodate "$OUT/lua" "${LUC[@]}" "$HERE/build.sh"; then
  mkdir -p "$OUT/build-lua"
  echo '#define DEB_HOST_MULTIARCH "riscv64-linux-gnu"' > "$OUT/build-lua/lua5.4-deb-multiarch.h"
  step lua "$CROSS" "${CFLAGS_RV[@]}" -DLUA_USE_POSIX '-Dluai_makeseed(L)=0x9e3779b9u' \
    -I"$OUT/build-lua" -w \
    -o "$OUT/lua.tmp" "${LUC[@]}" -lm
  mv "$OUT/lua.tmp" "$OUT/lua"
fi

# gzip: its configure (gnulib needs it), built out of tree. The autotools
# are stubbed out: dpkg-source's patching leaves timestamps that would make
# make try to regenerate configure.
GZ=$(srcdir gzip)
if ! uptodate "$OUT/gzip" "$GZ/configure" "$HERE/build.sh"; then
  rm -rf "$OUT/build-gzip"
  mkdir -p "$OUT/build-gzip"
  NOAUTO=(ACLOCAL=true AUTOMAKE=true AUTOCONF=true AUTOHEADER=true MAKEINFO=true)
  step gzip-configure sh -c 'cd "$1" && "$2/configure" --host=riscv64-linux-gnu CC="$3" \
    CFLAGS=-O2 LDFLAGS=-static --disable-dependency-tracking -q' sh \
    "$OUT/build-gzip" "$GZ" "$CROSS"
  step gzip-make make -C "$OUT/build-gzip" -j2 "${NOAUTO[@]}"
  cp "$OUT/build-gzip/gzip" "$OUT/gzip.tmp"
  mv "$OUT/gzip.tmp" "$OUT/gzip"
fi

# compressed inputs, made by the suite's own programs
comp() { # comp PROG EXT FILE: FILE.EXT = PROG -c FILE, run under qemu-riscv64
  if ! uptodate "$OUT/$3.$2" "$OUT/$3" "$OUT/$1"; then
    step "$1-$3" sh -c 'qemu-riscv64 "$1" -c "$2" > "$2.$3.tmp" && mv "$2.$3.tmp" "$2.$3"' sh \
      "$OUT/$1" "$OUT/$3" "$2"
  fi
}
comp bzip2 bz2 text-small.txt
comp bzip2 bz2 text-full.txt
comp gzip gz text-small.txt
comp gzip gz text-full.txt
