"""The release tarball, unpacked elsewhere, builds the whole stack with
`make KLIB=<Debian 5.10 headers> CC=gcc-12` alone (the oldest real target:
the 5.x compat shims, the rules' old forms, the gnu11 flags and the
struct wiphy layout rule at work) with no error and no compiler warning;
every module is built for that kernel. gcc-12 because 5.10's headers name
gcc-10, which bookworm lacks (the matrix entry's cc)."""

import os
import subprocess
import tarfile

import pytest

import retrofi_generate
import retrofi_kernels
import retrofi_matrix
import retrofi_release
from conftest import REPO, assert_stack_built


@pytest.fixture(scope="module")
def kernels():
    """The source and the 5.10 target (not a default one), in the cache."""
    m = retrofi_matrix.load(os.path.join(REPO, "kernel-matrix.yaml"))
    return retrofi_kernels.fetch(m, names=["5.10"])


@pytest.fixture(scope="module")
def tree(kernels, tmp_path_factory):
    out = tmp_path_factory.mktemp("out")
    gen = retrofi_generate.generate(kernels.source, str(out)).out_path
    rel = retrofi_release.release(gen, str(out), kernels.source.mtime)
    elsewhere = tmp_path_factory.mktemp("elsewhere")
    with tarfile.open(rel.tarball) as tar:
        tar.extractall(elsewhere)
    return str(elsewhere / os.path.basename(gen))


@pytest.mark.network
def test_stack_builds_on_5_10_without_warnings(kernels, tree):
    t = kernels.targets["5.10"]
    assert t.cc, "the 5.10 target names its compiler (cc: in kernel-matrix.yaml)"
    p = subprocess.run(["make", "-C", tree, "-j2", f"KLIB={t.headers}", f"CC={t.cc}"],
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    assert_stack_built(p, tree, t.kernelrelease)
