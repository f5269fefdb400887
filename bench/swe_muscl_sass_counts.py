#!/usr/bin/env python3
"""SASS instruction counts of the second-order scheme's stage tile kernel (src/silt/swe/
muscl_tile.cpp, muscl_tile_kernel<false, false, T>) per phase and owned cell, without a GPU.
Compiles the unit for sm_90 with the build's flags plus -lineinfo (swe_sass_counts.py's
compile line), disassembles it with nvdisasm -gi and, per precision:
  static  each phase's loop body (stage, slopes x and y, edges x and y, update: the loops between
          the barriers, found as backward branches) times its items per tile over the tile's owned
          cells (float32 tiles 32 x 12, float64 32 x 4, full tiles; the stage loop is unrolled
          twice, so its body counts two items);
  hot     the same with the instructions of cold regions left out (HLLE, the transonic fix, a
          cut reconstructed depth, the Chen-Noelle push, boundary and zero slopes, the zero flux
          between inactive cells, fault reports): a wet interior tile's path. Both branches of a
          hot if/else count, so for a loop body with such branches hot is an upper bound.
Prints a markdown table per precision and the kernel's MUFU and CALL counts per owned cell.
    NVDISASM=.../nvdisasm python3 bench/swe_muscl_sass_counts.py [--keep DIR]
"""
import argparse
import collections
import os
import re
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import swe_sass_counts as S  # noqa: E402

S.COLD = [
    ("silt/swe/kernels/roe_flux_k.hpp", r"SILT_HD Flux<T> hlle_flux_k\("),
    ("silt/swe/kernels/roe_flux_k.hpp", r"if \(math::any\(transonic\)\)"),
    ("silt/swe/kernels/roe_flux_k.hpp", r"if \(!math::all\(roe\)\) f = select_flux_k"),
    ("silt/swe/kernels/bed_source_k.hpp", r"if \(math::any\(cut_[lr]\)\) r[lr] ="),
    ("silt/swe/kernels/bed_source_k.hpp", r"if \(math::any\(push_[lr]\)\) p[lr] ="),
    ("silt/swe/kernels/muscl_k.hpp", r"SILT_HD Slopes<T> muscl_boundary_slopes_k\("),
    ("silt/swe/kernels/muscl_k.hpp", r"if \(!\(l\.h > dry && c\.h > dry && r\.h > dry\)\) return"),
    ("silt/swe/muscl_edges.hpp", r"if \(west \|\| east\) \{"),
    ("silt/swe/muscl_tile.cpp", r"if \(!left && !right\) return"),
    ("silt/swe/muscl_cell.hpp", r"if \(code != kFaultNone"),
]
S.COLD_FILES = ["silt/core/error.hpp"]

# Owned cells of a full tile and (items per tile, items per loop body) of each loop in order.
TILES = {"float32": ("ILb0ELb0EfLi32ELi12E", 384,
                     [(576, 2), (408, 1), (448, 1), (396, 1), (416, 1), (384, 1)]),
         "float64": ("ILb0ELb0EdLi32ELi4E", 128,
                     [(288, 2), (136, 1), (192, 1), (132, 1), (160, 1), (128, 1)])}
PHASES = ["stage", "slopes", "slopes", "edges", "edges", "update"]


def kernel(sass, key):
    """[(address, text, frames)] of the kernel whose name holds key, and its labels."""
    for name, (ins, labels) in S.parse_functions(sass).items():
        if name.startswith("_Z") and key in name:
            return ins, labels
    return [], {}


def compile_sass(out, keep):
    """(SASS of muscl_tile.cpp's kernels, ptxas's report) for sm_90, in folder out."""
    nvcc = os.environ.get("NVCC", "/usr/local/cuda/bin/nvcc")
    nvdisasm = S.find_nvdisasm(nvcc)
    os.makedirs(out, exist_ok=True)
    cubin = os.path.join(out, "muscl_tile.cubin")
    cmd = [nvcc, "-DFMT_HEADER_ONLY=1", "-DSILT_BUILD_WITH_CUDA=1", "-I" + S.SRC, "-O3", "-DNDEBUG",
           "--generate-code=arch=compute_90,code=[sm_90]", "--extended-lambda",
           "--expt-relaxed-constexpr", "-Xcompiler=-fopenmp", "-Xcompiler=-fno-math-errno",
           "--use_fast_math", "-std=c++17", "-lineinfo", "-Xptxas", "-v", "-x", "cu", "-cubin",
           os.path.join(S.SRC, "silt/swe/muscl_tile.cpp"), "-o", cubin]
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit(r.stderr)
    sass = subprocess.run([nvdisasm, "-c", "-gi", cubin], capture_output=True, text=True,
                          check=True).stdout
    if keep:
        open(os.path.join(out, "muscl_tile.sass"), "w").write(sass)
    return sass, r.stderr


def function_lines(rel, pattern):
    """The lines of the function whose first line matches pattern in rel (brace matched)."""
    lines = open(os.path.join(S.SRC, rel)).read().split("\n")
    k = next(k for k, text in enumerate(lines) if re.search(pattern, text))
    return set(S.block_lines(lines, k))


def straight_region(ins, rel, pattern):
    """(first, last address) of a phase without a loop (its loop unrolled away): from the first
    instruction inlined from the function (rel, pattern) to the next barrier."""
    lines = function_lines(rel, pattern)
    lo = next(a for a, _, frames in ins
              if any(path.endswith(rel) and line in lines for path, line in frames))
    hi = next(a for a, text, _ in ins if a > lo and text.startswith("BAR.SYNC"))
    return lo, hi


def tables(sass, ptxas, tiles, phases, what, tail=0, straight=None):
    """Prints the table of each precision of tiles (as TILES) over phases (as PHASES, one a loop);
    returns {precision: (sum static, sum hot)} per owned cell. tail: up to that many loops after
    the last phase's are left out (a float64 atomic maximum's compare-and-swap loop). straight:
    {precision: {phase index: (source path, pattern of its function's first line)}} for a phase
    that is no loop (its items' (n, per): each thread runs its region once, n = the block's
    threads)."""
    cold = S.cold_lines()
    straight = straight or {}
    names = list(dict.fromkeys(phases))
    sums = {}
    for prec, (key, cells, items) in tiles.items():
        ins, labels = kernel(sass, key)
        loops = []
        for a, text, frames in ins:
            m = re.search(r"BRA.*`\((\.L_x_\d+)\)", text)
            # A warp shuffle's fallback for a diverged warp (sm_30_intrinsics.hpp) branches back
            # into its loop from beyond the kernel's end: not a loop of its own.
            if any(path.endswith("sm_30_intrinsics.hpp") for path, _ in frames[:1]):
                continue
            if m and labels.get(m.group(1)) is not None and labels[m.group(1)] < a:
                loops.append((labels[m.group(1)], a))
        for k, where in sorted(straight.get(prec, {}).items()):
            loops.insert(k, straight_region(ins, *where))
        if len(items) < len(loops) <= len(items) + tail:
            loops = loops[:len(items)]
        if len(loops) != len(items):
            sys.exit(f"{prec}: {len(loops)} loops in the kernel, {len(items)} expected")
        rows = collections.defaultdict(collections.Counter)
        for (n, per), (lo, hi), ph in zip(items, loops, phases):
            w = n / per / cells
            for a, text, frames in ins:
                if not lo <= a <= hi:
                    continue
                op = text.split()[0]
                hot = not S.is_cold(frames, cold)
                for label, take in (("static", True), ("hot", hot)):
                    if not take:
                        continue
                    rows[(ph, label)]["total"] += w
                    rows[(ph, label)][S.classify(op)] += w
                    if op.startswith("MUFU"):
                        rows[(ph, label)]["  " + ".".join(op.split(".")[:2])] += w
                    if op.startswith("CALL"):
                        rows[(ph, label)]["  CALL"] += w
        cols = [(ph, label) for label in ("static", "hot") for ph in names]
        keys = ["total"] + [n for n, _ in S.CLASSES] + ["other"]
        keys += sorted({k for c in cols for k in rows[c] if k.startswith("  ")})
        print(f"\n{prec} {what}, instructions per owned cell ({len(ins)} in the body)\n")
        print("| | " + " | ".join(f"{ph} {label}" for ph, label in cols) +
              " | sum static | sum hot |")
        print("|---" * (len(cols) + 3) + "|")
        for k in keys:
            vals = [rows[c][k] for c in cols]
            if not any(vals):
                continue
            s = sum(rows[(ph, "static")][k] for ph in names)
            h = sum(rows[(ph, "hot")][k] for ph in names)
            print(f"| {k.strip()} | " + " | ".join(f"{v:.1f}" for v in vals) +
                  f" | {s:.1f} | {h:.1f} |")
        sums[prec] = (sum(rows[(ph, "static")]["total"] for ph in names),
                      sum(rows[(ph, "hot")]["total"] for ph in names))
    print()
    for prec, (key, _, _) in tiles.items():
        m = re.search(r"Function properties for \S*" + key +
                      r"\S*\n\s*(.*)\n.*?Used (\d+) registers", ptxas)
        if m:
            print(f"ptxas {prec}: {m.group(2)} registers, {m.group(1).strip()}")
    return sums


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--keep", help="write the cubin and SASS into this folder")
    args = ap.parse_args()
    sass, ptxas = compile_sass(args.keep or tempfile.mkdtemp(prefix="swe-muscl-sass-"), args.keep)
    tables(sass, ptxas, TILES, PHASES, "stage kernel")


if __name__ == "__main__":
    main()
