# NumPy arrays as scene inputs (silt/_arrays.py, io/scene_arrays.hpp): a 2D array wherever a
# shallow-water scene takes a raster, read by the loader as a raster on the grid (the same checks
# and messages), and bad arrays refused with the key and what is wrong.
import numpy as np
import pytest

import silt

NX, NY, DX = 40, 20, 2.0


def cell_x():
    return (np.arange(NX) + 0.5) * DX * np.ones((NY, 1))


def base(**extra):
    d = {"solver": "swe", "name": "arrays", "grid": {"nx": NX, "ny": NY, "dx": DX},
         "run": {"end_time": 4.0, "output_interval": 2.0},
         "outputs": {"formats": ["asc"], "png": "none"}}
    d.update(extra)
    return d


def run(scene):
    sim = silt.Simulation(scene, backend="cpu")
    sim.advance_to(4.0)
    return sim


def test_arrays_give_the_fields_that_the_scene_keys_give():
    # The same slope, dam and friction as analytic fields and as arrays: the same run, bit for bit.
    keys = silt.Scene.from_dict(base(bed={"value": 0, "gradient": [0.01, 0]},
                                     initial={"level": {"value": 0.5, "patches": [
                                         {"shape": "rectangle", "min": [0, 0], "max": [20, 40], "value": 2.0}]}},
                                     manning=0.03, rainfall_mm_h=36))
    bed = 0.01 * cell_x()
    level = np.where(cell_x() < 20, 2.0, 0.5)
    arrays = silt.Scene.from_dict(base(bed=bed, initial={"level": level},
                                       manning=np.full((NY, NX), 0.03, dtype=np.float32).astype(np.float64),
                                       rainfall_mm_h=36))
    assert arrays.to_dict()["bed"].startswith("array:bed@")  # the name and a digest of the values
    a, b = run(keys), run(arrays)
    for name in ("depth", "hu", "bed"):
        np.testing.assert_array_equal(a.field(name), b.field(name))
    assert a.totals()["volume"] == b.totals()["volume"]


def test_rain_and_soil_rasters_as_arrays():
    rain = np.zeros((NY, NX))
    rain[:, :NX // 2] = 36.0  # mm/h on the western half
    soil = {"model": "horton", "initial_rate_mm_h": np.full((NY, NX), 10.0), "final_rate_mm_h": 1.0,
            "decay_per_h": np.full((NY, NX), 2.0, dtype=np.float32)}
    scene = silt.Scene.from_dict(base(bed=0.0, rainfall={"frames": [{"time": 0, "raster": rain}]},
                                      infiltration=soil))
    t = run(scene).totals()
    assert t["rain_volume"] == pytest.approx(36e-3 / 3600 * 4.0 * (NX // 2) * NY * DX * DX, rel=1e-5)
    assert 0 < t["infiltrated_volume"] < t["rain_volume"]


def test_an_array_is_kept_by_reference_and_set_replaces_it():
    bed = np.zeros((NY, NX))
    scene = silt.Scene.from_dict(base(bed=bed))
    assert np.shares_memory(scene._spec.arrays[scene.to_dict()["bed"]], bed)  # no copy of a float64 array
    scene.set("bed", np.full((NY, NX), 3.0))
    sim = silt.Simulation(scene, backend="cpu")
    assert (sim.field("bed") == 3.0).all()
    with pytest.raises(ValueError, match=r"'bed': expected shape \(ny, nx\) = \(20, 40\)"):
        scene.set("bed", np.zeros((NY, NX + 1)))


@pytest.mark.parametrize("value, error, message", [
    (np.zeros((NX, NY)), ValueError, r"'bed': expected shape \(ny, nx\) = \(20, 40\) of the grid, got \(40, 20\)"),
    (np.zeros(NX * NY), ValueError, r"'bed': must be a 2D array .* got 1 dimensions"),
    (np.zeros((0, NX)), ValueError, r"'bed': is empty"),
    (np.zeros((NY, NX), dtype=complex), TypeError, r"'bed': must be an array of real numbers .* not complex128"),
    (np.full((NY, NX), "1"), TypeError, r"'bed': must be an array of real numbers"),
    (np.zeros((NY, NX), dtype=bool), TypeError, r"'bed': must be an array of real numbers .* not bool"),
    (np.full((NY, NX), 2 ** 60, dtype=np.int64), TypeError, r"'bed': the int64 value .* at \[j, i\] = \[0, 0\] is not exact"),
])
def test_bad_arrays_name_the_key_and_the_problem(value, error, message):
    with pytest.raises(error, match=message):
        silt.Scene.from_dict(base(bed=value))


@pytest.mark.parametrize("bad", [np.nan, np.inf, -np.inf])
def test_values_that_are_not_finite_name_the_first_index(bad):
    depth = np.zeros((NY, NX))
    depth[3, 7] = bad
    depth[5, 1] = bad
    with pytest.raises(ValueError, match=r"'initial.depth': the value at \[j, i\] = \[3, 7\] is .*inf|nan"):
        silt.Scene.from_dict(base(initial={"depth": depth}))


def test_the_loader_checks_an_array_as_a_raster():
    # Ranges are the scene's own checks, named by key and cell.
    with pytest.raises(silt.SceneError, match=r"'initial.depth' must be >= 0, got -1 at cell \(i = 2, j = 1\).*'array:initial.depth@[0-9a-f]{16}'"):
        depth = np.zeros((NY, NX))
        depth[1, 2] = -1
        silt.Scene.from_dict(base(initial={"depth": depth}))
    with pytest.raises(silt.SceneError, match=r"'bed' is a NumPy array: .* needs \"grid\""):
        d = base(bed=np.zeros((NY, NX)))
        del d["grid"]
        silt.Scene.from_dict(d)
    with pytest.raises(silt.SceneError, match="names the array 'array:manning', which was not given"):
        silt.Scene.from_dict(base(bed=0.0, manning="array:manning"))


def test_integer_arrays_convert_exactly():
    scene = silt.Scene.from_dict(base(bed=np.arange(NX * NY, dtype=np.int32).reshape(NY, NX)))
    assert silt.Simulation(scene, backend="cpu").field("bed")[1, 0] == NX


def test_a_checkpoint_knows_the_arrays(tmp_path):
    # The array's digest is in the resolved scene that a checkpoint's scene hash is taken over.
    bed = np.zeros((NY, NX))
    sim = silt.Simulation(silt.Scene.from_dict(base(bed=bed, initial={"depth": 0.5})), backend="cpu")
    sim.advance_to(1.0)
    sim.checkpoint(tmp_path / "c.silt")
    same = silt.Simulation(silt.Scene.from_dict(base(bed=bed.copy(), initial={"depth": 0.5})), backend="cpu")
    same.restore(tmp_path / "c.silt")
    assert same.time == 1.0
    bed[0, 0] = 0.1
    other = silt.Simulation(silt.Scene.from_dict(base(bed=bed, initial={"depth": 0.5})), backend="cpu")
    with pytest.raises(silt.CheckpointError):
        other.restore(tmp_path / "c.silt")
