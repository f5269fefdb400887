#!/usr/bin/env bash
# Binaries built on the CPU build machine (nvcc for sm_90, no GPU needed), carried to the GPU machine
# in .snap/pre (git-ignored; carry [".deps", ".snap"]), so that a scarce GPU call times and tests
# variants without building them there (a fresh build there takes ~130 s, each variant ~100 s).
#   bash bench/prebuilt.sh pack [PATCH...]   here, over build-gpu (configured as device_run.sh's
#       build, -DSILT_ENABLE_CUDA=ON): `silt` and PRE_TARGETS (default swe_hancock_test; "" none) for the
#       tree as it is ("main") and with each PATCH applied in turn (bench/variants_gpu.sh's
#       names), xz-compressed into .snap/pre/NAME/, with the Debian libraries silt links that the
#       GPU machine's image may lack (PRE_DEBS, default: those of the libraries `ldd silt` lists but the
#       C/C++ and CUDA runtimes; downloaded into .snap/pre/debs).
#   bash bench/prebuilt.sh unpack            there: into $BINS/NAME/apps/silt/silt (and
#       $BINS/NAME/TARGET), the debs into /tmp/silt-deps; exits 0 when main's silt starts and
#       lists a CUDA device (`silt info`), else 1 (then build there: bench/variants_gpu.sh).
# After unpack: BENCH_ONLY=1 BENCH=... bash bench/variants_gpu.sh PATCH... times them.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
PRE=.snap/pre
BINS=${BINS:-/tmp/silt-variants}
targets=(${PRE_TARGETS-swe_hancock_test})
name_of() { local part; for part in ${1//+/ }; do basename "$part" .patch; done | paste -sd+; }
touch_existing() { local f; for f in "$@"; do [ -f "$f" ] && touch "$f"; done; }
# The Debian packages of the shared libraries silt links, but the C and C++ runtimes and CUDA's,
# which the GPU machine's image has (a build dir that found civetweb links libcivetweb.so.1, which
# the image lacks: a binary packed without its deb did not start there, 2026-12-07c).
link_debs() {
  local f
  {
    printf '%s\n' libfreetype6 libbrotli1 libgomp1 libfmt9 libpng16-16  # in /tmp/silt-deps here
    ldd build-gpu/apps/silt/silt | awk '/=> \// {print $3}' |
      grep -vE '/(libc|libm|libdl|libpthread|librt|libstdc\+\+|libgcc_s|libcuda|libcudart)[.]so' |
      while read -r f; do dpkg -S "*/$(basename "$f")" 2> /dev/null; done |
      cut -d: -f1 | grep -v -- '-dev$'
  } | sort -u
}
target_path() { find build-gpu -type f -name "$1" -perm -u+x | head -1; }
save() {  # save NAME: build-gpu's silt and targets into $PRE/NAME
  local t p
  mkdir -p "$PRE/$1"
  xz -T0 -6 -c build-gpu/apps/silt/silt > "$PRE/$1/silt.xz"
  for t in "${targets[@]}"; do
    p=$(target_path "$t")
    [ -n "$p" ] && xz -T0 -6 -c "$p" > "$PRE/$1/$t.xz"
  done
}
case "${1:-}" in
pack)
  shift
  rm -rf "$PRE" && mkdir -p "$PRE/debs"
  cmake --build build-gpu --target silt "${targets[@]}" > /dev/null || exit 1
  debs=${PRE_DEBS:-$(link_debs)}  # here, before the cd: link_debs reads build-gpu
  (cd "$PRE/debs" && apt-get download $debs > /dev/null 2>&1) || echo "debs not downloaded"
  save main
  for p in "$@"; do
    files=$(for part in ${p//+/ }; do grep '^+++ b/' "$part" | sed 's|^+++ b/||'; done)
    touch_existing $files
    applied=()  # the parts applied, each checked first: a stack goes on whole or not at all
    for part in ${p//+/ }; do
      patch -p1 -s -N --dry-run < "$part" > /dev/null || break
      patch -p1 -s --no-backup-if-mismatch < "$part" && applied+=("$part")
    done
    if [ ${#applied[@]} = $(echo ${p//+/ } | wc -w) ] &&
      cmake --build build-gpu --target silt "${targets[@]}" > /dev/null; then
      save "$(name_of "$p")"
    else
      echo "$(name_of "$p"): not built"
    fi
    for ((k = ${#applied[@]} - 1; k >= 0; k--)); do
      patch -R -p1 -s --no-backup-if-mismatch < "${applied[k]}"
    done
    touch_existing $files
  done
  cmake --build build-gpu --target silt "${targets[@]}" > /dev/null
  du -sh "$PRE"
  ;;
unpack)
  mkdir -p /tmp/silt-deps
  for f in .deps/*.deb "$PRE"/debs/*.deb; do [ -f "$f" ] && dpkg -x "$f" /tmp/silt-deps; done
  export LD_LIBRARY_PATH=/tmp/silt-deps/usr/lib/x86_64-linux-gnu:${LD_LIBRARY_PATH:-}
  for d in "$PRE"/*/; do
    name=$(basename "$d")
    [ "$name" = debs ] && continue
    mkdir -p "$BINS/$name/apps/silt"
    xz -dc "$d/silt.xz" > "$BINS/$name/apps/silt/silt" && chmod +x "$BINS/$name/apps/silt/silt"
    for f in "$d"/*.xz; do
      t=$(basename "$f" .xz)
      [ "$t" = silt ] && continue
      xz -dc "$f" > "$BINS/$name/$t" && chmod +x "$BINS/$name/$t"
    done
    echo "unpacked $name"
  done
  info=$("$BINS/main/apps/silt/silt" info 2>&1)
  echo "$info" | head -8
  echo "$info" | grep -q "^CUDA device 0:"
  ;;
*)
  echo "usage: bash bench/prebuilt.sh pack [PATCH...] | unpack" >&2
  exit 2
  ;;
esac
