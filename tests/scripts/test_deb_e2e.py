"""The retrofi-dkms package installed, booted and purged the way a user
lives with it, in `make check`: the smallest cycle of
scripts/retrofi_e2e.py (docs/deb-e2e.md), in a debootstrapped bullseye
root, never on this machine's own /.

bullseye is the oldest release the package serves (5.10, dkms 2.8, which
signs nothing itself: the package's config/dkms-sign.sh signs there), and
the selection is the small one a user can pick too (RETROFI_DEFCONFIG=hwsim
in the root's /etc/default/retrofi): compat, cfg80211, mac80211,
mac80211_hwsim.  One kernel, no upgrade: `make deb-e2e` proves the kernel
upgrade, and the whole default selection is the matrix's.  The roots are
cached by content under $RETROFI_CACHE/e2e, so a warm run pays for the
DKMS build, two boots and the purge."""

import os

import pytest

import retrofi_accel
import retrofi_deb
import retrofi_e2e
import retrofi_generate
import retrofi_kernels
import retrofi_matrix
import retrofi_release
from conftest import REPO

MTIME = 1700000000
RELEASE = "bullseye"


@pytest.mark.network
def test_the_deb_installs_signs_boots_and_purges_clean_in_a_bullseye_root(tmp_path):
    src = os.environ.get("RETROFI_TEST_SOURCE")
    if not src:
        pytest.skip("RETROFI_TEST_SOURCE not set (path of an extracted linux-source tree)")
    x, y = retrofi_generate.tree_series(src)
    source = retrofi_generate.SourceTree(f"linux-source-{x}.{y}", f"{x}.{y}.0-test", src, MTIME)
    tree = retrofi_generate.generate(source, str(tmp_path / "out"),
                                     cache_dir=retrofi_generate.default_cache_dir()).out_path
    tarball = retrofi_release.release(tree, str(tmp_path / "rel"), MTIME).tarball
    deb = retrofi_deb.build_deb(tarball, str(tmp_path / "deb")).deb

    matrix = retrofi_matrix.load(os.path.join(REPO, "kernel-matrix.yaml"))
    name = retrofi_e2e.RELEASE_TARGET[RELEASE]
    target = retrofi_kernels.fetch(matrix, [name], with_source=False).target(name)
    cache = retrofi_kernels.cache_dir()
    spec = next(t for t in matrix.targets if t.name == name)
    r = retrofi_e2e.cycle(cache, RELEASE, target.kernelrelease, deb, "hwsim", target=target,
                          accel=retrofi_accel.choose(target, cache).name,
                          logdir=str(tmp_path / "e2e"), allowed=spec.allowed_splats)
    print(retrofi_e2e.report(r))
    assert r.ok, "\n".join(r.problems)
    # dkms installed the selection, and only it, for the root's kernel ...
    assert sorted(r.modules) == ["cfg80211", "compat", "mac80211", "mac80211_hwsim"]
    # ... each signed by the key under /var/lib/dkms (dkms 2.8: the package's script) ...
    assert len(r.signatures) == 4 and all(s.startswith("ok ") for s in r.signatures), \
        r.signatures
    # ... given by modules.dep from updates/ after the install, from kernel/ after the purge.
    assert all("updates/" in line for line in r.installed_resolve), r.installed_resolve
    assert r.purged_resolve and all(": kernel/" in line for line in r.purged_resolve), \
        r.purged_resolve
    assert r.leftovers == ()
    # Both boots passed: the stack DKMS built, then the kernel's own.
    assert len(r.boots) == 2 and all(": pass," in b for b in r.boots), r.boots
    assert [s.name for s in r.steps][-3:] == ["boot with the dkms stack", "purge",
                                             "boot with the kernel's own stack"]
