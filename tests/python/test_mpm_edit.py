# MPM between frames from Python: particles added (ids, material, where they are a frame later,
# one part and two), a collider moved (a block on a plane rises with it), and the errors.
import numpy as np
import pytest

import silt


def drift_scene(sand_dict):
    # No gravity: a lone particle keeps its velocity, so a frame later it is frame_dt v further.
    d = sand_dict
    d["physics"] = {"gravity": [0, 0], "damping": 0.0}
    d["sources"].append({"name": "grain", "material": "sand", "shape": "box", "min": [0.5, 0.0],
                         "max": [0.52, 0.02], "particles_per_cell": 4})
    return silt.Scene.from_dict(d, name="drift")


@pytest.mark.parametrize("parts", [1, 2])
def test_add_particles(sand_dict, parts):
    sim = silt.Simulation(drift_scene(sand_dict), backend="cpu", devices=[0] * parts)
    sim.advance_frame()
    n = sim.particle_count
    x = np.array([[0.3, 0.2, 0.0], [0.45, 0.1, 0.0]])  # float64, converted
    v = np.array([[0.5, 0.0, 0.0], [0.0, 0.25, 0.0]], dtype=np.float32)
    ids = sim.add_particles(x, v, source="grain")
    assert list(ids) == [n, n + 1] and sim.particle_count == n + 2
    sim.advance_frame()
    p = sim.particles()
    assert list(p["id"][-2:]) == [n, n + 1]
    assert (p["material"][-2:] == 0).all()
    np.testing.assert_allclose(p["position"][-2:], x + sim.frame_dt * v, atol=1e-5)
    # The next ids follow on, also for a source given by index.
    assert list(sim.add_particles(x[:1], v[:1], source=1)) == [n + 2]


def test_add_particles_bad_input(sand_scene):
    sim = silt.Simulation(sand_scene, backend="cpu")
    n = sim.particle_count
    ok = np.zeros((2, 3))
    with pytest.raises(ValueError, match=r"position must be an \(n, 3\) array, not of shape \(2, 2\)"):
        sim.add_particles(np.zeros((2, 2)), ok)
    with pytest.raises(TypeError, match="velocity must be an .* float32 or float64 array, not int64"):
        sim.add_particles(ok + 0.1, np.zeros((2, 3), dtype=np.int64))
    with pytest.raises(ValueError, match="position row 1 is not finite"):
        sim.add_particles(np.array([[0.1, 0.1, 0], [np.nan, 0.1, 0]]), ok)
    with pytest.raises(ValueError, match="position row 1 .* is outside the domain"):
        sim.add_particles(np.array([[0.1, 0.1, 0], [0.7, 0.1, 0]]), ok)
    with pytest.raises(ValueError, match="no source 'nope'"):
        sim.add_particles(ok + 0.1, ok, source="nope")
    with pytest.raises(ValueError, match="2 rows and velocity 1"):
        sim.add_particles(ok + 0.1, ok[:1])
    assert sim.particle_count == n
    assert list(sim.add_particles(ok + 0.1, ok)) == [n, n + 1]  # no id was used up


def block_on_plane(sand_dict):
    d = sand_dict
    d["materials"] = [{"name": "jelly", "kind": "jelly", "density": 1000, "youngs_modulus": 2e4,
                       "poisson_ratio": 0.3}]
    d["sources"] = [{"name": "block", "material": "jelly", "shape": "box", "min": [0.15, 0.105],
                     "max": [0.25, 0.155], "particles_per_cell": 4}]
    d["colliders"] = [{"name": "floor", "kind": "plane", "point": [0, 0.1], "normal": [0, 1]}]
    d["physics"]["damping"] = 0.3
    d["run"]["fps"] = 20
    return silt.Scene.from_dict(d, name="lift")


def test_set_collider_lifts_a_block(sand_dict, tmp_path):
    sim = silt.Simulation(block_on_plane(sand_dict), backend="cpu")
    sim.advance_to(0.2)
    y0 = sim.particles()["position"][:, 1].mean()
    t0 = sim.time
    sim.set_collider("floor", point=[0, 0.1, 0], velocity=[0, 0.2, 0])
    c = sim.colliders()[0]
    assert c["kind"] == "plane" and c["at"][1] == pytest.approx(0.1) and c["velocity"][1] == 0.2
    sim.advance_to(0.45)
    plane = 0.1 + 0.2 * (sim.time - t0)
    y = sim.particles()["position"][:, 1]
    assert y.mean() - y0 == pytest.approx(plane - 0.1, abs=0.01)
    assert y.min() >= plane - 0.005
    assert sim.colliders()[0]["at"][1] == pytest.approx(plane)
    with pytest.raises(silt.Error, match="collider was moved"):
        sim.checkpoint(tmp_path / "c.silt")
    with pytest.raises(ValueError, match="'floor' is a plane: give point=, not center="):
        sim.set_collider("floor", center=[0, 0, 0])
    with pytest.raises(ValueError, match="velocity must be 3 finite numbers"):
        sim.set_collider(0, velocity=[0, np.inf, 0])
    with pytest.raises(ValueError, match="no collider 'wall'"):
        sim.set_collider("wall", point=[0, 0, 0])
