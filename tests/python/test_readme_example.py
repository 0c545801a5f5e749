"""README's Python example runs as printed (in a scratch directory beside the scenarios)."""

import contextlib
import io
import re

import codesim


def test_the_readme_python_example_runs(root, tmp_path, monkeypatch):
    text = (root / "README.md").read_text()
    blocks = re.findall(r"```python\n(.*?)```", text, re.S)
    assert len(blocks) == 1
    for name in ("scenarios", "data"):
        (tmp_path / name).symlink_to(root / name)
    monkeypatch.chdir(tmp_path)
    scope = {}
    with contextlib.redirect_stdout(io.StringIO()):
        exec(compile(blocks[0], "README.md", "exec"), scope)
    assert isinstance(scope["results"], codesim.Results) and scope["results"].complete
    assert len(scope["runs"]) == 4 * len(scope["results"].points)
    assert (tmp_path / "results" / "mine.json").read_text() == scope["results"].to_json()
    assert (tmp_path / "figures" / "quickstart.accuracy_vs_time.png").exists()
