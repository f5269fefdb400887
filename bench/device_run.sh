#!/usr/bin/env bash
# One call on the GPU machine: unpack the light -dev packages carried in .deps/, build with CUDA
# (no GDAL; MPI when the machine's Open MPI has headers), run the GPU tests and the benchmarks, and leave logs under $OUT.
#   bash bench/device_run.sh [build] [test] [cputest] [bench-swe] [bench-swe-variants] [bench-mpm]
#                            [bench-swe-multi] [bench-mpm-multi] [bench-mpm-multi-quick]
#                            [bench-mpm-parts] [fountain-mpm] [frame-rate] [sass] [ncu-mpm]
#                            [python] [python-asan] [swe-real-run] [stress] [paper]
# BUILD_TARGETS="a b": build only these targets.
# bench-mpm-multi-quick: MPM on GPUs $MPM_DEVICES (default 0,1) against one, the default step.
# bench-mpm-parts: two MPM parts on one GPU (mpm_bench --devices 0,0, silt run --devices 0,0).
# fountain-mpm: scenes/mpm_fountain.json with silt run on one GPU and two.
# frame-rate: bench/frame_rate.py, `silt run`'s wall FPS against stepping alone (issue 19) for the
# fountain, 1.33M snow, the 370K cube and the 16.8M-cell dam break, outputs off and on
# (FRAME_RATE_CASES, default all; frames written to FRAME_RATE_DIR, default /tmp/silt-frame-rate).
# bench-swe-multi: all GPUs of the machine against one (SWE_SIZES, default 4M,16M,64M), halos of
# 2 and 4 layers at 16M, and 2 MPI ranks with one GPU each when MPI is built.
# bench-mpm-multi: MPM falling sand on GPUs 0,1 against one (MPM_SIZES, default
# 55K,389K,1M,3.1M,12.6M; graphs and plain launches), `silt run --devices 0,1` and, with MPI,
# `mpirun -np 2 silt run` on scenes/mpm_sand_column.json.
# view-rate: bench/view_rate.py, the frames a WebSocket client of `silt run --view` receives on the
# 1.33M-particle snow scene, and ms/step with and without it (VIEW_RATE_CASE, default snow; needs
# libcivetweb-dev, libcivetweb1 and libjs-three in .deps/).
# python: the Python package built with CUDA by pip, offline from the wheels in .deps/wheels
# (scikit-build-core, nanobind, ninja, pytest and their dependencies), in a venv over the image's
# python3 (its numpy and torch), then tests/python with the GPU tests (DLPack views into torch and
# CuPy); logs python-*.txt. Its own build (PIC, in build/python/): run it as a call of its own.
# A fault (issue 35): the tests that faulted and SEGV_TESTS run again alone with
# bench/segv_backtrace.c, the first under cuda-gdb (python-pytest-segv.txt, python-gdb.txt,
# python-backtrace.txt). PYTEST_CPU="tests/python/test_run.py ..." runs only those on the CPU.
# python-asan: the same tests under ASan and UBSan (bench/python_asan.sh; below).
# (no argument: build test bench-swe bench-mpm). Results to record go to bench/results/.
set -uo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-/tmp/silt-out}
mkdir -p "$OUT"
stages=("$@")
[ ${#stages[@]} -eq 0 ] && stages=(build test bench-swe bench-mpm)
# DEADLINE=S: a stage not begun S seconds after the start is skipped (a short lease: the stages run
# in this file's order, so list the essential ones first in it, build test stress paper ...).
has() {
  local s
  for s in "${stages[@]}"; do
    [ "$s" = "$1" ] || continue
    if [ -n "${DEADLINE:-}" ] && [ "$SECONDS" -ge "$DEADLINE" ]; then
      echo "stage $1 skipped: ${SECONDS} s gone, DEADLINE=$DEADLINE"
      return 1
    fi
    return 0
  done
  return 1
}

PFX=/tmp/silt-deps
mkdir -p $PFX
for f in .deps/*.deb; do dpkg -x "$f" $PFX; done
export LD_LIBRARY_PATH=$PFX/usr/lib/x86_64-linux-gnu:${LD_LIBRARY_PATH:-}
export NCCL_NVLS_ENABLE=0
# The live viewer's three.js, when libjs-three is carried (silt run --view reads it at start).
[ -d $PFX/usr/share/javascript/three ] && export SILT_THREE_DIR=$PFX/usr/share/javascript/three
{
  date -u; nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.sm,clocks.mem --format=csv
  nvcc --version | tail -2; cmake --version | head -1; nproc
} > "$OUT/machine.txt" 2>&1
cat "$OUT/machine.txt"

B=build-gpu
status=0
# MPI when the machine's Open MPI has its headers (the image's own; Debian's is not carried).
MPI_FLAG=-DSILT_ENABLE_MPI=OFF
if command -v mpicxx >/dev/null 2>&1 && echo '#include <mpi.h>' | mpicxx -E -x c++ - >/dev/null 2>&1; then
  MPI_FLAG=-DSILT_ENABLE_MPI=ON
fi
echo "MPI: $MPI_FLAG"
if has build; then
  cmake -S . -B $B -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_PREFIX_PATH=$PFX/usr \
    -DSILT_ENABLE_GDAL=OFF $MPI_FLAG -DCMAKE_CUDA_FLAGS="-Xptxas -v" \
    > "$OUT/build.log" 2>&1 &&
    cmake --build $B -j "$(nproc)" ${BUILD_TARGETS:+--target $BUILD_TARGETS} >> "$OUT/build.log" 2>&1
  rc=$?
  echo "build rc=$rc"
  if [ $rc -ne 0 ]; then grep -E "error|Error" "$OUT/build.log" | head -40; exit 1; fi
  grep -E "registers|spill" "$OUT/build.log" | sort | uniq -c | sort -rn | head -5
fi
if has test; then
  ctest --test-dir $B -L gpu --output-on-failure --timeout 300 > "$OUT/ctest-gpu.log" 2>&1 || status=1
  # The CUDA-vs-CPU agreement in numbers (float32: the fast-math error of the tile kernel).
  [ -x $B/tests/gpu/swe_backends_test ] &&
    $B/tests/gpu/swe_backends_test --backend=cuda 2>&1 | grep -E ", float(32|64): steps" >> "$OUT/ctest-gpu.log"
  grep -E "tests passed|FAILED|, float(32|64): steps" "$OUT/ctest-gpu.log"
fi
# stress: the paper's snow 20 times (bench/snow_stress.sh; issue 33: none may fail).
if has stress; then
  bash bench/snow_stress.sh $B/apps/silt/silt 20 scenes/mpm_snow_paper.json 60 > "$OUT/stress.txt" 2>&1
  tail -1 "$OUT/stress.txt"
fi
# paper: the paper's table, one part and two parts on GPU 0 (bench/paper_table.py --parts).
if has paper; then
  python3 bench/paper_table.py --silt $B/apps/silt/silt --parts > "$OUT/paper-table.md" 2>&1 ||
    status=1
  grep -E "^\|" "$OUT/paper-table.md"
fi
if has cputest; then
  ctest --test-dir $B -LE gpu --timeout 300 -j 8 > "$OUT/ctest-cpu.log" 2>&1 || status=1
  tail -6 "$OUT/ctest-cpu.log"
fi
if has sass; then
  for x in $B/src/silt/swe/libsilt_swe.a $B/src/silt/mpm/libsilt_mpm.a; do
    [ -f "$x" ] && cuobjdump --dump-sass "$x" > "$OUT/$(basename "$x" .a).sass" 2>&1
  done
fi
if has bench-swe; then
  $B/apps/silt/silt bench swe --backend cuda --csv "$OUT/bench-swe.csv" 2>&1 | tee "$OUT/bench-swe.txt"
fi
# swe-real-run: bench/swe_real_run.sh, the masked real-terrain dam break of issue 34 item 7
# (float64, 1 s gauges, hazard maxima) at 12.5 m (6.1M cells, 2.0M active) and 75 m (56K active).
if has swe-real-run; then
  {
    OUT="$OUT/swe_real_run" bash bench/swe_real_run.sh $B cuda 12.5 4000
    OUT="$OUT/swe_real_run" bash bench/swe_real_run.sh $B cuda 75 4000
  } 2>&1 | tee "$OUT/swe-real-run.txt"
fi
if has bench-swe-variants; then
  {
    # The tile shape is fixed at the measured winner (fused_step.hpp); the variants' numbers stay
    # in bench/results/swe-2026-11-29-h200-variants.txt.
    echo "== plain parallel_for path"
    $B/apps/silt/silt bench swe --backend cuda --plain --sizes 16M
  } 2>&1 | tee "$OUT/bench-swe-variants.txt"
fi
if has bench-swe-multi; then
  ngpu=$(nvidia-smi -L | wc -l)
  devs=$(seq -s, 0 $((ngpu - 1)))
  export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
  {
    echo "== $ngpu GPUs, halo 1"
    $B/apps/silt/silt bench swe --backend cuda --devices "$devs" --sizes "${SWE_SIZES:-4M,16M,64M}" \
      --csv "$OUT/bench-swe-multi.csv"
    for k in 2 4; do
      echo "== $ngpu GPUs, halo $k"
      $B/apps/silt/silt bench swe --backend cuda --devices "$devs" --sizes 16M --precision float32 \
        --halo $k
    done
    if [ "$MPI_FLAG" = -DSILT_ENABLE_MPI=ON ] && [ "$ngpu" -ge 2 ]; then
      echo "== 2 MPI ranks, one GPU each"
      timeout 300 mpirun -np 2 $B/apps/silt/silt bench swe --backend cuda --devices 0 \
        --sizes 16M,64M
    fi
  } 2>&1 | tee "$OUT/bench-swe-multi.txt"
fi
if has bench-mpm-multi && [ -x $B/bench/mpm_bench ]; then
  export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
  {
    echo "== MPM on GPUs 0,1"
    timeout 480 $B/bench/mpm_bench --backend cuda --devices 0,1 \
      --sizes "${MPM_SIZES:-55K,389K,1M,3.1M,12.6M}"
    echo "== silt run --devices 0,1 (sand column, 20 frames)"
    timeout 120 $B/apps/silt/silt run scenes/mpm_sand_column.json --backend cuda --devices 0,1 \
      --set run.frames=20 --set outputs.png=false --overwrite --out /tmp/mpm-2gpu
    if [ "$MPI_FLAG" = -DSILT_ENABLE_MPI=ON ]; then
      echo "== mpirun -np 2 silt run (one GPU per rank)"
      timeout 120 mpirun -np 2 $B/apps/silt/silt run scenes/mpm_sand_column.json --backend cuda \
        --set run.frames=20 --set outputs.png=false --overwrite --out /tmp/mpm-2rank
    fi
  } 2>&1 | tee "$OUT/bench-mpm-multi.txt"
fi
if has bench-mpm-multi-quick && [ -x $B/bench/mpm_bench ]; then
  # MPM on GPUs 0,1 (or MPM_DEVICES, e.g. 0,1,2,3, or 0,0 for two parts on one GPU) against one:
  # the default graph step (one synchronisation per step).
  timeout 300 $B/bench/mpm_bench --backend cuda --devices "${MPM_DEVICES:-0,1}" --multi-quick \
    --sizes "${MPM_SIZES:-55K,389K,1M,3.1M,12.6M}" 2>&1 | tee "$OUT/bench-mpm-multi-quick.txt"
fi
if has fountain-mpm; then
  # The fountain (an emitter, ~127K particles by the end) with `silt run` on one GPU and on GPUs
  # 0,1 (rebalancing lines in the log), without writing frames: wall time per run.
  export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
  F="scenes/mpm_fountain.json --backend cuda --set outputs.formats=[] --set outputs.png=false"
  {
    echo "== one GPU"; timeout 150 $B/apps/silt/silt run $F --overwrite --out /tmp/fountain1
    echo "== GPUs 0,1"; timeout 150 $B/apps/silt/silt run $F --devices 0,1 --overwrite --out /tmp/fountain2
  } > "$OUT/fountain-mpm.txt" 2>&1
  grep -E "^==|split|rebalanced|frame +(1|30|60|90|120|150) |finished" "$OUT/fountain-mpm.txt" | head -60
fi
if has frame-rate; then
  timeout 590 python3 bench/frame_rate.py --silt $B/apps/silt/silt --backend cuda \
    --cases "${FRAME_RATE_CASES:-fountain,snow,cube,dam_break}" \
    --out "${FRAME_RATE_DIR:-/tmp/silt-frame-rate}" --csv "$OUT/frame-rate.csv" 2>&1 |
    tee "$OUT/frame-rate.txt"
fi
if has view-rate; then
  timeout 590 python3 bench/view_rate.py --silt $B/apps/silt/silt --backend cuda \
    --case "${VIEW_RATE_CASE:-snow}" --csv "$OUT/view-rate.csv" 2>&1 | tee "$OUT/view-rate.txt"
fi
if has ncu-mpm && [ -x $B/bench/mpm_bench ]; then
  # P2G and G2P of 1M falling sand after 200 steps (plain launches).
  echo "== ncu: 1M sand"
  timeout 240 ncu --clock-control none --set full --kernel-name-base demangled \
    -k 'regex:enqueue_(p2g|g2p)\(' --launch-skip 400 --launch-count 2 \
    $B/bench/mpm_bench --backend cuda --case sand --sizes 1M --graph false \
    --warmup-steps 200 --steps 10 > "$OUT/ncu-mpm.txt" 2>&1
  grep -E "^== |Duration|Memory Throughput|Compute \(SM\)|L2 Hit|Registers|Achieved Occ" \
    "$OUT/ncu-mpm.txt" | head -60
fi
if has bench-mpm-parts && [ -x $B/bench/mpm_bench ]; then
  # Two parts on one GPU (the exchange without a second GPU): the benchmark and `silt run`.
  {
    timeout 200 $B/bench/mpm_bench --backend cuda --devices 0,0 --sizes 55K,1M,3.1M
    echo "== silt run --devices 0,0 (sand column, 20 frames)"
    timeout 120 $B/apps/silt/silt run scenes/mpm_sand_column.json --backend cuda --devices 0,0 \
      --set run.frames=20 --set outputs.png=false --overwrite --out /tmp/mpm-2parts
  } 2>&1 | tee "$OUT/bench-mpm-parts.txt"
fi
if has bench-mpm && [ -x $B/bench/mpm_bench ]; then
  timeout 300 $B/bench/mpm_bench --backend cuda 2>&1 | tee "$OUT/bench-mpm.txt"
  timeout 200 $B/bench/mpm_bench --backend cuda --ablation --quick 2>&1 | tee "$OUT/bench-mpm-ablation.txt"
fi
if has python; then
  {
    date -u
    python3 --version
    python3 -c "import sysconfig, os; i = sysconfig.get_paths()['include']; print('Python.h', i, os.path.exists(i + '/Python.h'))"
    for m in numpy torch cupy pytest; do
      python3 -c "import $m; print('$m', $m.__version__, getattr(getattr($m, 'cuda', None), 'is_available', lambda: '')())" 2>&1 | tail -1
    done
    ls .deps/wheels
  } > "$OUT/python-env.txt" 2>&1
  cat "$OUT/python-env.txt"
  # The image's numpy (and torch) serve as the package's run-time dependencies: --no-deps, as the
  # wheels carried are only those of the build and of pytest.
  WHEELS="--no-index --find-links $PWD/.deps/wheels"
  PYV=/tmp/silt-pyvenv
  rm -rf $PYV /tmp/silt-pytarget
  # A venv over the image's python3 (itself a venv: /opt/torch/.venv). It sees that one's
  # site-packages (numpy, torch, CuPy) through a .pth file written after the build, not before:
  # they hold a broken pip `cmake` that scikit-build-core would pick over the machine's.
  PYTHONPATH_ADD=""
  INSTALL=()
  PY=python3
  # (At most 8 files come back from $OUT: the venv's messages go to python-build.txt.)
  if python3 -m venv $PYV > "$OUT/python-build.txt" 2>&1; then
    PY=$PYV/bin/python
  else
    echo "no venv (see python-build.txt): installing with --target /tmp/silt-pytarget"
    INSTALL=(--target /tmp/silt-pytarget)
    PYTHONPATH_ADD=/tmp/silt-pytarget
    export PIP_BREAK_SYSTEM_PACKAGES=1
  fi
  # A shared module links shared libraries: the .debs' absolute .so links (libz.so ->
  # /lib/x86_64-linux-gnu/libz.so.1.2.13) point into this machine's /lib, where that file is not,
  # and CMake then falls back to the non-PIC libz.a. Point them into the prefix.
  find $PFX -type l | while read -r l; do
    t=$(readlink "$l")
    case "$t" in /*) [ -e "$PFX$t" ] && ln -sfn "$PFX$t" "$l" ;; esac
  done
  export LD_LIBRARY_PATH=$PFX/lib/x86_64-linux-gnu:$LD_LIBRARY_PATH
  SILT_ENABLE_CUDA=ON CMAKE_BUILD_PARALLEL_LEVEL="$(nproc)" SKBUILD_INSTALL_STRIP=false \
    CMAKE_ARGS="-DCMAKE_PREFIX_PATH=$PFX/usr -DSILT_ENABLE_GDAL=OFF -DCMAKE_CXX_FLAGS=-g" \
    timeout 480 $PY -m pip install -v --disable-pip-version-check --no-deps $WHEELS "${INSTALL[@]}" . \
    >> "$OUT/python-build.txt" 2>&1
  rc=$?
  echo "python build rc=$rc"
  if [ $rc -ne 0 ]; then
    grep -E "error|Error|ERROR" "$OUT/python-build.txt" | head -30
    status=1
  else
    [ -d $PYV ] && python3 -c "import site; print('\n'.join(site.getsitepackages()))" > \
      "$($PY -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')/image-site.pth"
    export PYTHONPATH=${PYTHONPATH_ADD}${PYTHONPATH:+:$PYTHONPATH}
    $PY -c "import pytest" 2>/dev/null ||
      $PY -m pip install -q --disable-pip-version-check $WHEELS "${INSTALL[@]}" pytest \
        >> "$OUT/python-build.txt" 2>&1
    (cd /tmp && $PY -c "import silt; print(silt.__file__, silt.build_id(), 'cuda', silt.cuda_compiled(), silt.cuda_device_count())") 2>&1 |
      tee -a "$OUT/python-env.txt"
    # The libraries the module resolves (which libstdc++, any stdc++fs): python-env.txt.
    MOD=$(cd /tmp && $PY -c 'import silt._silt as m; print(m.__file__)')
    ldd "$MOD" >> "$OUT/python-env.txt" 2>&1
    # The libstdc++ file it gets (libstdc++.so.6.0.32: GCC 13's, .33: GCC 14's) and the newest
    # symbol version the module asks of it.
    {
      readlink -f "$(ldd "$MOD" | awk '/libstdc\+\+/ {print $3}')"
      objdump -T "$MOD" | grep -oE 'GLIBCXX_[0-9.]+' | sort -uV | tail -1
      # The C++ runtime the compiler links (a static libstdc++.a is carried inside the module) and
      # the module's strong exports besides PyInit__silt (python_module_exports_test: none).
      echo "c++ links: $(c++ -print-file-name=libstdc++.so) $(c++ -print-file-name=libstdc++.a)"
      echo "strong exports besides PyInit__silt: $(nm -D --defined-only "$MOD" | awk '$2 !~ /^[WVu]$/ && $3 != "PyInit__silt"' | wc -l)"
    } >> "$OUT/python-env.txt" 2>&1
    # GPU tests first (the DLPack path), then everything else on the CPU backend.
    OMP_NUM_THREADS=8 MPLBACKEND=Agg SILT_CLI="$PWD/$B/apps/silt/silt" timeout 300 \
      $PY -m pytest -v -rs -p no:cacheprovider tests/python/test_dlpack_gpu.py \
      > "$OUT/python-pytest-gpu.txt" 2>&1 || status=1
    tail -12 "$OUT/python-pytest-gpu.txt"
    # A fault's native frames (no gdb on the machine): bench/segv_backtrace.c preloaded (it writes
    # to the stderr the process started with, as pytest captures fd 2 during a test), and
    # addr2line over the module (unstripped and with -g: SKBUILD_INSTALL_STRIP, CMAKE_ARGS above).
    PRELOAD=""
    gcc -shared -fPIC -o /tmp/segv_backtrace.so bench/segv_backtrace.c 2>/dev/null &&
      PRELOAD=/tmp/segv_backtrace.so
    RUNPY=(env LD_PRELOAD="$PRELOAD" OMP_NUM_THREADS=8 MPLBACKEND=Agg SILT_CLI="$PWD/$B/apps/silt/silt")
    # PYTEST_CPU: the tests to run (default all of tests/python but the DLPack ones; the rest's
    # CUDA cases, e.g. test_ensemble.py's silt.Ensemble against `silt run --backend cuda`, run
    # here: they need the CLI of the build stage, so run `build` first on the same machine).
    # shellcheck disable=SC2086  # PYTEST_CPU: paths separated by spaces
    "${RUNPY[@]}" timeout 240 $PY -X faulthandler -m pytest -v -rs -p no:cacheprovider \
      ${PYTEST_CPU:-tests/python} --ignore=tests/python/test_dlpack_gpu.py \
      > "$OUT/python-pytest-cpu.txt" 2>&1 || status=1
    grep -E "passed|failed|FAILED|Fatal" "$OUT/python-pytest-cpu.txt" | tail -8
    # After a fault (or with SEGV_TESTS set): the test that faulted (pytest -v names it before it
    # runs) and SEGV_TESTS (default issue 35's two and the MPM restart, which claims its folder
    # alike), each alone, then their two files whole, without Python's faulthandler: the preloaded
    # handler then gets the fault itself (Python's re-raises it and the fault's address is lost).
    # Then the first under cuda-gdb (the image has it, and no gdb; it debugs host code too): the
    # faulting instruction, the registers and every thread's frames.
    faulted=$(grep -oE '^tests/python/[^ ]+::[^ ]+ Fatal Python error' "$OUT/python-pytest-cpu.txt" | cut -d' ' -f1)
    : > "$OUT/python-pytest-segv.txt"
    if [ -n "$faulted" ] || [ -n "${SEGV_TESTS:-}" ]; then
      SEGV_TESTS=${SEGV_TESTS:-tests/python/test_run.py::test_run_checkpoints_and_refusals tests/python/test_run_restart.py::test_swe_restored_run_continues_its_folder tests/python/test_run_restart.py::test_mpm_restored_run_continues_its_folder}
      for t in $faulted $SEGV_TESTS "tests/python/test_run.py tests/python/test_run_restart.py"; do
        echo "=== $t" >> "$OUT/python-pytest-segv.txt"
        # shellcheck disable=SC2086  # $t: one or two test paths
        "${RUNPY[@]}" timeout 120 $PY -m pytest -v -s -p no:cacheprovider -p no:faulthandler $t \
          >> "$OUT/python-pytest-segv.txt" 2>&1
        echo "=== rc=$? $t" | tee -a "$OUT/python-pytest-segv.txt"
      done
      first=$(echo $faulted $SEGV_TESTS | cut -d' ' -f1)
      if command -v cuda-gdb >/dev/null 2>&1; then
        LD_PRELOAD="" OMP_NUM_THREADS=8 MPLBACKEND=Agg SILT_CLI="$PWD/$B/apps/silt/silt" timeout 150 \
          cuda-gdb -batch -ex "set pagination off" -ex "handle SIGINT pass nostop noprint" \
          -ex run -ex "bt 40" -ex "info registers" -ex "x/8i \$pc-16" -ex "thread apply all bt 12" \
          --args $PY -m pytest -v -s -p no:cacheprovider -p no:faulthandler "$first" \
          > "$OUT/python-gdb.txt" 2>&1
        grep -E "^Thread .* received signal|^#[0-9]+ " "$OUT/python-gdb.txt" | head -30
      fi
    fi
    for log in python-pytest-cpu.txt python-pytest-segv.txt; do
      grep -oE '=== (native|rc).*|^  maps:.*' "$OUT/$log" | sed "s|^|$log: |"
      # The shared objects' frames (the interpreter's own are Python's).
      grep -oE '^/[^ ]+\.so[.0-9]*\(\+0x[0-9a-f]+\)' "$OUT/$log" | while IFS='(' read -r lib off; do
        off=${off#+}; off=${off%)}
        echo "$log $lib $off $(addr2line -f -C -i -e "$lib" "$off" 2>/dev/null | paste -sd' ')"
      done
    done > "$OUT/python-backtrace.txt"
    [ -s "$OUT/python-backtrace.txt" ] && cat "$OUT/python-backtrace.txt"
  fi
fi
# python-asan: bench/python_asan.sh, tests/python on the CPU backend with the module built with
# -fsanitize=address,undefined (CUDA on, as the python stage's; in build-asan-py/, kept: a call that
# ran out of time in the build goes on from there), in a venv of its own over the image's python3
# (its numpy) with nanobind and pytest from .deps/wheels; logs python-asan-*.txt. Its own call.
if has python-asan; then
  PYA=/tmp/silt-pyvenv-asan
  [ -x $PYA/bin/python ] || {
    python3 -m venv $PYA &&
      $PYA/bin/python -m pip install -q --disable-pip-version-check --no-index \
        --find-links "$PWD/.deps/wheels" nanobind pytest &&
      python3 -c "import site; print('\n'.join(site.getsitepackages()))" > \
        "$($PYA/bin/python -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')/image-site.pth"
  } > "$OUT/python-asan-venv.txt" 2>&1
  # The .debs' absolute .so links into the prefix, as the python stage does.
  find $PFX -type l | while read -r l; do
    t=$(readlink "$l")
    case "$t" in /*) [ -e "$PFX$t" ] && ln -sfn "$PFX$t" "$l" ;; esac
  done
  export LD_LIBRARY_PATH=$PFX/lib/x86_64-linux-gnu:$LD_LIBRARY_PATH
  CMAKE_ARGS="-DSILT_ENABLE_CUDA=ON -DCMAKE_PREFIX_PATH=$PFX/usr -DSILT_ENABLE_GDAL=OFF" \
    JOBS="$(nproc)" TIMEOUT=300 OMP_NUM_THREADS=8 SILT_CLI="$PWD/$B/apps/silt/silt" OUT="$OUT" \
    timeout 560 bash bench/python_asan.sh $PYA/bin/python build-asan-py || status=1
fi
exit $status
