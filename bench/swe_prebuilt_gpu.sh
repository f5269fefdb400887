#!/usr/bin/env bash
# The shallow-water kernels' GPU tests and their 64M bench from binaries built on the CPU build
# machine (bench/prebuilt.sh), for a GPU call with no build: `ctest -L gpu`'s commands of
# swe_hancock, swe_order2, swe_multi, swe_dry_inflow, swe_solver, swe_backends (CUDA against the
# CPU) and the cross-section and boundary-line scripts, then `silt bench swe --sizes 64M` in
# float32 and float64, MUSCL-Hancock and first order, for each NAME (default: main) that
# prebuilt.sh unpacked. Prints numbers and the tests' verdicts; asserts nothing. Pack first, here:
#   PRE_TARGETS="swe_hancock_test swe_order2_test swe_multi_test swe_dry_inflow_test swe_solver_test swe_backends_test" \
#     bash bench/prebuilt.sh pack [PATCH...]
# then on the GPU machine (carry [".snap"]: the debs are in .snap/pre/debs): bash
# bench/swe_prebuilt_gpu.sh [NAME...]; ROUNDS, SCHEMES and PRECISIONS (below) narrow the benches:
#   ROUNDS=2 SCHEMES=hancock PRECISIONS=float32 bash bench/swe_prebuilt_gpu.sh main hancock-combined
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
BINS=${BINS:-/tmp/silt-variants}
bash bench/prebuilt.sh unpack > /dev/null || { echo "the prebuilt binaries do not start here"; exit 1; }
export LD_LIBRARY_PATH=/tmp/silt-deps/usr/lib/x86_64-linux-gnu:${LD_LIBRARY_PATH:-}
export NCCL_NVLS_ENABLE=0
nvidia-smi --query-gpu=name --format=csv,noheader
names=("$@")
[ ${#names[@]} -gt 0 ] || names=(main)
for n in "${names[@]}"; do
  B=$BINS/$n
  "$B/apps/silt/silt" info > /dev/null 2>&1 || echo "$n: its silt does not start here (ldd it)"
  for t in swe_hancock_test swe_order2_test swe_multi_test swe_dry_inflow_test swe_solver_test \
    swe_backends_test; do
    [ -x "$B/$t" ] || { echo "$n ${t}_cuda: not packed"; continue; }
    timeout 120 "$B/$t" --backend=cuda > "/tmp/$n-$t.log" 2>&1
    rc=$?  # a crash prints no verdict line: the exit status says it
    echo "$n ${t}_cuda: rc=$rc $(grep -E '^\[  (PASSED|FAILED) ' "/tmp/$n-$t.log" | tr '\n' ' ')"
  done
  for t in swe_cross_sections swe_boundary_lines; do
    echo "$n ${t}_test_cuda: $(timeout 120 python3 "tests/verification/${t}_test.py" \
      "$B/apps/silt/silt" "/tmp/$n-$t-$$" cuda 2>&1 | tail -n 1)"
  done
done
# The benches after every tree's tests, ROUNDS rounds with the trees interleaved (a GPU's clocks
# drift over a call); SCHEMES: "hancock", "first" or both, PRECISIONS: silt bench's list.
for r in $(seq 1 "${ROUNDS:-1}"); do
  for n in "${names[@]}"; do
    for scheme in ${SCHEMES:-hancock first}; do
      flag=""
      [ "$scheme" = hancock ] && flag=--muscl-hancock
      "$BINS/$n/apps/silt/silt" bench swe --backend cuda --sizes 64M \
        --precision "${PRECISIONS:-float32,float64}" $flag 2>&1 | grep -E "^ +67108864" |
        sed "s|^|$n r$r $scheme |"
    done
  done
done
echo "[$SECONDS s]"
