"""Tests that need the debug kernel (the build target debug-6.12): not part
of `make check` (a cold kernel build takes most of an hour on 2 cores);
run with `make check-debug`. The scripts are on sys.path as in tests/scripts."""

import os
import sys

import pytest

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(REPO, "scripts"))


@pytest.fixture(scope="session")
def debug_target():
    """(matrix, target) of debug-6.12 in kernel-matrix.yaml."""
    import retrofi_matrix
    m = retrofi_matrix.load(os.path.join(REPO, "kernel-matrix.yaml"))
    return m, m.target("debug-6.12")


@pytest.fixture(scope="session")
def debug_kernel(debug_target):
    """The debug-6.12 kernel (built, or reused from the cache) as a KernelTree."""
    import retrofi_kbuild
    import retrofi_kernels
    m, t = debug_target
    kernels = retrofi_kernels.fetch(m, [t.name])
    retrofi_kbuild.add_built(m, [t], kernels)
    return kernels.targets[t.name]


@pytest.fixture(scope="session")
def debug_kernel_args(debug_target):
    """The debug target's own kernel command line (kernel-matrix.yaml)."""
    return debug_target[1].kernel_args
