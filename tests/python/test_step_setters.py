# step() and the setters between steps (docs/python.md): gravity, the rain and the bed of a
# shallow-water run, gravity and material parameters of an MPM run; each checked as the scene key
# it mirrors, and checkpoints refused after a change until restore() puts the scene back.
import numpy as np
import pytest

import silt
from conftest import has_cuda

# The setters on the CPU and, where the CUDA backend and a GPU are, on CUDA (label gpu).
BACKENDS = ["cpu", pytest.param("cuda", marks=[pytest.mark.gpu, pytest.mark.skipif(
    not has_cuda(), reason="no CUDA backend or GPU")])]

NX, NY, DX = 40, 20, 2.0


def pool(backend="cpu", **extra):
    """Still water 0.5 m deep on a flat bed: every change shows in the volumes."""
    d = {"solver": "swe", "name": "pool", "grid": {"nx": NX, "ny": NY, "dx": DX}, "bed": 0.0,
         "initial": {"depth": 0.5}, "run": {"end_time": 4.0, "output_interval": 1.0},
         "outputs": {"png": "none"}}
    d.update(extra)
    return silt.Simulation(silt.Scene.from_dict(d), backend=backend)


def test_swe_step_lands_on_the_output_times(dam_scene):
    sim = silt.Simulation(dam_scene, backend="cpu")
    times = []
    while sim.time < sim.end_time:
        dt = sim.step()
        assert dt > 0 and sim.last_dt == dt
        times.append(sim.time)
    assert sim.steps == len(times)
    for t in sim.output_times[1:]:
        assert t in times  # clipped there, as run() stops there
    ref = silt.Simulation(dam_scene, backend="cpu")
    ref.advance_to(1.2)
    sim2 = silt.Simulation(dam_scene, backend="cpu")
    while sim2.time < 1.2:
        sim2.step()
    np.testing.assert_allclose(sim2.field("depth"), ref.field("depth"), atol=2e-3)


def short_frames(scene):
    """Frames of 1/300 s (a dozen steps each): quick on a CPU."""
    return scene.copy().set("run.fps", 300)


def test_mpm_step(sand_scene):
    sim = silt.Simulation(short_frames(sand_scene), backend="cpu")
    dt = sim.step()
    assert dt > 0 and sim.time == pytest.approx(dt) and sim.steps == 1 and sim.frame == 0
    sim.step()
    s = sim.advance_frame()  # a frame after steps ends frame_dt later
    assert s["time"] == pytest.approx(2 * dt + sim.frame_dt) and sim.frame == 1
    assert sim.steps == 2 + s["steps"]


def test_swe_rain_rate_series_and_raster():
    sim = pool()
    sim.advance_to(1.0)
    sim.set_rain(36.0)  # mm/h over the whole grid
    sim.advance_to(2.0)
    area = NX * NY * DX * DX
    assert sim.totals()["rain_volume"] == pytest.approx(36e-3 / 3600 * area, rel=1e-5)
    raster = np.zeros((NY, NX))
    raster[:, :4] = 360.0
    sim.set_rain(0, raster=raster)  # the raster alone from t = 2 s
    sim.advance_to(3.0)
    assert sim.totals()["rain_volume"] == pytest.approx(36e-3 / 3600 * area + 0.36 / 3600 * 4 * NY * DX * DX, rel=1e-5)
    sim.set_rain(raster=False)  # no rain
    before = sim.totals()["rain_volume"]
    sim.advance_to(4.0)
    assert sim.totals()["rain_volume"] == before
    assert sim.scene.to_dict()["rainfall_mm_h"] == 0


@pytest.mark.parametrize("backend", BACKENDS)
def test_swe_set_bed_keeps_depth_or_level(backend):
    bed = np.zeros((NY, NX))
    bed[:, 30:] = 0.3
    a, b = pool(backend), pool(backend)
    volume = a.totals()["volume"]
    a.set_bed(bed)  # keep depth: the volume stays
    assert a.totals()["volume"] == pytest.approx(volume)
    np.testing.assert_array_equal(a.field("bed"), bed)
    b.set_bed(bed, keep="level")  # keep level: 0.3 m less water on 10 columns
    assert b.totals()["volume"] == pytest.approx(volume - 0.3 * 10 * NY * DX * DX, rel=1e-6)
    np.testing.assert_allclose(np.nanmax(b.field("level")), 0.5, rtol=1e-6)
    b.set_bed(np.full((NY, NX), 1.0), keep="level")  # above the water: dry
    assert b.totals()["volume"] == 0
    b.advance_to(1.0)
    with pytest.raises(ValueError, match=r"'bed': expected shape \(ny, nx\) = \(20, 40\)"):
        a.set_bed(np.zeros((NX, NY)))
    with pytest.raises(ValueError, match="keep must be 'depth' or 'level'"):
        a.set_bed(bed, keep="volume")


@pytest.mark.parametrize("backend", BACKENDS)
def test_swe_set_gravity_matches_a_scene_with_that_gravity(backend):
    a = pool(backend, initial={"depth": {"value": 0.5, "patches": [
        {"shape": "rectangle", "min": [0, 0], "max": [20, 40], "value": 1.0}]}})
    a.set_gravity(4.0)
    a.advance_to(2.0)
    b = pool(backend, initial={"depth": {"value": 0.5, "patches": [
        {"shape": "rectangle", "min": [0, 0], "max": [20, 40], "value": 1.0}]}}, physics={"gravity": 4.0})
    b.advance_to(2.0)
    if backend == "cpu":  # the same steps, bit for bit
        np.testing.assert_array_equal(a.field("depth"), b.field("depth"))
    else:
        np.testing.assert_allclose(a.field("depth"), b.field("depth"), atol=1e-5)
    with pytest.raises(silt.SceneError, match=r"'physics.gravity' must be > 0, got -1 \(set by --set physics.gravity=-1\)$"):
        a.set_gravity(-1)
    assert a.scene.to_dict()["physics"]["gravity"] == 4.0  # unchanged by the refusal


def test_swe_checkpoint_after_a_change_is_refused_until_restore(tmp_path):
    sim = pool()
    sim.advance_to(1.0)
    sim.checkpoint(tmp_path / "c.silt")
    sim.set_gravity(2.0)
    with pytest.raises(silt.Error, match="gravity was set at t = 1 s; a checkpoint holds the scene as given"):
        sim.checkpoint(tmp_path / "d.silt")
    sim.restore(tmp_path / "c.silt")
    sim.checkpoint(tmp_path / "d.silt")  # the scene as given again


@pytest.mark.parametrize("backend", BACKENDS)
def test_mpm_set_gravity_and_material(sand_scene, tmp_path, backend):
    scene = short_frames(sand_scene)
    a = silt.Simulation(scene, backend=backend)
    b = silt.Simulation(scene, backend=backend)
    a.advance_frame(), b.advance_frame()
    b.checkpoint(tmp_path / "c.silt")
    b.set_gravity([0, -20])
    a.advance_frame(), b.advance_frame()
    assert b.particles()["velocity"][:, 1].mean() < a.particles()["velocity"][:, 1].mean() - 0.01
    b.set_material("sand", youngs_modulus=1.4e6, friction_angle=20)  # 4x stiffer: dt / 2
    assert b.advance_frame()["dt_max"] < 0.6 * a.advance_frame()["dt_max"]
    with pytest.raises(silt.SceneError, match=r"'materials\[0\].friction_angle' must be in \[0, 90\), got -5"):
        b.set_material(0, friction_angle=-5)
    with pytest.raises(ValueError, match=r"materials\[0\] \('sand'\).density cannot change mid-run"):
        b.set_material(0, density=2000)
    with pytest.raises(ValueError, match="kind cannot change"):
        b.set_material(0, kind="water")
    with pytest.raises(ValueError, match="the scene has no material 'mud'"):
        b.set_material("mud", friction_angle=20)
    with pytest.raises(silt.Error, match="gravity or a material was set"):
        b.checkpoint(tmp_path / "d.silt")
    b.restore(tmp_path / "c.silt")
    b.checkpoint(tmp_path / "d.silt")
