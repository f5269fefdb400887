# Simulation.run(out) drives the run layer's frame loop, the one `silt run` drives: the same files
# (names, frames.csv, and for shallow water every byte but the resolved scene's provenance), the
# same checkpoints, Ctrl-C as its stop signal.
import json
import os
import signal
import subprocess
import threading

import pytest

import silt
from conftest import DAM_BREAK_SETS, SCENES, cli

# The dam break of conftest on 4 m cells, to 2.4 s: frames at 0, 1.2 and 2.4 s, gauge rows.
DAM_SETS = dict(DAM_BREAK_SETS, **{"run.end_time": 2.4})


def files(d):
    return sorted(p.name for p in d.iterdir())


def run_cli(args, out):
    exe = cli()
    if exe is None:
        pytest.skip("SILT_CLI not set (scripts/test.sh sets it)")
    subprocess.run([exe, "run", *args, "--backend", "cpu", "--quiet", "--out", str(out)],
                   check=True, capture_output=True)


def sets_args(sets):
    args = []
    for k, v in sets.items():
        args += ["--set", f"{k}={v}"]
    return args


def test_swe_run_writes_what_the_cli_writes(tmp_path):
    scene = silt.Scene.from_file(SCENES / "dam_break.json").update(DAM_SETS)
    totals = silt.Simulation(scene, backend="cpu").run(tmp_path / "py")
    assert totals["time"] == pytest.approx(2.4)
    run_cli([str(SCENES / "dam_break.json"), *sets_args(DAM_SETS)], tmp_path / "cli")
    py, ref = tmp_path / "py", tmp_path / "cli"
    assert files(py) == files(ref)
    assert (py / "frames.csv").read_text() == (ref / "frames.csv").read_text()
    assert len((py / "frames.csv").read_text().split()) == 4  # the header and frames 0, 1, 2
    for name in files(ref):
        if name != "resolved_scene.json":  # the provenance names the build's revision
            assert (py / name).read_bytes() == (ref / name).read_bytes(), name
    a = json.loads((py / "resolved_scene.json").read_text())
    b = json.loads((ref / "resolved_scene.json").read_text())
    assert a["provenance"]["scene_file"] == b["provenance"]["scene_file"]
    assert {k: v for k, v in a.items() if k != "provenance"} == {k: v for k, v in b.items() if k != "provenance"}


def test_mpm_run_writes_what_the_cli_writes(sand_dict, tmp_path):
    sand_dict["run"]["end_time"] = 0.1
    path = tmp_path / "sand.json"
    path.write_text(json.dumps(sand_dict))
    s = silt.Simulation(silt.Scene.from_file(path), backend="cpu").run(tmp_path / "py")
    assert s["frame"] == 3
    run_cli([str(path)], tmp_path / "cli")
    py, ref = tmp_path / "py", tmp_path / "cli"
    assert files(py) == files(ref)
    assert (py / "frames.csv").read_text() == (ref / "frames.csv").read_text()
    assert b"element vertex 800" in (py / "particles_0003.ply").read_bytes()


def test_run_without_out_writes_nothing(dam_scene, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    sim = silt.Simulation(dam_scene.copy().update({"run.end_time": 1.2}), backend="cpu")
    assert sim.run()["time"] == pytest.approx(1.2)
    assert list(tmp_path.iterdir()) == []


def test_run_checkpoints_and_refusals(dam_scene, tmp_path):
    scene = dam_scene.copy().update({"run.end_time": 2.4})
    sim = silt.Simulation(scene, backend="cpu")
    sim.run(tmp_path / "a", checkpoint_every="sim:1.2")
    assert (tmp_path / "a" / "checkpoint.silt").exists()
    with pytest.raises(silt.Error, match="not empty"):  # the folder is claimed as silt run's
        silt.Simulation(scene, backend="cpu").run(tmp_path / "a")
    silt.Simulation(scene, backend="cpu").run(tmp_path / "a", overwrite=True)
    with pytest.raises(silt.Error, match="starts at t = 0"):
        sim.run(tmp_path / "b")
    with pytest.raises(silt.Error, match="checkpoint_every 'often'"):
        silt.Simulation(scene, backend="cpu").run(tmp_path / "c", checkpoint_every="often")
    with pytest.raises(ValueError, match="output folder"):
        silt.Simulation(scene, backend="cpu").run(checkpoint_every="sim:1")


def test_ctrl_c_stops_run_after_complete_frames(sand_scene, tmp_path, python_sigint):
    sim = silt.Simulation(sand_scene.copy().set("run.end_time", 100), backend="cpu")
    timer = threading.Timer(1.0, lambda: os.kill(os.getpid(), signal.SIGINT))
    timer.start()
    try:
        with pytest.raises(KeyboardInterrupt):
            sim.run(tmp_path / "out")
    finally:
        timer.cancel()
    rows = (tmp_path / "out" / "frames.csv").read_text().split()[1:]
    assert 1 <= len(rows) <= sim.frame + 1
    assert (tmp_path / "out" / "checkpoint.silt").exists()  # a stop leaves one, as silt run's
    for r in rows:
        assert (tmp_path / "out" / f"particles_{int(r.split(',')[0]):04d}.ply").exists()
