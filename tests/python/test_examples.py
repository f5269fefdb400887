# The examples of docs/python.md, run as they are written (each ```python block in order, one
# namespace per example heading), with matplotlib drawing off screen.
import pathlib
import re

import pytest

DOC = pathlib.Path(__file__).resolve().parents[2] / "docs" / "python.md"


def examples():
    text = DOC.read_text()
    out = []
    for section in re.split(r"^## ", text, flags=re.M)[1:]:
        title = section.splitlines()[0].strip()
        blocks = re.findall(r"```python\n(.*?)```", section, flags=re.S)
        if blocks and title.startswith("Example"):
            out.append(pytest.param("\n".join(blocks), id=title))
    return out


@pytest.mark.parametrize("code", examples())
def test_example(code, tmp_path, monkeypatch):
    pytest.importorskip("matplotlib")
    import matplotlib
    matplotlib.use("Agg")
    root = DOC.parents[1]
    monkeypatch.chdir(tmp_path)
    monkeypatch.syspath_prepend(str(root))
    (tmp_path / "scenes").symlink_to(root / "scenes")
    exec(compile(code, str(DOC), "exec"), {"__name__": "__example__"})


def test_there_are_examples():
    assert len(examples()) >= 2
