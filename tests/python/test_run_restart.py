# run(out) of a Simulation restored from a checkpoint continues the run in its folder, as `silt run
# --restart` does: the frames after the checkpoint, every file as a straight `silt run` writes it.
import copy
import json
import os

import silt
from conftest import DAM_BREAK_SETS, SAND_COLUMN, SCENES
from test_run import run_cli, sets_args


def same_files(py, ref, skip=("resolved_scene.json", "checkpoint.silt")):
    assert sorted(n for n in os.listdir(py) if n not in skip) == sorted(n for n in os.listdir(ref) if n not in skip)
    for name in os.listdir(ref):
        if name not in skip:
            assert (py / name).read_bytes() == (ref / name).read_bytes(), name


def test_swe_restored_run_continues_its_folder(tmp_path):
    first = dict(DAM_BREAK_SETS, **{"run.end_time": 2.4})
    whole = dict(DAM_BREAK_SETS, **{"run.end_time": 4.8})
    out = tmp_path / "py"
    silt.Simulation(silt.Scene.from_file(SCENES / "dam_break.json").update(first), backend="cpu").run(
        out, checkpoint_every="sim:2.4")
    sim = silt.Simulation(silt.Scene.from_file(SCENES / "dam_break.json").update(whole), backend="cpu")
    sim.restore(out / "checkpoint.silt")
    assert sim.run(out)["time"] == 4.8
    run_cli([str(SCENES / "dam_break.json"), *sets_args(whole)], tmp_path / "cli")
    same_files(out, tmp_path / "cli")
    sim.restore(out / "checkpoint.silt")
    sim.step()  # no longer where the checkpoint left it
    try:
        sim.run(tmp_path / "other")
        raise AssertionError("run(out) after a step")
    except silt.Error as e:
        assert "starts at t = 0 or at the checkpoint restore() read" in str(e)


def test_mpm_restored_run_continues_its_folder(tmp_path):
    d = copy.deepcopy(SAND_COLUMN)
    d["performance"] = {"deterministic": True}  # bit-identical frames on the CPU's threads
    d["run"] = {"fps": 120, "end_time": 2 / 120}
    (tmp_path / "a.json").write_text(json.dumps(d))
    d["run"]["end_time"] = 4 / 120
    (tmp_path / "b.json").write_text(json.dumps(d))
    out = tmp_path / "py"
    silt.Simulation(silt.Scene.from_file(tmp_path / "a.json"), backend="cpu").run(out, checkpoint_every="sim:0.015")
    sim = silt.Simulation(silt.Scene.from_file(tmp_path / "b.json"), backend="cpu")
    sim.restore(out / "checkpoint.silt")
    assert sim.frame == 2
    assert sim.run(out)["frame"] == 4
    run_cli([str(tmp_path / "b.json")], tmp_path / "cli")
    same_files(out, tmp_path / "cli")
