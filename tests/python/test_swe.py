# Shallow water from Python on the CPU backend: fields as 2D arrays, gauges, writers equal to the
# CLI's, checkpoints, Ctrl-C and bad input.
import os
import pathlib
import signal
import subprocess
import threading

import numpy as np
import pytest

import silt
from conftest import DAM_BREAK_SETS, SCENES, cli

# Walls all round, no sources, no rain: the volume stays at the initial one up to the float32
# sums over 2,500 cells.
VOLUME_TOLERANCE = 1e-5  # relative


def test_fields_and_coordinates(dam_scene):
    sim = silt.Simulation(dam_scene, backend="cpu")
    assert isinstance(sim, silt.SweSimulation)
    h = sim.field("depth")
    assert h.shape == (50, 50) and h.dtype == np.float64
    assert sim.x.shape == (50,) and sim.y.shape == (50,)
    assert sim.x[0] == pytest.approx(2.0) and sim.y[-1] == pytest.approx(198.0)
    assert sim.extent == pytest.approx((0.0, 200.0, 0.0, 200.0))
    # 10 m reservoir west of the dam (x < 95 m), 5 m tailwater east of it (x > 105 m); the dam
    # itself is dry (bed 15 m).
    assert h[10, 5] == pytest.approx(10.0) and h[10, 40] == pytest.approx(5.0)
    bed = sim.field("bed")
    assert bed[10, 24] == pytest.approx(15.0) and np.isnan(sim.field("level")[10, 24])
    v0 = sim.totals()["volume"]
    sim.advance_to(2.4)
    assert sim.time == pytest.approx(2.4, abs=1e-12)
    assert sim.steps > 0
    t = sim.totals()
    assert t["volume"] == pytest.approx(v0, rel=VOLUME_TOLERANCE)
    # The bore has left the breach: water moves east at the breach's row.
    u = sim.field("u")
    assert np.nanmax(u) > 1.0
    assert np.array_equal(sim.field("hu")[np.isfinite(u)] != 0, (u[np.isfinite(u)] != 0))
    f = sim.advance_frame()
    assert f["time"] == pytest.approx(3.6)  # the next of output_interval 1.2 s


def test_gauges(dam_scene, tmp_path):
    sim = silt.Simulation(dam_scene, backend="cpu")
    g = sim.gauges()
    assert g["name"] == ["reservoir", "breach", "tailwater"]
    # The breach gauge (x = 100 m) lies in cell 25, [100, 104] m: tailwater side.
    assert g["depth"] == pytest.approx([10.0, 5.0, 5.0])
    assert g["x"].shape == (3,)
    sim.advance_to(1.0)
    path = sim.write_gauges(tmp_path)
    sim.advance_to(2.0)
    sim.write_gauges(tmp_path)
    rows = pathlib.Path(path).read_text().splitlines()
    assert len(rows) == 3 and "breach" in rows[0]
    with pytest.raises(ValueError, match="'depth'"):
        sim.field("deph")
    with pytest.raises(TypeError):
        sim.field(3)


def test_write_frame_equals_cli(dam_scene, tmp_path):
    # Without gauges `silt run` stops only at the output times, as advance_to(1.2) does (every
    # stop clips a step, which moves the result at round-off).
    # ESRI ASCII: text compares byte for byte whatever GDAL version writes GeoTIFF here.
    scene = dam_scene.copy().set("outputs.gauges.points", []).set("outputs.formats", ["asc"])
    sim = silt.Simulation(scene, backend="cpu")
    sim.write_frame(tmp_path / "py")
    sim.advance_to(1.2)
    written = sim.write_frame(tmp_path / "py")
    assert any(w.endswith("depth_0001.asc") for w in written)
    exe = cli()
    if exe is None:
        pytest.skip("SILT_CLI not set (scripts/test.sh sets it)")
    args = [exe, "run", str(SCENES / "dam_break.json"), "--backend", "cpu", "--quiet",
            "--out", str(tmp_path / "cli")]
    for k, v in DAM_BREAK_SETS.items():
        args += ["--set", f"{k}={v}"]  # the CLI validates once, after every --set
    args += ["--set", "run.end_time=1.2", "--set", "outputs.gauges.points=[]",
             "--set", 'outputs.formats=["asc"]']
    subprocess.run(args, check=True, capture_output=True)
    for name in ["depth_0001.asc", "velocity_0001.asc", "max_depth_0001.asc"]:
        assert (tmp_path / "py" / name).read_bytes() == (tmp_path / "cli" / name).read_bytes(), name


def test_checkpoint_bit_for_bit(dam_scene, tmp_path):
    a = silt.Simulation(dam_scene, backend="cpu")
    a.advance_to(1.0)
    a.checkpoint(tmp_path / "c.silt")
    a.advance_to(2.0)
    b = silt.Simulation(dam_scene, backend="cpu")
    b.restore(tmp_path / "c.silt")
    assert b.time == pytest.approx(1.0)
    b.advance_to(2.0)
    for f in ["hu", "hv", "depth"]:
        assert np.array_equal(a.field(f), b.field(f), equal_nan=True), f
    (tmp_path / "bad.silt").write_bytes(b"not a checkpoint")
    with pytest.raises(silt.CheckpointError, match="bad.silt"):
        b.restore(tmp_path / "bad.silt")


def test_parts_match_one_part(dam_scene):
    one = silt.Simulation(dam_scene, backend="cpu")
    three = silt.Simulation(dam_scene, backend="cpu", devices=[0, 1, 2])
    one.advance_to(1.5)
    three.advance_to(1.5)
    assert np.array_equal(one.field("hu"), three.field("hu"))  # bit for bit on the CPU


def test_ctrl_c_between_batches(dam_scene, python_sigint):
    sim = silt.Simulation(dam_scene.copy().set("run.end_time", 1e4), backend="cpu")
    timer = threading.Timer(0.5, lambda: os.kill(os.getpid(), signal.SIGINT))
    timer.start()
    try:
        with pytest.raises(KeyboardInterrupt):
            sim.advance_to(1e4)
    finally:
        timer.cancel()
    t = sim.time
    assert 0 < t < 1e4
    sim.advance_to(t + 0.5)  # still usable
    assert sim.time == pytest.approx(t + 0.5)


def test_fault_names_cell(dam_scene):
    # min_dt just below the first CFL step (0.45 * 4 m / 9.9 m/s): the bore speeds the flow up and
    # the step collapses below it within a few steps.
    sim = silt.Simulation(dam_scene.copy().set("physics.min_dt", 0.17), backend="cpu")
    with pytest.raises(silt.FaultError, match=r"collapsing time step in cell \(\d+, \d+\).*step \d+"):
        sim.advance_to(4.0)
    t = sim.time  # the last good check is kept
    assert 0 < t < 4.0


def test_bad_arguments(dam_scene):
    sim = silt.Simulation(dam_scene, backend="cpu")
    with pytest.raises(ValueError):
        sim.advance_to(float("inf"))
    with pytest.raises(TypeError, match="number of seconds"):
        sim.advance_to("1")  # issue 39: taken for 1 s
    with pytest.raises(ValueError, match=">= 0"):
        sim.advance_to(-1)  # issue 39: did nothing, silently
    assert sim.time == 0
    sim.advance_to(dam_scene.to_dict()["run"]["end_time"])
    with pytest.raises(silt.Error, match="end"):
        sim.advance_frame()
