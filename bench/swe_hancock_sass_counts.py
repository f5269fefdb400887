#!/usr/bin/env python3
"""SASS instruction counts of the MUSCL-Hancock step's tile kernel (src/silt/swe/muscl_tile.cpp,
hancock_tile_kernel<kCfl, T>) per phase and owned cell, without a GPU, beside the muscl scheme's
per step: as swe_muscl_sass_counts.py (the same compile, the same cold regions, static and hot),
over the Hancock kernel's loops: stage, slopes+predict (x and y slopes and the predictor of each
predicted cell in one loop; two loops before 2026-12-06d), edges (the y edges, then the tile's
east column of x edges), update+x edges (each cell's update with its west x edge, computed by the
thread that updates it; before hancock2 the x edges were a loop of the edges phase). Prints a
table per precision and kernel (kCfl false: as the muscl
stage kernel that swe_muscl_sass_counts.py counts; kCfl true: with the CFL reduction, as the
engine runs it without point sources), then the hot instructions per owned cell and step of both
schemes (muscl: two stages of its stage kernel).
    NVDISASM=.../nvdisasm python3 bench/swe_hancock_sass_counts.py [--keep DIR]
"""
import argparse
import os
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import swe_muscl_sass_counts as M  # noqa: E402  (sets the cold regions)

# The Hancock kernel's own cold regions: the boundary flux of an edge with an inactive side, the
# predictor's boundary flux differences and the boundary volume of a cell on the grid's edge (a
# wet interior tile takes none of them).
M.S.COLD += [
    ("silt/swe/muscl_tile.cpp", r"SILT_HD SILT_FORCEINLINE EdgeFlux<T> hancock_tile_boundary_flux\("),
    ("silt/swe/muscl_tile.cpp", r"if \(v\.e\.owns\(i, j\) && \(gi == 0"),
    ("silt/swe/muscl_tile.cpp", r"const FluxDifferences<T> b = hancock_boundary_differences"),
]

# (kernel key, owned cells of a full tile, (items per tile, items per loop body) of each loop).
# The tiles are the Hancock kernel's own (muscl_tile.cpp, kHancockOY): float32 32 x 16: staged
# 36 x 20, predicted cells the tile's 32 x 16 and the ring's 96 (kPredictItems: 608), y edges
# 17 x 32, the east column's 16 x edges, the update's 512 cells with their west x edges; float64
# 32 x 12: staged 36 x 16, predicted 384 + 88, y edges 13 x 32, the column's 12, the update's 384.
# The float32 stage (hancock_stage_phase) is no loop: each of the 256 threads takes its items (up
# to 3 of the 720) in one pass, so its region counts 256 times a tile; float64's is stage_phase's.
HANCOCK_OY = {"float32": 16, "float64": 12}
HANCOCK = {
    "float32": [(256, 1), (608, 1), (544, 1), (16, 1), (512, 1)],
    "float64": [(576, 2), (472, 1), (416, 1), (12, 1), (384, 1)],
}
STRAIGHT = {"float32": {0: ("silt/swe/muscl_tile.cpp", r"^SILT_HD void hancock_stage_phase\(")}}
PHASES = ["stage", "slopes+predict", "edges", "edges", "update+x edges"]


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--keep", help="write the cubin and SASS into this folder")
    ap.add_argument("--items", help="float32 and float64 items per loop body, e.g. "
                    "'2,1,1,1,1,1;2,1,1,1,1,1' (when the compiler unrolls otherwise)")
    args = ap.parse_args()
    if args.items:
        for prec, per in zip(HANCOCK, args.items.split(";")):
            HANCOCK[prec] = [(n, int(p)) for (n, _), p in zip(HANCOCK[prec], per.split(","))]
    sass, ptxas = M.compile_sass(args.keep or tempfile.mkdtemp(prefix="swe-hancock-sass-"),
                                 args.keep)
    muscl = M.tables(sass, ptxas, M.TILES, M.PHASES, "muscl stage kernel")
    # The muscl final stage as the engine runs it without point sources (Heun's average,
    # infiltration, maximum depth, the CFL speed): muscl_tile_kernel<true, true, T>.
    final = {prec: (key.replace("ILb0ELb0E", "ILb1ELb1E"), cells, items)
             for prec, (key, cells, items) in M.TILES.items()}
    muscl_final = M.tables(sass, ptxas, final, M.PHASES, "muscl final-stage kernel with the CFL "
                           "speed", tail=1)
    step = {}
    for cfl in (False, True):
        tiles = {prec: (f"hancock_tile_kernelILb{int(cfl)}E{'f' if prec == 'float32' else 'd'}"
                        f"Li32ELi{HANCOCK_OY[prec]}E", 32 * HANCOCK_OY[prec], HANCOCK[prec])
                 for prec in HANCOCK}
        step[cfl] = M.tables(sass, ptxas, tiles, PHASES,
                             "MUSCL-Hancock kernel" + (" with the CFL speed" if cfl else ""),
                             tail=1, straight=STRAIGHT)
    print("\nhot (static) instructions per owned cell and step:\n")
    print("| | muscl 2 x stage kernel | muscl stage + final with CFL | MUSCL-Hancock | "
          "MUSCL-Hancock with CFL | ratio, without CFL | ratio, with CFL |")
    print("|---|---|---|---|---|---|---|")
    for prec in HANCOCK:
        (ms, mh), (fs, fh) = muscl[prec], muscl_final[prec]
        (hs, hh), (cs, ch) = step[False][prec], step[True][prec]
        print(f"| {prec} | {2 * mh:.0f} ({2 * ms:.0f}) | {mh + fh:.0f} ({ms + fs:.0f}) | "
              f"{hh:.0f} ({hs:.0f}) | {ch:.0f} ({cs:.0f}) | {2 * mh / hh:.2f} | "
              f"{(mh + fh) / ch:.2f} |")


if __name__ == "__main__":
    main()
