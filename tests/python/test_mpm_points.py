# MPM particles given as NumPy arrays: a scene source of "shape": "points" whose "position" (and
# "velocity") are (n, 3) arrays; the particles start where they were given, of the source's
# material, each standing for dx^d / particles_per_cell; bad arrays refused naming the key.
import copy

import numpy as np
import pytest

import silt
from conftest import SAND_COLUMN


def column_points(n=200):
    rng = np.random.default_rng(1)
    x = np.column_stack([rng.uniform(0.3, 0.4, n), rng.uniform(0.0, 0.1, n), np.zeros(n)])
    return x


def scene_with(points_source):
    d = copy.deepcopy(SAND_COLUMN)
    d["sources"].append(dict({"name": "pile", "material": "sand", "shape": "points",
                              "particles_per_cell": 4}, **points_source))
    return silt.Scene.from_dict(d, name="points")


def test_points_start_where_given_with_their_velocities():
    x = column_points()
    v = np.zeros_like(x)
    v[:, 0] = np.linspace(-1, 1, len(x))
    scene = scene_with({"position": x, "velocity": v})
    assert scene.to_dict()["sources"][1]["position"].startswith("array:sources[1].position@")
    sim = silt.Simulation(scene, backend="cpu")
    p = sim.particles()
    assert sim.particle_count == 800 + 200
    pile = p["id"] >= 800  # ids after the column's
    np.testing.assert_array_equal(p["position"][pile], x.astype(np.float32))
    np.testing.assert_array_equal(p["velocity"][pile], v.astype(np.float32))
    assert (p["material"][pile] == 0).all()
    s = sim.advance_frame()
    assert s["particles"] == 1000


def test_one_velocity_for_all_points():
    sim = silt.Simulation(scene_with({"position": column_points(), "velocity": [0.5, 0]}), backend="cpu")
    p = sim.particles()
    assert (p["velocity"][p["id"] >= 800][:, 0] == 0.5).all()


@pytest.mark.parametrize("position, error, message", [
    (np.zeros((5, 2)), ValueError, r"'sources\[1\].position': expected shape \(n, 3\)"),
    (np.zeros((0, 3)), ValueError, r"'sources\[1\].position': is empty"),
    (np.full((5, 3), np.nan), ValueError, r"'sources\[1\].position': row 0 \(nan, nan, nan\) is not finite"),
    (np.zeros((5, 3), dtype=complex), TypeError, r"'sources\[1\].position': must be an array of real numbers"),
])
def test_bad_point_arrays(position, error, message):
    with pytest.raises(error, match=message):
        scene_with({"position": position})


def test_the_loader_checks_points_as_a_source():
    x = column_points()
    x[7] = [0.9, 0.05, 0]  # outside the 0.6 m domain
    with pytest.raises(silt.SceneError, match=r"sources\[1\].*'pile'.*outside the domain along x"):
        scene_with({"position": x})
    with pytest.raises(silt.SceneError, match=r"sources\[1\].velocity.*expected 200 x 3"):
        scene_with({"position": column_points(), "velocity": np.zeros((3, 3))})
    with pytest.raises(silt.SceneError, match=r"sources\[1\].emit.*points source gives its particles once"):
        scene_with({"position": column_points(), "emit": {"interval": 0.1, "end": 0.5}})
