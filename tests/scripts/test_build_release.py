"""The release tarball, unpacked elsewhere, builds the whole stack alone
with `make KLIB=<Debian headers>` for each older real target, with no error
and no compiler warning; every module is built for that kernel.  The
tarball is the long-term source's (lts: true, SOURCE=6.12): `make check`
keeps its stack building on 6.12 (the fault campaign), 6.1 (here) and 5.10
(test_dkms.py), while the newest source's is booted by the runner tests.

- 6.1: the compat shims and semantic patches of 6.2 to 6.12 at work.
- 5.10, the oldest real target (the 5.x shims, the rules' old forms, the
  gnu11 flags and the struct wiphy layout rule): its tarball build is the
  one test_dkms.py makes, where dkms runs the tarball's own
  `make KLIB=<headers> modules` with the compiler the headers name, and
  checks the same: no warning, every module for that kernel, each
  depending on compat.ko.
"""

import os
import tarfile

import pytest

import retrofi_generate
import retrofi_kernels
import retrofi_release
from conftest import assert_stack_build_result, lts_matrix, shared_build

TARGETS = ["6.1"]


@pytest.fixture(scope="module")
def kernels():
    """The source and the older real targets, in the cache."""
    return retrofi_kernels.fetch(lts_matrix(), names=TARGETS)


@pytest.fixture(scope="module")
def tarball(kernels, tmp_path_factory):
    """One release tarball of the generated tree, shared by every target,
    and the name of the tree it holds."""
    out = tmp_path_factory.mktemp("out")
    gen = retrofi_generate.generate(kernels.source, str(out)).out_path
    return retrofi_release.release(gen, str(out), kernels.source.mtime).tarball, os.path.basename(gen)


@pytest.mark.network
@pytest.mark.parametrize("name", TARGETS)
def test_release_tarball_builds_the_stack_without_warnings(kernels, tarball, name, tmp_path):
    t = kernels.targets[name]
    path, top = tarball
    with tarfile.open(path) as tar:
        tar.extractall(tmp_path)
    tree = str(tmp_path / top)
    # make -C <copy> KLIB=<headers> [CC=<the target's cc>] by the build
    # stage: its cache is keyed by content, so a build of the same tree for
    # this target elsewhere in the suite is this one.
    assert_stack_build_result(shared_build(tree, t, tmp_path), t.kernelrelease)
