"""Shared fixtures: the scripts on sys.path, the repository, the cache."""

import os
import subprocess
import sys

import pytest

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(REPO, "scripts"))

PYTHON = "/usr/bin/python3"
CLI = os.path.join(REPO, "scripts", "retrofi.py")


def pytest_configure(config):
    config.addinivalue_line("markers", "network: needs Debian's archive (package lists or downloads)")
    config.addinivalue_line("markers", "root: needs root (mounts a tmpfs)")


@pytest.fixture
def repo():
    return REPO


def run_cli(*args, env=None, cwd=None):
    """Run the retrofi CLI as a user would; returns the CompletedProcess."""
    e = dict(os.environ)
    e.update(env or {})
    return subprocess.run([PYTHON, CLI, *args], env=e, cwd=cwd or REPO, text=True,
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE)


@pytest.fixture
def cli():
    return run_cli
