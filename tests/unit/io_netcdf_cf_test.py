#!/usr/bin/python3
"""One NetCDF file per run, read as flood engineers read it (issue 21, item 2): `silt run` on a
small UTM scene (an ESRI ASCII DEM with its .prj) writes fields.nc; xarray decodes its time axis
from run.start_datetime, its frames equal the ESRI ASCII frames of the same run, GDAL reads its CRS
from the CF grid mapping, the CF checker (cfchecks 4.1, PyPI cfchecker) reports no error in it nor
in the per-frame files (outputs.netcdf = "frames"), and a run stopped by SIGTERM leaves a file
that holds exactly the frames frames.csv lists.

Usage: io_netcdf_cf_test.py <silt executable> <scratch dir>; run with the Python of the venv that
scripts/install-deps.sh makes (/opt/silt-venv), which has cfchecks and the CF standard-name table
that compliance-checker ships (cfchecks cannot download it in CI)."""
import glob
import json
import os
import shutil
import signal
import subprocess
import sys
import time

import numpy as np
import xarray as xr
from osgeo import gdal, osr

gdal.UseExceptions()
SILT, SCRATCH = sys.argv[1], sys.argv[2]
HERE = os.path.dirname(os.path.abspath(__file__))
VENV = os.path.dirname(os.path.dirname(sys.executable))
failures = []


def check(ok, what):
    print(("ok   " if ok else "FAIL ") + what)
    if not ok:
        failures.append(what)


# A CRS CF has no grid mapping for (scenes/data/jacksboro_dem_75m.prj, issue 34: cfchecks refused
# GDAL's "equirectangular").
EQUIRECTANGULAR = open(os.path.join(HERE, "..", "..", "scenes", "data",
                                    "jacksboro_dem_75m.prj")).read().strip()


def scene(path, outputs, end_time=20.0, prj=None):
    # 20 x 10 cells of 10 m in UTM 16N (or prj); a dam break along x.
    srs = osr.SpatialReference()
    srs.ImportFromEPSG(32616)
    srs.MorphToESRI()
    with open(os.path.join(SCRATCH, "dem.prj"), "w") as f:
        f.write((prj or srs.ExportToWkt()) + "\n")
    with open(os.path.join(SCRATCH, "dem.asc"), "w") as f:
        f.write("ncols 20\nnrows 10\nxllcorner 600000\nyllcorner 4000000\ncellsize 10\n")
        for _ in range(10):
            f.write(" ".join("0" for _ in range(20)) + "\n")
    doc = {
        "solver": "swe", "name": "cf", "bed": "dem.asc",
        "initial": {"level": {"value": 0.5, "patches": [
            {"min": [600000, 4000000], "max": [600080, 4000100], "value": 2.0}]}},
        "boundaries": [{"name": "e", "side": "east", "type": "open"}],
        "run": {"end_time": end_time, "output_interval": 5.0,
                "start_datetime": "2024-06-01T12:00:00+02:00"},
        "outputs": dict({"fields": ["depth", "velocity", "u", "v", "level", "concentration",
                                    "max_depth"], "png": "none"}, **outputs),
    }
    with open(path, "w") as f:
        json.dump(doc, f)


def run(out, outputs, prj=None):
    shutil.rmtree(out, ignore_errors=True)
    path = os.path.join(SCRATCH, "cf_scene.json")
    scene(path, outputs, prj=prj)
    subprocess.run([SILT, "run", path, "--out", out], check=True, stdout=subprocess.DEVNULL)


def frame_times(out):
    with open(os.path.join(out, "frames.csv")) as f:
        return [float(line.split(",")[1]) for line in f.read().splitlines()[1:]]


def cfchecks(path):
    table = glob.glob(os.path.join(VENV, "lib", "python3*", "site-packages", "compliance_checker",
                                   "data", "cf-standard-name-table.xml"))
    check(len(table) == 1, "the CF standard-name table of compliance-checker is installed")
    r = subprocess.run([os.path.join(VENV, "bin", "cfchecks"), "-s", table[0],
                        "-a", os.path.join(HERE, "data", "cf_area_types_none.xml"),
                        "-r", os.path.join(HERE, "data", "cf_region_names_none.xml"), path],
                       capture_output=True, text=True)
    errors = [line for line in r.stdout.splitlines() if line.startswith("ERROR") and
              not line.startswith("ERRORS detected")]
    check("ERRORS detected: 0" in r.stdout and not errors,
          f"cfchecks finds no error in {os.path.basename(path)}" +
          ("" if not errors else ": " + "; ".join(errors)))
    if "ERRORS detected: 0" not in r.stdout:
        print(r.stdout[-3000:], r.stderr[-2000:])


os.makedirs(SCRATCH, exist_ok=True)
one = os.path.join(SCRATCH, "cf_run")
run(one, {"formats": ["asc", "nc"]})
times = frame_times(one)
check(times == [0, 5, 10, 15, 20], f"frames.csv lists 5 frames: {times}")
check(not glob.glob(os.path.join(one, "*_0*.nc")), "no per-frame .nc beside fields.nc")
ds = xr.open_dataset(os.path.join(one, "fields.nc"))
check(ds.sizes["time"] == 5 and ds.sizes["x"] == 20 and ds.sizes["y"] == 10,
      f"fields.nc is 5 frames of 20 x 10 cells: {dict(ds.sizes)}")
want = np.datetime64("2024-06-01T10:00:00") + (np.array(times) * 1e9).astype("timedelta64[ns]")
check(np.array_equal(ds["time"].values, want), f"time decodes from run.start_datetime (UTC): "
      f"{ds['time'].values}")
check(ds["time"].attrs["units"] if "units" in ds["time"].attrs
      else ds["time"].encoding["units"] == "seconds since 2024-06-01 10:00:00", "time units")
names = {v: ds[v].attrs.get("standard_name") for v in ds.data_vars if v != "crs"}
check(names.get("depth") == "flood_water_thickness" and names.get("velocity") == "flood_water_speed"
      and names.get("u") == "eastward_flood_water_velocity"
      and names.get("v") == "northward_flood_water_velocity"
      and names.get("level") == "water_surface_height_above_reference_datum"
      and names.get("max_depth") == "flood_water_thickness",
      f"standard names {names}")
check(ds["max_depth"].attrs.get("cell_methods") == "time: maximum", "max_depth: time: maximum")
check(ds["depth"].encoding.get("zlib") and ds["depth"].encoding.get("chunksizes") == (1, 10, 20),
      f"compressed, a frame per chunk: {ds['depth'].encoding.get('chunksizes')}")
for k in range(5):
    for field in ("depth", "level"):
        a = gdal.Open(os.path.join(one, f"{field}_{k:04d}.asc"))
        asc = a.GetRasterBand(1).ReadAsArray()[::-1].astype(np.float32)  # south row first
        nd = a.GetRasterBand(1).GetNoDataValue()
        nc = ds[field].isel(time=k).values.astype(np.float32)
        same = np.array_equal(np.where(asc == nd, np.nan, asc), nc, equal_nan=True)
        check(same, f"{field} frame {k} of fields.nc equals {field}_{k:04d}.asc")
nc_srs = gdal.Open(f'NETCDF:"{os.path.join(one, "fields.nc")}":depth').GetSpatialRef()
want_srs = osr.SpatialReference()
want_srs.ImportFromEPSG(32616)
check(nc_srs is not None and nc_srs.IsSame(want_srs), "GDAL reads EPSG:32616 from the grid mapping")
ds.close()
cfchecks(os.path.join(one, "fields.nc"))

frames = os.path.join(SCRATCH, "cf_frames")
run(frames, {"formats": ["nc"], "netcdf": "frames"})
check(len(glob.glob(os.path.join(frames, "depth_*.nc"))) == 5, "netcdf = frames: a file a frame")
cfchecks(os.path.join(frames, "depth_0001.nc"))
cfchecks(os.path.join(frames, "max_depth_0004.nc"))

# A CRS without a CF grid mapping: the file is still CF (no variable names a grid mapping CF does
# not have) and keeps the CRS as crs_wkt in a variable "crs"; bed and max_level are fields too.
local = os.path.join(SCRATCH, "cf_local")
run(local, {"formats": ["nc"], "fields": ["depth", "level", "max_depth", "bed", "max_level"],
            "hazard": {"fields": ["max_depth", "first_wet_time"]}}, prj=EQUIRECTANGULAR)
cfchecks(os.path.join(local, "fields.nc"))
with xr.open_dataset(os.path.join(local, "fields.nc")) as d:
    wkt = d["crs"].attrs.get("crs_wkt", "")
    check(osr.SpatialReference(wkt).IsSame(osr.SpatialReference(EQUIRECTANGULAR)) == 1,
          "a CRS without a CF grid mapping is kept as crs.crs_wkt")
    check(all("grid_mapping" not in d[v].attrs for v in d.data_vars),
          "no variable names a grid mapping CF does not have")
    bed = d["bed"].isel(time=0).values
    check(np.allclose(bed, 0.0), f"bed is the DEM: {np.nanmin(bed)} .. {np.nanmax(bed)}")
    ml = d["max_level"].isel(time=-1).values
    md = d["max_depth"].isel(time=-1).values
    check(d["max_level"].attrs.get("cell_methods") == "time: maximum" and
          np.allclose(ml, md + bed, equal_nan=True), "max_level = bed + max_depth")
    fw = d["hazard_first_wet_time"].values
    check(np.nanmax(fw) == 0.0, f"every cell wet at the start was first wet at t = 0: "
          f"{np.nanmin(fw)} .. {np.nanmax(fw)}")

# A run stopped between frames leaves a readable file with the frames frames.csv lists.
stop = os.path.join(SCRATCH, "cf_stop")
shutil.rmtree(stop, ignore_errors=True)
path = os.path.join(SCRATCH, "cf_stop.json")
scene(path, {"formats": ["nc"]}, end_time=1e5)
p = subprocess.Popen([SILT, "run", path, "--out", stop], stdout=subprocess.DEVNULL,
                     stderr=subprocess.DEVNULL)
deadline = time.time() + 120
while time.time() < deadline:
    if os.path.exists(os.path.join(stop, "frames.csv")) and len(frame_times(stop)) >= 3:
        break
    time.sleep(0.05)
p.send_signal(signal.SIGTERM)
p.wait(timeout=120)
listed = len(frame_times(stop))
with xr.open_dataset(os.path.join(stop, "fields.nc")) as s:
    check(listed >= 3 and s.sizes["time"] == listed,
          f"stopped run: fields.nc holds the {listed} frames listed ({s.sizes['time']})")

print("FAILED: " + "; ".join(failures) if failures else "all passed")
sys.exit(1 if failures else 0)
