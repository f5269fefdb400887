#!/usr/bin/python3
"""NetCDF outputs opened by the tools engineers use (issue 34, items 4 and 6):
  - fields.nc in VTK's NetCDF CF reader (vtkNetCDFCFReader, ParaView's "NetCDF CF Reader"; VTK 9.1
    of python3-vtk9, ParaView 5.11 has VTK 9.2's) with its defaults, as ParaView opens it: every
    variable enabled and spherical coordinates on. ParaView 5.11 failed on two things: the hazard
    class as NetCDF-4 unsigned bytes ("unknown netCDF variable type 7") and `axis = "X"/"Y"` on
    coordinates in metres, which the reader takes for longitude and latitude (a grid around a
    unit sphere). Checked: the arrays, the bounds in the CRS's metres, the time steps of
    frames.csv, the depth of the last frame as netCDF4 reads it;
  - hydrograph.nc (CF timeSeries): cfchecks finds no error, and its discharges and volumes equal
    hydrograph.csv's columns, station by station.

Usage: io_netcdf_readers_test.py <silt executable> <scratch dir>; run with the Python of the venv
that scripts/install-deps.sh makes (/opt/silt-venv: cfchecks, and Debian's vtk and netCDF4)."""
import csv
import glob
import json
import os
import shutil
import subprocess
import sys

import netCDF4
import numpy as np
import vtk
from vtk.util import numpy_support

SILT, SCRATCH = sys.argv[1], sys.argv[2]
HERE = os.path.dirname(os.path.abspath(__file__))
VENV = os.path.dirname(os.path.dirname(sys.executable))
X0, Y0, DX, NX, NY = 600000.0, 4000000.0, 10.0, 20, 10
failures = []


def check(ok, what):
    print(("ok   " if ok else "FAIL ") + what)
    if not ok:
        failures.append(what)


def run(out, crs):
    shutil.rmtree(out, ignore_errors=True)
    doc = {
        "solver": "swe", "name": "readers",
        "grid": {"nx": NX, "ny": NY, "dx": DX, "origin": [X0, Y0]},
        "bed": {"value": 1.0, "gradient": [-0.002, 0.0]},
        "initial": {"level": {"value": 1.2, "patches": [
            {"min": [X0, Y0], "max": [X0 + 60, Y0 + 100], "value": 2.5}]}},
        "boundaries": [{"name": "east", "side": "east", "type": "open"}],
        "sources": [{"name": "pipe", "x": X0 + 15, "y": Y0 + 55, "discharge": 0.5}],
        "run": {"end_time": 20.0, "output_interval": 5.0},
        "outputs": {"fields": ["depth", "velocity", "max_depth", "bed"],
                    "formats": ["nc"], "png": "none", "crs": crs,
                    "hazard": {"fields": ["max_depth", "class"]},
                    "cross_sections": [{"name": "mid", "points": [[X0 + 100, Y0 + 100],
                                                                   [X0 + 100, Y0]]}]},
    }
    path = os.path.join(SCRATCH, "readers.json")
    with open(path, "w") as f:
        json.dump(doc, f)
    subprocess.run([SILT, "run", path, "--out", out, "-q"], check=True)


def frame_times(out):
    with open(os.path.join(out, "frames.csv")) as f:
        return [float(line.split(",")[1]) for line in f.read().splitlines()[1:]]


class Errors:
    """Counts the VTK errors a reader reports (ParaView shows them and draws nothing)."""

    def __init__(self, obj):
        self.n = 0
        obj.AddObserver("ErrorEvent", self)

    def __call__(self, obj, event):
        self.n += 1


def paraview_reader(out, what):
    path = os.path.join(out, "fields.nc")
    r = vtk.vtkNetCDFCFReader()
    errors = Errors(r)
    check(r.CanReadFile(path) == 1, f"{what}: the CF reader can read fields.nc")
    r.SetFileName(path)
    r.UpdateMetaData()
    names = [r.GetVariableArrayName(i) for i in range(r.GetNumberOfVariableArrays())]
    on = [n for n in names if r.GetVariableArrayStatus(n)]
    check(r.GetSphericalCoordinates() == 1 and set(on) == set(names),
          f"{what}: ParaView's defaults (spherical coordinates, all of {len(names)} variables)")
    r.Update()
    o = r.GetOutputDataObject(0)
    data = o.GetPointData() if o.GetPointData().GetNumberOfArrays() else o.GetCellData()
    arrays = {data.GetArrayName(i) for i in range(data.GetNumberOfArrays())}
    want = {"depth", "velocity", "max_depth", "bed", "hazard_max_depth", "hazard_class"}
    check(errors.n == 0 and want <= arrays,
          f"{what}: {type(o).__name__} with {sorted(arrays)}, {errors.n} errors")
    # Point data at the cell centres on a plane in the CRS's metres.
    b = o.GetBounds()
    want_b = (X0 + DX / 2, X0 + (NX - 0.5) * DX, Y0 + DX / 2, Y0 + (NY - 0.5) * DX, 0.0, 0.0)
    check(np.allclose(b, want_b), f"{what}: bounds {b} are the cell centres in metres {want_b}")
    info = r.GetOutputInformation(0)
    sddp = vtk.vtkStreamingDemandDrivenPipeline
    steps = list(info.Get(sddp.TIME_STEPS())) if info.Has(sddp.TIME_STEPS()) else []
    check(steps == frame_times(out), f"{what}: time steps {steps} are frames.csv's")
    r.UpdateTimeStep(steps[-1])
    depth = numpy_support.vtk_to_numpy(
        r.GetOutputDataObject(0).GetPointData().GetArray("depth"))
    with netCDF4.Dataset(path) as nc:
        ref = np.asarray(nc["depth"][-1]).ravel()
    check(np.array_equal(depth, ref) and depth.max() > 0,
          f"{what}: the last frame's depth equals netCDF4's (max {depth.max():.3f} m)")


def cfchecks(path):
    table = glob.glob(os.path.join(VENV, "lib", "python3*", "site-packages", "compliance_checker",
                                   "data", "cf-standard-name-table.xml"))
    r = subprocess.run([os.path.join(VENV, "bin", "cfchecks"), "-s", table[0],
                        "-a", os.path.join(HERE, "data", "cf_area_types_none.xml"),
                        "-r", os.path.join(HERE, "data", "cf_region_names_none.xml"), path],
                       capture_output=True, text=True)
    ok = "ERRORS detected: 0" in r.stdout
    check(ok, f"cfchecks finds no error in {os.path.basename(path)}")
    if not ok:
        print(r.stdout[-3000:], r.stderr[-2000:])


def hydrograph(out):
    path = os.path.join(out, "hydrograph.nc")
    check(os.path.exists(path), "hydrograph.nc is written with nc among the formats")
    cfchecks(path)
    with open(os.path.join(out, "hydrograph.csv")) as f:
        rows = list(csv.reader(f))
    head, values = rows[0], np.array([[float(x) for x in r] for r in rows[1:]])
    with netCDF4.Dataset(path) as nc:
        check(nc.featureType == "timeSeries", "hydrograph.nc is a CF timeSeries")
        names = [n.strip() for n in netCDF4.chartostring(nc["station_name"][:])]
        check(names == ["east", "pipe", "mid"], f"stations {names}")
        check(list(nc["station_kind"][:]) == [0, 1, 2], "kinds boundary, point source, section")
        check(np.array_equal(nc["time"][:], values[:, 1]), "times are hydrograph.csv's")
        for s, n in enumerate(names):
            q = values[:, head.index(n + "_q_m3_s")]
            v = values[:, head.index(n + "_volume_m3")]
            check(np.allclose(nc["discharge"][s, :], q, rtol=1e-9, atol=1e-12) and
                  np.array_equal(nc["volume"][s, :], v),
                  f"{n}: discharge and volume equal hydrograph.csv's")
        check(abs(nc["volume"][1, -1] - 10.0) < 1e-9, "the pipe passed 0.5 m^3/s x 20 s")


os.makedirs(SCRATCH, exist_ok=True)
utm = os.path.join(SCRATCH, "utm")
run(utm, "EPSG:32617")
paraview_reader(utm, "UTM 17N")
hydrograph(utm)
plain = os.path.join(SCRATCH, "plain")
run(plain, "")
paraview_reader(plain, "no CRS")
if failures:
    print(f"{len(failures)} failed")
    sys.exit(1)
print("PASS")
