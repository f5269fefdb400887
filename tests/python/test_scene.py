# Scenes from files and dicts: the CLI's validation and messages, --set as Scene.set.
import subprocess

import numpy as np
import pytest

import silt
from conftest import SCENES, cli


def test_from_file_and_set():
    s = silt.Scene.from_file(SCENES / "dam_break.json")
    assert s.solver == "swe" and s.name == "dam_break"
    assert s.to_dict()["physics"]["cfl"] == pytest.approx(0.45)
    s.set("physics.cfl", 0.3)
    assert s.to_dict()["physics"]["cfl"] == pytest.approx(0.3)
    assert s.overrides == ["physics.cfl=0.3"]
    assert "200 x 200" in s.summary() or "200" in s.summary()


def test_from_dict(sand_dict):
    s = silt.Scene.from_dict(sand_dict, name="column")
    assert s.solver == "mpm" and s.name == "sand_column"
    assert s.to_dict()["run"]["frame_dt"] == pytest.approx(1 / 30)


def test_numpy_values_are_json(sand_dict):
    sand_dict["physics"]["gravity"] = np.array([0.0, -9.81])
    sand_dict["materials"][0]["density"] = np.float32(1600)
    s = silt.Scene.from_dict(sand_dict)
    assert s.to_dict()["physics"]["gravity"][1] == pytest.approx(-9.81)


def test_unknown_key_names_it(sand_dict):
    sand_dict["physics"]["cfll"] = 0.3
    with pytest.raises(silt.SceneError, match=r"physics\.cfll"):
        silt.Scene.from_dict(sand_dict, name="typo")


def test_bad_set_keeps_scene(sand_scene):
    with pytest.raises(silt.SceneError, match="physics.cfl"):
        sand_scene.set("physics.cfl", -1)
    assert sand_scene.overrides == []
    assert sand_scene.to_dict()["physics"]["cfl"] > 0


def test_set_matches_cli_message(tmp_path):
    # The same message as `silt validate FILE --set physics.cfl=-1`.
    path = SCENES / "dam_break.json"
    with pytest.raises(silt.SceneError) as e:
        silt.Scene.from_file(path).set("physics.cfl", -1)
    exe = cli()
    if exe is None:
        pytest.skip("SILT_CLI not set (scripts/test.sh sets it)")
    r = subprocess.run([exe, "validate", str(path), "--set", "physics.cfl=-1"],
                       capture_output=True, text=True)
    assert r.returncode != 0
    assert str(e.value) in r.stderr, (str(e.value), r.stderr)


def test_bad_types():
    with pytest.raises(TypeError):
        silt.Scene.from_dict([1, 2])
    with pytest.raises(TypeError):
        silt.Scene.from_file(3)
    with pytest.raises(silt.SceneError, match="not a JSON value"):
        silt.Scene.from_dict({"solver": "mpm", "name": object()})
    s = silt.Scene.from_file(SCENES / "dam_break.json")
    with pytest.raises(TypeError):
        s.set(5, 1)
    with pytest.raises(silt.SceneError, match="NaN|nan|Out of range"):
        s.set("physics.cfl", float("nan"))


def test_missing_file_and_solver(tmp_path):
    with pytest.raises(silt.SceneError, match="nope.json"):
        silt.Scene.from_file(tmp_path / "nope.json")
    with pytest.raises(silt.SceneError, match="solver"):
        silt.Scene.from_dict({"solver": "lbm"}, name="other")
    assert issubclass(silt.SceneError, silt.Error)
    assert issubclass(silt.Error, RuntimeError)


def test_copy_is_independent(sand_scene):
    c = sand_scene.copy()
    c.set("physics.cfl", 0.2)
    assert sand_scene.overrides == [] and c.overrides == ["physics.cfl=0.2"]
