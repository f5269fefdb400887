#!/usr/bin/env python3
"""The VFX outputs of `silt run` (issue 18) read back by the field's own readers, which share no
code with silt:

  --check readers  OpenVDB's Python module (python3-openvdb) reads the volume grids: names, class,
                   the mass they hold against the particle count, velocities within the
                   particles' range, and a z-up run's grids as the y-up run's turned; OpenVDB's
                   vdb_print (libopenvdb-tools) reads the point grids' names and counts (pyopenvdb
                   does not read point grids); VTK and numpy read the PLY and VTP of both runs, the
                   z-up positions and velocities being the y-up ones turned (x, y, z) -> (x, -z, y).
  --check blender  Blender headless (Debian's blender) imports a frame through
                   tools/blender/silt_import.py (tests/unit/mpm_vfx_blender_check.py runs inside
                   Blender): point count, attribute names, values of a few particles against what
                   VTK reads from the frame's .vtp, the volume's grids, a sequence's visibility.
                   Exit 77 (ctest: skipped) with a message when blender is not installed.

usage: mpm_vfx_readers.py --silt PATH --check readers|blender --work DIR [--tools DIR]
"""
import argparse
import json
import os
import re
import shutil
import subprocess
import sys

import numpy as np

SCENE = {
    "solver": "mpm", "name": "vfx_check",
    "domain": {"min": [0, 0, 0], "max": [1, 1, 1], "dx": 0.05},
    "materials": [{"name": "sand", "kind": "sand"}, {"name": "goo", "kind": "jelly", "density": 1200}],
    "sources": [
        {"material": "sand", "shape": "box", "min": [0.2, 0.1, 0.2], "max": [0.5, 0.3, 0.5],
         "velocity": [0.5, 0, -0.3]},
        {"material": "goo", "shape": "sphere", "center": [0.6, 0.6, 0.6], "radius": 0.12,
         "velocity": [0, -1, 0.2], "particles_per_cell": 27}],
    "run": {"frames": 1, "frame_dt": 0.02},
    "outputs": {"formats": ["ply", "vtp", "vdb"], "with_stress": True, "volume": {}},
}
# Float32 sums of splat weights against the float64 particle total.
MASS_TOL = 1e-5
# The same splat from positions measured from another corner: round-off of (x - origin) / h.
TURNED_TOL = 1e-5
# |S_yz - S_zy| of the solver's float32 Cauchy stress, relative to its largest shear.
STRESS_ASYM = 1e-5


def fail(msg):
    print("FAIL:", msg)
    sys.exit(1)


def run_silt(silt, work, up):
    out = os.path.join(work, "out_" + up)
    shutil.rmtree(out, ignore_errors=True)
    scene = os.path.join(work, "scene.json")
    with open(scene, "w") as f:
        json.dump(SCENE, f)
    cmd = [silt, "run", scene, "--out", out, "--set", f"outputs.up_axis={up}"]
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        fail(f"{' '.join(cmd)} exited {r.returncode}:\n{r.stdout}\n{r.stderr}")
    return out


def read_ply(path):
    raw = open(path, "rb").read()
    end = raw.index(b"end_header\n") + len(b"end_header\n")
    types = {"float": "<f4", "int": "<i4"}
    fields, count = [], 0
    for line in raw[:end].decode("ascii").splitlines():
        w = line.split()
        if w[:2] == ["element", "vertex"]:
            count = int(w[2])
        elif w[:1] == ["property"]:
            fields.append((w[2], types[w[1]]))
    return np.frombuffer(raw[end:], dtype=np.dtype(fields), count=count)


def read_vtp(path):
    import vtk
    from vtk.util.numpy_support import vtk_to_numpy
    r = vtk.vtkXMLPolyDataReader()
    r.SetFileName(path)
    r.Update()
    pd = r.GetOutput()
    out = {"points": vtk_to_numpy(pd.GetPoints().GetData())}
    data = pd.GetPointData()
    for i in range(data.GetNumberOfArrays()):
        out[data.GetArrayName(i)] = vtk_to_numpy(data.GetArray(i))
    return out


def vdb_print(path):
    exe = shutil.which("vdb_print")
    if not exe:
        fail("vdb_print not found (Debian: libopenvdb-tools; scripts/install-deps.sh installs it)")
    r = subprocess.run([exe, "-l", "-m", path], capture_output=True, text=True)
    if r.returncode != 0:
        fail(f"vdb_print {path}: {r.stderr}")
    return r.stdout


def particle_mass(resolved):
    """kg per particle of each material: density dx^3 / ppc (of the material's source)."""
    dx = resolved["domain"]["dx"]
    names = [m["name"] for m in resolved["materials"]]
    mass = [0.0] * len(names)
    for s in resolved["sources"]:
        k = names.index(s["material"])
        mass[k] = resolved["materials"][k]["density"] * dx ** 3 / s["particles_per_cell"]
    return mass


def active_voxels(grid):
    out = {}
    for item in grid.citerOnValues():
        if item["count"] != 1:
            fail(f"grid '{grid.name}': an active tile; silt writes voxels only")
        out[tuple(item["min"])] = item["value"]
    return out


def check_volume(out, ply, resolved):
    import pyopenvdb as vdb
    path = os.path.join(out, "volume_0001.vdb")
    meta = {g.name: g for g in vdb.readAllGridMetadata(path)}
    if set(meta) != {"density", "velocity"}:
        fail(f"{path}: grids {sorted(meta)}, expected density and velocity")
    if meta["density"].gridClass != vdb.GridClass.FOG_VOLUME:
        fail(f"{path}: density is of class {meta['density'].gridClass}, not a fog volume")
    density = vdb.read(path, "density")
    velocity = vdb.read(path, "velocity")
    if not isinstance(velocity, vdb.Vec3SGrid):
        fail(f"{path}: velocity is a {type(velocity).__name__}, not a Vec3SGrid")
    h = density.transform.voxelSize()[0]
    if abs(h - resolved["domain"]["dx"]) > 1e-12:
        fail(f"{path}: voxel size {h}, expected dx = {resolved['domain']['dx']}")
    rho = active_voxels(density)
    held = sum(rho.values()) * h ** 3
    mass = particle_mass(resolved)
    total = sum(mass[m] for m in ply["material"])
    if abs(held / total - 1) > MASS_TOL:
        fail(f"{path}: the density grid holds {held} kg, the {len(ply)} particles {total} kg")
    v = active_voxels(velocity)
    if set(v) != set(rho):
        fail(f"{path}: velocity and density have different active voxels")
    pv = np.column_stack([ply["vx"], ply["vy"], ply["vz"]])
    lo, hi = pv.min(axis=0) - 1e-5, pv.max(axis=0) + 1e-5
    for c, val in v.items():
        if rho[c] > 0 and not (np.all(np.array(val) >= lo) and np.all(np.array(val) <= hi)):
            fail(f"{path}: velocity {val} at voxel {c} outside the particles' range {lo}..{hi}")
    print(f"  {path}: density and velocity, {len(rho)} voxels of {h} m, {held:.6g} kg "
          f"= particles' {total:.6g} kg")
    return rho, h


def check_points(out, n):
    path = os.path.join(out, "particles_0001.vdb")
    text = vdb_print(path)
    if not re.search(r"^Name: points$", text, re.M):
        fail(f"{path}: vdb_print shows no grid named points:\n{text}")
    if not re.search(r"Type: Tree_ptdataidx32", text):
        fail(f"{path}: 'points' is not an OpenVDB point data grid:\n{text}")
    m = re.search(r"silt_points: (\d+)", text)
    if not m or int(m.group(1)) != n:
        fail(f"{path}: silt_points {m.group(1) if m else 'missing'}, the PLY has {n}")
    print(f"  {path}: vdb_print: point grid 'points', {n} points")


def by_id(a):
    return a[np.argsort(a["id"])]


def check_readers(silt, work):
    outs = {up: run_silt(silt, work, up) for up in ("y", "z")}
    resolved = json.load(open(os.path.join(outs["y"], "resolved_scene.json")))
    rho = {}
    for up, out in outs.items():
        ply = read_ply(os.path.join(out, "particles_0001.ply"))
        check_points(out, len(ply))
        rho[up], h = check_volume(out, ply, resolved)
    # z up: every particle turned, (x, y, z) -> (x, -z, y), in the PLY (and the VTP agrees).
    y, z = by_id(read_ply(os.path.join(outs["y"], "particles_0001.ply"))), by_id(
        read_ply(os.path.join(outs["z"], "particles_0001.ply")))
    for a, b, sign in (("x", "x", 1), ("y", "z", 1), ("z", "y", -1),
                       ("vx", "vx", 1), ("vy", "vz", 1), ("vz", "vy", -1)):
        if not np.array_equal(z[b], sign * y[a]):
            fail(f"up_axis z: {b} is not {'-' if sign < 0 else ''}{a} of the y-up run")
    # syz' = -S_zy, and the solver's float stress is symmetric to round-off only.
    scale = STRESS_ASYM * max(np.abs(y["syz"]).max(), 1e-30)
    if not np.array_equal(z["syy"], y["szz"]) or not np.allclose(z["syz"], -y["syz"], 0, scale):
        fail("up_axis z: the stress is not R S R^T of the y-up run's")
    vtp = read_vtp(os.path.join(outs["z"], "particles_0001.vtp"))
    order = np.argsort(vtp["id"])
    if not np.array_equal(vtp["points"][order], np.column_stack([z["x"], z["y"], z["z"]])):
        fail("up_axis z: the .vtp's points differ from the .ply's")
    # The z-up volume is the y-up volume turned: voxel (i, j, k) -> (i, n - k, j), n = 1 m / h.
    n = round(1.0 / h)
    turned = {(i, n - k, j): val for (i, j, k), val in rho["y"].items()}
    if set(turned) != set(rho["z"]):
        fail(f"up_axis z: {len(rho['z'])} active voxels, the turned y-up grid {len(turned)}")
    worst = max(abs(rho["z"][c] - val) / max(val, 1e-30) for c, val in turned.items() if val > 1)
    if worst > TURNED_TOL:
        fail(f"up_axis z: density differs from the turned y-up grid by {worst:.3g} (relative)")
    print(f"  up_axis z: particles turned exactly, density grid turned within {worst:.2g}")
    print("readers: ok")


def check_blender(silt, work, tools):
    blender = shutil.which("blender")
    if not blender:
        print("SKIPPED: blender is not installed (Debian: apt-get install blender; "
              "scripts/install-deps.sh installs it)")
        sys.exit(77)
    out = run_silt(silt, work, "z")
    vtp = read_vtp(os.path.join(out, "particles_0001.vtp"))
    ids = np.sort(vtp["id"])
    pick = [int(ids[0]), int(ids[1]), int(ids[len(ids) // 2]), int(ids[-1])]
    expected = {"count": int(len(ids)), "particles": {}}
    for pid in pick:
        i = int(np.nonzero(vtp["id"] == pid)[0][0])
        s = vtp["stress"][i]
        expected["particles"][str(pid)] = {
            "position": [float(c) for c in vtp["points"][i]],
            "velocity": [float(c) for c in vtp["velocity"][i]],
            "material": int(vtp["material"][i]),
            "sxx": float(s[0]), "syy": float(s[4]), "szz": float(s[8]),
            "sxy": float(s[1]), "syz": float(s[5]), "sxz": float(s[2]),
            "pressure": float(vtp["pressure"][i]), "plastic": float(vtp["plastic"][i])}
    exp_path = os.path.join(work, "expected.json")
    json.dump(expected, open(exp_path, "w"))
    check = os.path.join(os.path.dirname(os.path.abspath(__file__)), "mpm_vfx_blender_check.py")
    cmd = [blender, "-b", "--factory-startup", "--python-exit-code", "1", "--python", check, "--",
           tools, out, exp_path]
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    print(r.stdout[-4000:])
    if r.returncode != 0 or "blender check: ok" not in r.stdout:
        print(r.stderr[-4000:])
        fail(f"{' '.join(cmd)} exited {r.returncode}")
    print("blender: ok")


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--silt", required=True)
    p.add_argument("--check", choices=["readers", "blender"], required=True)
    p.add_argument("--work", required=True)
    p.add_argument("--tools", default=os.path.join(os.path.dirname(__file__), "../../tools/blender"))
    a = p.parse_args()
    os.makedirs(a.work, exist_ok=True)
    if a.check == "readers":
        check_readers(a.silt, a.work)
    else:
        check_blender(a.silt, a.work, os.path.abspath(a.tools))


if __name__ == "__main__":
    main()
