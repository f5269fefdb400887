# The package carries silt's modules (libsilt_gdal.so, libsilt_vdb.so beside _silt) and loads
# GDAL only when a frame needs it: an ESRI ASCII frame leaves GDAL unmapped, a GeoTIFF frame maps
# it from the package's own folder. Each case runs in a fresh interpreter (other tests load GDAL).
import pathlib
import subprocess
import sys
import textwrap

import silt

SCRIPT = textwrap.dedent("""
    import os, sys
    import silt
    def gdal_maps():
        return [l.split()[-1] for l in open("/proc/self/maps") if "gdal" in l]
    spec = {"solver": "swe", "name": "modules", "grid": {"nx": 8, "ny": 8, "dx": 1.0},
            "bed": 0.0, "initial": {"depth": {"value": 0.1}}, "manning": 0.03,
            "run": {"end_time": 0.1, "output_interval": 0.1},
            "outputs": {"fields": ["depth"], "formats": sys.argv[2].split(","), "png": "none"}}
    sim = silt.Simulation(silt.Scene.from_dict(spec, name="modules"), backend="cpu")
    sim.write_frame(sys.argv[1])
    print(sorted(os.listdir(sys.argv[1])))
    print("\\n".join(gdal_maps()))
""")


def frame_in_fresh_interpreter(tmp_path, formats):
    out = subprocess.run([sys.executable, "-c", SCRIPT, str(tmp_path / "out"), formats],
                         check=True, capture_output=True, text=True)
    return out.stdout


def test_ascii_frame_leaves_gdal_unloaded(tmp_path):
    out = frame_in_fresh_interpreter(tmp_path, "asc")
    assert "depth_0000.asc" in out
    assert "gdal" not in out


def test_geotiff_frame_loads_gdal_from_the_package(tmp_path):
    if not (pathlib.Path(silt.__file__).parent / "libsilt_gdal.so").exists():
        import pytest
        pytest.skip("package built without GDAL")
    out = frame_in_fresh_interpreter(tmp_path, "asc,tif")
    assert "depth_0000.tif" in out
    package = str(pathlib.Path(silt.__file__).parent / "libsilt_gdal.so")
    assert package in out.splitlines(), out
    assert any("libgdal.so" in line for line in out.splitlines()), out
