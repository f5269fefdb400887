#!/bin/bash
# What rain rasters and infiltration cost the CPU row step: instructions of phase_row_update
# (callgrind, one thread) over 0.6 s of scenes/dam_break.json (200 x 200, wet everywhere, 15
# steps) with uniform rain, the same rain as a raster (step interpolation: the same depths bit for
# bit), and that raster with Green-Ampt or Horton soil whose rates (1e-27 mm/h) change no float32
# depth, so every variant steps the same states.
#   bash bench/rain/forcing_cost.sh BUILD_DIR WORK_DIR
set -u
B=${1:-build}/apps/silt/silt
W=${2:-/tmp/silt-rain-cost}
S=$(cd "$(dirname "$0")/../.." && pwd)/scenes/dam_break.json
mkdir -p "$W"
python3 -c "
rows = ['20' + ' 20' * 199] * 200
open('$W/rain20.asc', 'w').write('ncols 200\nnrows 200\nxllcorner 0\nyllcorner 0\ncellsize 1\nNODATA_value -9999\n' + '\n'.join(rows) + '\n')"
common=(--backend cpu --overwrite --set run.end_time=0.6 --set 'outputs.png="none"' --set 'outputs.fields=["depth"]' --set 'outputs.gauges.points=[]')
R="{\"frames\":[{\"time\":0,\"raster\":\"$W/rain20.asc\"}],\"interpolation\":\"step\"}"
declare -A V
V[a_uniform]="--set rainfall_mm_h=20"
V[b_raster]="--set rainfall=$R"
V[c_raster_ga]="--set rainfall=$R --set infiltration={\"model\":\"green_ampt\",\"conductivity_mm_h\":1e-27,\"suction_m\":0.11,\"porosity\":0.4,\"initial_moisture\":0.1}"
V[d_raster_horton]="--set rainfall=$R --set infiltration={\"model\":\"horton\",\"initial_rate_mm_h\":1e-27,\"final_rate_mm_h\":1e-28,\"decay_per_h\":2}"
for k in a_uniform b_raster c_raster_ga d_raster_horton; do
  OMP_NUM_THREADS=1 valgrind --tool=callgrind --callgrind-out-file=$W/$k.out \
    --toggle-collect='silt::swe::detail::phase_row_update*' $B run $S "${common[@]}" ${V[$k]} --out $W/out_$k > $W/$k.log 2>&1
  steps=$(grep -o "[0-9]* steps in" $W/$k.log | head -1)
  ir=$(callgrind_annotate $W/$k.out 2>/dev/null | grep -m1 "PROGRAM TOTALS" | awk '{print $1}')
  echo "$k ir=$ir $steps"
done
