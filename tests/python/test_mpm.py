# MPM from Python on the CPU backend: frames, particles as NumPy arrays, zero-copy views, writers,
# checkpoints, faults, Ctrl-C and bad input.
import os
import signal
import threading

import numpy as np
import pytest

import silt

# Free fall of a block that touches nothing for the first frame: the grid update adds g dt to every
# node, so the mean velocity is -g t up to the first steps' transfer of the initial state.
FALL_TOLERANCE = 0.01  # relative


def falling_block(sand_dict):
    d = sand_dict
    d["sources"][0]["min"], d["sources"][0]["max"] = [0.2, 0.1], [0.3, 0.2]
    d["physics"]["damping"] = 0.0
    return silt.Scene.from_dict(d, name="fall")


def test_frames_and_particles(sand_scene):
    sim = silt.Simulation(sand_scene, backend="cpu")
    assert isinstance(sim, silt.MpmSimulation)
    p0 = sim.particles()
    n = sim.particle_count
    assert n == 800
    assert p0["position"].shape == (n, 3) and p0["position"].dtype == np.float32
    assert p0["velocity"].shape == (n, 3) and p0["material"].dtype == np.int32
    assert np.array_equal(p0["id"], np.arange(n))
    s = sim.advance_frame()
    assert sim.frame == 1 and s["frame"] == 1
    assert s["time"] == pytest.approx(1 / 30) and sim.time == pytest.approx(1 / 30)
    assert s["steps"] > 0 and sim.steps == s["steps"]
    assert s["particles"] == n and s["kinetic_energy"] > 0
    last = sim.advance_to(0.2)
    assert sim.frame == 6 and last["frame"] == 6
    assert sim.advance_to(0.1) is None  # already there
    p = sim.particles(with_stress=True)
    assert p["stress"].shape == (n, 3, 3) and p["plastic"].shape == (n,)
    # The column slumps: the front moves past its initial 0.1 m, nothing leaves the box.
    assert p["position"][:, 0].max() > 0.12
    assert (p["position"][:, :2] >= -1e-6).all() and (p["position"][:, 0] <= 0.6 + 1e-6).all()


def test_free_fall(sand_dict):
    sim = silt.Simulation(falling_block(sand_dict), backend="cpu")
    s = sim.advance_frame()
    v = sim.particles()["velocity"][:, 1].mean()
    assert v == pytest.approx(-9.81 * s["time"], rel=FALL_TOLERANCE)


def test_device_views_on_cpu(sand_scene):
    sim = silt.Simulation(sand_scene, backend="cpu")
    sim.advance_frame()
    views = sim.particles_device()
    pos = np.from_dlpack(views["position"])
    ids = np.from_dlpack(views["id"])
    assert pos.shape == (sim.particle_count, 3)
    # Zero-copy: two conversions see the same memory, and it is the solver's.
    again = np.from_dlpack(sim.particles_device()["position"])
    assert pos.__array_interface__["data"][0] == again.__array_interface__["data"][0]
    host = sim.particles()
    order = np.argsort(ids)
    assert np.array_equal(pos[order], host["position"])
    assert np.array_equal(np.from_dlpack(views["material"])[order], host["material"])
    assert np.from_dlpack(views["deformation_gradient"]).shape == (sim.particle_count, 3, 3)
    assert views["position"].valid
    sim.advance_frame()
    assert not views["position"].valid
    with pytest.raises(silt.StaleViewError, match="particles_device"):
        np.from_dlpack(views["position"])
    with pytest.raises(silt.Error, match="part 3 does not exist"):
        sim.particles_device(3)
    with pytest.raises(TypeError):
        sim.particles_device("0")


def test_view_keeps_simulation_alive(sand_scene):
    sim = silt.Simulation(sand_scene, backend="cpu")
    v = sim.particles_device()["position"]
    a = np.from_dlpack(v)
    del sim, v
    assert np.isfinite(a).all()


def test_write_frame_like_cli(sand_scene, tmp_path):
    sim = silt.Simulation(sand_scene, backend="cpu")
    out = tmp_path / "out"
    w0 = sim.write_frame(out)
    sim.advance_frame()
    w1 = sim.write_frame(out)
    assert any(x.endswith("particles_0000.ply") for x in w0)
    assert any(x.endswith("particles_0001.ply") for x in w1)
    rows = (out / "frames.csv").read_text().split()
    assert rows[0].startswith("frame") and len(rows) == 3
    assert (out / "resolved_scene.json").exists()
    ply = (out / "particles_0001.ply").read_bytes()
    assert b"element vertex 800" in ply


def test_checkpoint_restart(sand_scene, tmp_path):
    a = silt.Simulation(sand_scene, backend="cpu")
    a.advance_to(2 / 30)
    a.checkpoint(tmp_path / "c.silt")
    a.advance_to(4 / 30)
    b = silt.Simulation(sand_scene, backend="cpu")
    b.restore(tmp_path / "c.silt")
    assert b.frame == 2 and b.time == pytest.approx(2 / 30)
    b.advance_to(4 / 30)
    # One part: bit for bit with one thread (docs/checkpoints.md); atomics order otherwise.
    tol = 0 if os.environ.get("OMP_NUM_THREADS") == "1" else 1e-4
    np.testing.assert_allclose(b.particles()["position"], a.particles()["position"], atol=tol)
    other = silt.Scene.from_file(os.path.join(os.path.dirname(__file__), "../../scenes/mpm_sand_column.json"))
    c = silt.Simulation(other, backend="cpu")
    with pytest.raises(silt.CheckpointError, match="c.silt"):
        c.restore(tmp_path / "c.silt")


def test_fault_names_particle(sand_dict):
    # Gravity of 1e30 m/s^2 overflows float32 velocities within two steps.
    sand_dict["physics"]["gravity"] = [0, -1e30]
    sand_dict["physics"]["fixed_dt"] = 1e-4
    sim = silt.Simulation(silt.Scene.from_dict(sand_dict, name="unstable"), backend="cpu")
    with pytest.raises(silt.FaultError, match=r"particle id \d+ .*step \d+"):
        sim.advance_frame()


def test_ctrl_c_stops_between_frames(sand_scene, python_sigint):
    sim = silt.Simulation(sand_scene.copy().set("run.end_time", 100), backend="cpu")
    sim.advance_frame()  # the first frame's setup out of the way
    timer = threading.Timer(0.5, lambda: os.kill(os.getpid(), signal.SIGINT))
    timer.start()
    try:
        with pytest.raises(KeyboardInterrupt):
            sim.advance_to(100.0)
    finally:
        timer.cancel()
    f = sim.frame
    assert 1 < f < 3000
    assert sim.time == pytest.approx(f / 30)
    sim.advance_frame()  # still usable
    assert sim.frame == f + 1


def test_bad_arguments(sand_scene, dam_scene):
    with pytest.raises(silt.Error, match="gpu"):
        silt.Simulation(sand_scene, backend="gpu")
    with pytest.raises(TypeError):
        silt.Simulation(sand_scene, backend="cpu", devices="0")
    with pytest.raises(TypeError):
        silt.Simulation(sand_scene, backend="cpu", devices=[0.5])
    with pytest.raises(silt.Error, match="no device"):
        silt.Simulation(sand_scene, backend="cpu", devices=[])
    with pytest.raises(TypeError):
        silt.Simulation({"solver": "mpm"})
    with pytest.raises(silt.SceneError, match="swe"):
        silt.MpmSimulation(dam_scene, backend="cpu")
    sim = silt.Simulation(sand_scene, backend="cpu")
    with pytest.raises(ValueError):
        sim.advance_to(float("nan"))
    with pytest.raises((TypeError, ValueError)):
        sim.advance_to("soon")
    # Issue 39: "1" was taken for 1 s and a negative time did nothing, silently.
    with pytest.raises(TypeError, match="number of seconds"):
        sim.advance_to("1")
    with pytest.raises(ValueError, match=">= 0"):
        sim.advance_to(-1)
    assert sim.time == 0


def test_write_frame_errors_are_silt_errors(sand_scene, tmp_path):
    # Issue 39: a folder that cannot be made raised a bare RuntimeError (std::filesystem) where
    # the shallow-water writer raises silt.Error.
    sim = silt.Simulation(sand_scene, backend="cpu")
    blocker = tmp_path / "a_file"
    blocker.write_text("not a folder")
    with pytest.raises(silt.Error, match="a_file"):
        sim.write_frame(blocker / "frames")


def test_cpu_partitions_match_one_part(sand_scene):
    one = silt.Simulation(sand_scene, backend="cpu")
    two = silt.Simulation(sand_scene, backend="cpu", devices=[0, 1])
    assert two.parts == 2
    one.advance_to(0.1)
    two.advance_to(0.1)
    np.testing.assert_allclose(two.particles()["position"], one.particles()["position"], atol=1e-4)
