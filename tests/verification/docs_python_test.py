#!/usr/bin/python3
"""The ```python blocks of docs/scenes-swe.md, as written, in the output folders of two runs of a
small scene with a boundary, a source and a cross section (issue 34, item 6): one with "formats"
["asc", "nc"] (fields.nc, hydrograph.nc), one with "netcdf": "frames" (a file per field and
frame); a block that stacks depth_*.nc runs in the second, the others in the first. Run with the
venv's Python (/opt/silt-venv: Debian's xarray, netCDF4 and numpy, without dask, as
scripts/install-deps.sh installs them), so the examples need nothing more.

Usage: docs_python_test.py <silt> <docs/scenes-swe.md> <work dir>"""
import json
import os
import shutil
import subprocess
import sys

SCENE = {
    "solver": "swe", "name": "docs",
    "grid": {"nx": 30, "ny": 12, "dx": 5.0, "origin": [1000, 2000]},
    "bed": {"value": 1.0, "gradient": [-0.005, 0.0]},
    "initial": {"depth": 0.05},
    "boundaries": [{"name": "river", "side": "west", "type": "discharge", "discharge": 2.0},
                   {"name": "weir", "side": "east", "type": "open"}],
    "sources": [{"name": "pipe", "x": 1060, "y": 2030, "discharge": 0.2}],
    "run": {"end_time": 60, "output_interval": 20},
    "outputs": {"fields": ["depth", "max_depth"], "png": "none",
                "cross_sections": [{"name": "mid", "points": [[1075, 2060], [1075, 2000]]}]},
}


def blocks(path):
    out, block = [], None
    for line in open(path):
        if line.startswith("```"):
            if block is None and line.strip() == "```python":
                block = []
            elif block is not None:
                out.append("".join(block))
                block = None
            continue
        if block is not None:
            block.append(line)
    return out


def run(silt, work, name, outputs):
    scene = dict(SCENE, name=name)
    scene["outputs"] = dict(SCENE["outputs"], **outputs)
    path = os.path.join(work, name + ".json")
    with open(path, "w") as f:
        json.dump(scene, f)
    out = os.path.join(work, name)
    subprocess.run([silt, "run", path, "--out", out, "-q"], check=True)
    return out


def main():
    silt, doc, work = sys.argv[1:4]
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    one = run(silt, work, "run_file", {"formats": ["asc", "nc"]})
    frames = run(silt, work, "frame_files", {"formats": ["nc"], "netcdf": "frames"})
    code = blocks(doc)
    if len(code) < 3:
        print(f"FAIL: {len(code)} python blocks in {doc}, expected at least 3")
        sys.exit(1)
    for k, text in enumerate(code):
        where = frames if "depth_*.nc" in text else one
        p = subprocess.run([sys.executable, "-c", text], cwd=where, capture_output=True, text=True)
        first = text.splitlines()[0]
        if p.returncode != 0:
            print(f"FAIL: block {k} ({first}) in {where}:\n{p.stderr}")
            sys.exit(1)
        print(f"ok   block {k} ({first}):\n{p.stdout}")
    print("PASS")


if __name__ == "__main__":
    main()
