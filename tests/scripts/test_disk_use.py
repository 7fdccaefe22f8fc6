"""The test suite's own disk use: a whole run writes gigabytes of farms,
trees and packages under pytest's base directory.  A passed test's tmp_path
goes when it passed; a failed test's stays for reading; a run that passed
leaves nothing behind."""

import os
import subprocess

from conftest import PYTHON

HERE = os.path.dirname(os.path.abspath(__file__))

INNER = '''
def test_passes(tmp_path):
    (tmp_path / "written").write_text("x")

def test_fails(tmp_path):
    (tmp_path / "written").write_text("x")
    assert False

def test_skips(tmp_path):
    import pytest
    (tmp_path / "written").write_text("x")
    pytest.skip("on purpose")
'''


def _inner_run(tmp_path, *select):
    (tmp_path / "test_inner.py").write_text(INNER)
    base = tmp_path / "base"
    p = subprocess.run(
        [PYTHON, "-m", "pytest", "-p", "conftest", "-p", "no:cacheprovider",
         "--basetemp", str(base), "-q", "test_inner.py", *select],
        cwd=tmp_path, env=dict(os.environ, PYTHONPATH=HERE),
        capture_output=True, text=True)
    return p, base


def test_a_failed_tests_tmp_path_stays_and_the_others_go(tmp_path):
    p, base = _inner_run(tmp_path)
    assert p.returncode == 1, p.stdout + p.stderr
    assert "1 failed, 1 passed, 1 skipped" in p.stdout, p.stdout
    written = sorted(x.parent.name for x in base.glob("*/written")
                     if not x.parent.is_symlink())
    assert written == ["test_fails0"], written


def test_a_run_that_passed_leaves_no_base_directory(tmp_path):
    p, base = _inner_run(tmp_path, "-k", "passes or skips")
    assert p.returncode == 0, p.stdout + p.stderr
    assert "1 passed, 1 skipped" in p.stdout, p.stdout
    assert not base.exists(), sorted(os.listdir(base))
