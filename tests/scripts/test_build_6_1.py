"""The release tarball, unpacked elsewhere, builds the whole stack with
`make KLIB=<Debian 6.1 headers>` alone (a real older target: compat shims
and semantic patches at work) with no error and no compiler warning; every
module is built for that kernel."""

import os
import subprocess
import tarfile

import pytest

import retrofi_generate
import retrofi_release
from conftest import assert_stack_built


@pytest.fixture(scope="module")
def tree(fetched, tmp_path_factory):
    out = tmp_path_factory.mktemp("out")
    gen = retrofi_generate.generate(fetched.source, str(out)).out_path
    rel = retrofi_release.release(gen, str(out), fetched.source.mtime)
    elsewhere = tmp_path_factory.mktemp("elsewhere")
    with tarfile.open(rel.tarball) as tar:
        tar.extractall(elsewhere)
    return str(elsewhere / os.path.basename(gen))


@pytest.mark.network
def test_stack_builds_on_6_1_without_warnings(fetched, tree):
    t = fetched.targets["6.1"]
    p = subprocess.run(["make", "-C", tree, "-j2", f"KLIB={t.headers}"], stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT, text=True)
    assert_stack_built(p, tree, t.kernelrelease)
