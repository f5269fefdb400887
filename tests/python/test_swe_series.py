# Shallow water between steps from Python: a boundary's and a point source's series replaced act
# from then on (the inflow volume of a closed channel), with the scene's checks as errors.
import numpy as np
import pytest

import silt

CHANNEL = {
    "solver": "swe",
    "name": "channel",
    "grid": {"nx": 40, "ny": 4, "dx": 0.5, "origin": [0.0, 0.0]},
    "bed": 0.0,
    "initial": {"depth": 0.0},
    "manning": 0.0,
    "physics": {"precision": "float64"},
    "boundaries": [{"side": "west", "type": "discharge", "name": "q", "discharge": 1.5},
                   {"side": "east", "type": "wall", "name": "shut"}],
    "sources": [{"name": "tap", "x": 15.2, "y": 1.0, "discharge": 0.25}],
    "run": {"end_time": 8.0, "output_interval": 4.0},
    "outputs": {"fields": ["depth"], "formats": ["asc"], "png": "none"},
}


@pytest.mark.parametrize("parts", [1, 2])
def test_set_series_acts_from_now(parts, tmp_path):
    sim = silt.Simulation(silt.Scene.from_dict(CHANNEL), backend="cpu", devices=[0] * parts)
    sim.advance_to(4.0)
    assert sim.totals()["inflow_volume"] == pytest.approx(4 * 1.75, abs=1e-9)
    sim.set_series("q", [4.0, 8.0], np.array([0.5, 1.5], dtype=np.float32))  # a ramp, mean 1
    sim.set_series("tap", np.array([0.0]), [0])
    sim.advance_to(8.0)
    t = sim.totals()
    assert t["inflow_volume"] == pytest.approx(4 * 1.75 + 4 * 1.0, abs=1e-6)
    assert t["volume"] == pytest.approx(t["inflow_volume"], abs=1e-6)
    # The totals by name (issue 34): the net inflow under its new name, each boundary and source.
    assert t["net_inflow_volume"] == t["inflow_volume"]
    assert t["boundary_volume"]["q"] == pytest.approx(4 * 1.5 + 4 * 1.0, abs=1e-6)
    assert t["boundary_volume"]["shut"] == 0.0
    assert t["source_volume"]["tap"] == pytest.approx(4 * 0.25, abs=1e-9)
    assert t["boundary_net_volume"] + t["source_net_volume"] == pytest.approx(
        t["net_inflow_volume"], abs=1e-9)
    with pytest.raises(silt.Error, match="series was replaced at t = 4"):
        sim.checkpoint(tmp_path / "c.silt")


def test_set_series_bad_input():
    sim = silt.Simulation(silt.Scene.from_dict(CHANNEL), backend="cpu")
    with pytest.raises(ValueError, match=r"boundary 'q'.*times must increase strictly \(sample 2 at t = 1 s\)"):
        sim.set_series("q", [0, 2, 1], [1, 1, 1])
    with pytest.raises(ValueError, match="source 'tap'.*sample 1 is not finite"):
        sim.set_series("tap", [0, 1], [1, np.nan])
    with pytest.raises(ValueError, match="2 times but 1 values"):
        sim.set_series("tap", [0, 1], [1])
    with pytest.raises(ValueError, match="times must be a 1D array, not of shape"):
        sim.set_series("tap", [[0, 1]], [1, 2])
    with pytest.raises(TypeError, match="values must be a 1D array of numbers"):
        sim.set_series("tap", [0, 1], ["a", "b"])
    with pytest.raises(ValueError, match="'shut' is a wall boundary"):
        sim.set_series("shut", [0], [1])
    with pytest.raises(ValueError, match="no boundary or source is named 'nope'"):
        sim.set_series("nope", [0], [1])
    sim.advance_to(2.0)
    assert sim.totals()["inflow_volume"] == pytest.approx(2 * 1.75, abs=1e-9)  # nothing changed
