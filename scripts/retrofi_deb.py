"""The `deb` stage: release tarball -> retrofi-dkms_<version>-<n>_all.deb.

One job: unpack the release tarball in a temporary directory, add a
debian/ directory (control, changelog, rules with dh and dh_dkms,
copyright, and the install lists), build the binary package with
dpkg-buildpackage, and move the .deb into the destination only when it is
complete.  The package installs the tree under /usr/src/retrofi-<dkms
version>/ (dh_dkms installs its dkms.conf and the maintainer scripts that
add, build and remove it with dkms) and retrofi-status in /usr/sbin.

Reproducible as the tarball is: the same tarball gives the same bytes.
SOURCE_DATE_EPOCH is the tarball's timestamp (the source package's); the
changelog's date is the same; the build runs with a fixed locale, time zone
and umask, and nothing of the build directory's path or the host ends up in
the package.  Nothing here uses the network.
"""

import email.utils
import os
import re
import shutil
import subprocess
import tarfile
import tempfile
from dataclasses import dataclass

from retrofi_errors import RetrofiError

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PACKAGE = "retrofi-dkms"
SOURCE_PACKAGE = "retrofi"
MAINTAINER = "retrofi maintainers <maintainers@retrofi.invalid>"
# What the package adds besides the tree (packaging/): the status command,
# its manual page, and the lintian tags it overrides, each with its reason.
PACKAGING = os.path.join(REPO, "packaging")
# dkms (3.0.10) installs a module only if its version is newer than the
# kernel's own module of that name, else "DKMS will not replace this
# module" and the install fails: cfg80211, mac80211 and the drivers carry no
# MODULE_VERSION, like the kernel's, so they compare equal and the backport
# would never be installed.  "<name>_version-override" in this directory
# makes dkms skip that comparison for the package's modules (and only it:
# not the obsolescence check that --force also skips).
FORCE_DIR = "usr/share/dkms/modules_to_force_install"
FORCE_FILE = SOURCE_PACKAGE  # the DKMS module name (any name works: dkms reads them all)
# The tools dpkg-buildpackage needs here (scripts/bootstrap installs them).
BUILD_TOOLS = ("dpkg-buildpackage", "dh", "dh_dkms")


@dataclass(frozen=True)
class DebResult:
    deb: str          # path of the .deb
    version: str      # the package's version (<source version>-<n>)
    dkms_version: str  # PACKAGE_VERSION of its dkms.conf


def deb_version(source_version, revision):
    return f"{source_version}-{int(revision)}"


def deb_name(source_version, revision):
    return f"{PACKAGE}_{deb_version(source_version, revision)}_all.deb"


def _safe_extract(tarball, dest):
    """Unpack the release tarball; return (its top directory, its mtime).

    Only directories, regular files and relative symlinks inside one top
    directory are accepted (a release tarball has nothing else)."""
    try:
        with tarfile.open(tarball) as tf:
            members = tf.getmembers()
            if not members or not members[0].isdir() or "/" in members[0].name:
                raise RetrofiError("not a release tarball: its first entry is not its "
                                   "top directory", where=tarball,
                                   fix="give the .tar.xz that `make release` wrote")
            top = members[0].name
            for m in members:
                parts = m.name.split("/")
                bad = (parts[0] != top or ".." in parts or m.name.startswith("/")
                       or not (m.isdir() or m.isfile() or m.issym())
                       or (m.issym() and (m.linkname.startswith("/")
                                          or not _inside(m.name, m.linkname))))
                if bad:
                    raise RetrofiError(f"unexpected entry {m.name!r} in the tarball",
                                       where=tarball,
                                       fix="give the .tar.xz that `make release` wrote")
            tf.extractall(dest, members=members)
            return os.path.join(dest, top), int(members[0].mtime)
    except (tarfile.TarError, EOFError, OSError) as e:
        raise RetrofiError(f"cannot read the release tarball: {e}", where=tarball,
                           fix="run `make release` again (the file is damaged or missing)")


def _inside(name, linkname):
    """Whether a symlink at name pointing to linkname stays in its tree."""
    path = os.path.normpath(os.path.join(os.path.dirname(name), linkname))
    return not path.startswith("..") and path.split("/")[0] == name.split("/")[0]


def _check_sha256(tarball):
    sumfile = tarball + ".sha256"
    if not os.path.exists(sumfile):
        return
    import hashlib
    with open(tarball, "rb") as f:
        digest = hashlib.sha256(f.read()).hexdigest()
    with open(sumfile) as f:
        want = f.read().split()[:1]
    if want != [digest]:
        raise RetrofiError("the release tarball does not match its .sha256",
                           where=tarball, fix="run `make release` again")


def _read_versions(tree):
    path = os.path.join(tree, "versions")
    try:
        with open(path) as f:
            fields = dict(l.split(": ", 1) for l in f.read().splitlines()
                          if ": " in l and not l.startswith("#"))
    except OSError:
        raise RetrofiError("the tarball has no versions file: not a generated output tree",
                           where=path, fix="give the .tar.xz that `make release` wrote")
    for key in ("source-package", "source-version", "project-version"):
        if key not in fields:
            raise RetrofiError(f"the versions file has no {key} line", where=path,
                               fix="run `make release` again with this checkout")
    return fields


def _read_dkms_conf(tree):
    path = os.path.join(tree, "dkms.conf")
    try:
        with open(path) as f:
            text = f.read()
    except OSError:
        raise RetrofiError("the tarball has no dkms.conf", where=path,
                           fix="run `make release` again with this checkout")
    conf = dict(re.findall(r'^(PACKAGE_NAME|PACKAGE_VERSION|BUILD_EXCLUSIVE_KERNEL)="([^"]*)"',
                           text, re.M))
    if set(conf) != {"PACKAGE_NAME", "PACKAGE_VERSION", "BUILD_EXCLUSIVE_KERNEL"}:
        raise RetrofiError("dkms.conf lacks PACKAGE_NAME, PACKAGE_VERSION or "
                           "BUILD_EXCLUSIVE_KERNEL (a tarball older than the package)",
                           where=path, fix="run `make release` again with this checkout")
    return conf


def _control(fields):
    return f"""\
Source: {SOURCE_PACKAGE}
Section: kernel
Priority: optional
Maintainer: {MAINTAINER}
Build-Depends: debhelper-compat (= 13), dh-sequence-dkms
Standards-Version: 4.6.2
Rules-Requires-Root: no

Package: {PACKAGE}
Architecture: all
Depends: ${{misc:Depends}}, make, openssl
Recommends: linux-headers-amd64 | linux-headers
Suggests: mokutil
Description: newest Linux wireless stack for older kernels (DKMS)
 retrofi backports the wireless stack (cfg80211, mac80211 and Wi-Fi
 drivers) of {fields['source-package']} {fields['source-version']} to older
 Debian kernels (5.10 and newer, with cfg80211 and mac80211 built as
 modules).  DKMS builds it for each installed kernel whose headers are
 installed and puts it in the kernel's updates/ directory, where it takes
 precedence over the kernel's own modules.
 .
 retrofi-status tells whether the backported stack is the one loaded.
"""


def _changelog(fields, version, mtime):
    date = email.utils.formatdate(mtime, usegmt=True).replace("GMT", "+0000")
    return f"""\
{SOURCE_PACKAGE} ({version}) unstable; urgency=medium

  * The wireless stack of {fields['source-package']} {fields['source-version']},
    retrofi {fields['project-version']}.

 -- {MAINTAINER}  {date}
"""


RULES = """\
#!/usr/bin/make -f
# The tree is DKMS source: nothing is built here, dh_dkms installs
# dkms.conf and the maintainer scripts, dh_install the rest.
%:
\tdh $@

override_dh_auto_configure override_dh_auto_build override_dh_auto_test \\
override_dh_auto_install override_dh_auto_clean:

# dh_dkms asks for dkms (>= 3.0.3-4~), the dkms that split dh_dkms into
# dh-dkms; the maintainer scripts it writes call common.postinst with the
# arguments that bullseye's dkms 2.8.4 takes too, and `make deb-e2e
# RELEASE=bullseye` installs, upgrades and purges the package with it.
# So one package serves bullseye and bookworm.
override_dh_gencontrol:
\tgrep -q 'dkms (>= 3.0.3-4~)' debian/retrofi-dkms.substvars || { \\
\t  echo "retrofi: error: dh_dkms no longer asks for dkms (>= 3.0.3-4~)"; \\
\t  echo "  fix: check its dependency against dkms 2.8.4 and update debian/rules"; \\
\t  exit 1; }
\tsed -i 's/dkms (>= 3\\.0\\.3-4~)/dkms (>= 2.8.4)/' debian/retrofi-dkms.substvars
\tdh_gencontrol
"""

COPYRIGHT = """\
Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/
Upstream-Name: retrofi
Comment: The wireless stack of the Linux kernel ({source}), rewritten by
 retrofi's semantic patches, with retrofi's compat layer and build glue.
 Each source file's SPDX-License-Identifier line names its license.

Files: *
Copyright: the Linux kernel's authors, as each file's header names them
License: GPL-2

Files: drivers/net/wireless/ath/* net/wireless/of.c net/wireless/reg.c
 net/wireless/reg.h net/mac80211/airtime.c
Copyright: Atheros Communications Inc., Qualcomm Atheros Inc. and others,
 as each file's header names them
License: ISC
 Permission to use, copy, modify, and/or distribute this software for any
 purpose with or without fee is hereby granted, provided that the above
 copyright notice and this permission notice appear in all copies.
 .
 THE SOFTWARE IS PROVIDED "AS IS" AND THE AUTHOR DISCLAIMS ALL WARRANTIES
 WITH REGARD TO THIS SOFTWARE INCLUDING ALL IMPLIED WARRANTIES OF
 MERCHANTABILITY AND FITNESS. IN NO EVENT SHALL THE AUTHOR BE LIABLE FOR
 ANY SPECIAL, DIRECT, INDIRECT, OR CONSEQUENTIAL DAMAGES OR ANY DAMAGES
 WHATSOEVER RESULTING FROM LOSS OF USE, DATA OR PROFITS, WHETHER IN AN
 ACTION OF CONTRACT, NEGLIGENCE OR OTHER TORTIOUS ACTION, ARISING OUT OF
 OR IN CONNECTION WITH THE USE OR PERFORMANCE OF THIS SOFTWARE.

Files: drivers/net/wireless/ath/testmode_i.h
Copyright: 2018-2019 The Linux Foundation; Qualcomm Technologies, Inc.
License: BSD-3-Clause-Clear
 Redistribution and use in source and binary forms, with or without
 modification, are permitted (subject to the limitations in the disclaimer
 below) provided that the following conditions are met:
 .
 * Redistributions of source code must retain the above copyright notice,
 this list of conditions and the following disclaimer.
 .
 * Redistributions in binary form must reproduce the above copyright
 notice, this list of conditions and the following disclaimer in the
 documentation and/or other materials provided with the distribution.
 .
 * Neither the name of the copyright holder nor the names of its
 contributors may be used to endorse or promote products derived from this
 software without specific prior written permission.
 .
 NO EXPRESS OR IMPLIED LICENSES TO ANY PARTY'S PATENT RIGHTS ARE GRANTED BY
 THIS LICENSE. THIS SOFTWARE IS PROVIDED BY THE COPYRIGHT HOLDERS AND
 CONTRIBUTORS "AS IS" AND ANY EXPRESS OR IMPLIED WARRANTIES, INCLUDING, BUT
 NOT LIMITED TO, THE IMPLIED WARRANTIES OF MERCHANTABILITY AND FITNESS FOR A
 PARTICULAR PURPOSE ARE DISCLAIMED. IN NO EVENT SHALL THE COPYRIGHT HOLDER
 OR CONTRIBUTORS BE LIABLE FOR ANY DIRECT, INDIRECT, INCIDENTAL, SPECIAL,
 EXEMPLARY, OR CONSEQUENTIAL DAMAGES (INCLUDING, BUT NOT LIMITED TO,
 PROCUREMENT OF SUBSTITUTE GOODS OR SERVICES; LOSS OF USE, DATA, OR
 PROFITS; OR BUSINESS INTERRUPTION) HOWEVER CAUSED AND ON ANY THEORY OF
 LIABILITY, WHETHER IN CONTRACT, STRICT LIABILITY, OR TORT (INCLUDING
 NEGLIGENCE OR OTHERWISE) ARISING IN ANY WAY OUT OF THE USE OF THIS
 SOFTWARE, EVEN IF ADVISED OF THE POSSIBILITY OF SUCH DAMAGE.

Files: net/wireless/radiotap.c
Copyright: 2007 Andy Green, 2009 Johannes Berg
License: GPL-2 or BSD-2-Clause

Files: debian/*
Copyright: retrofi's authors
License: GPL-2

License: BSD-2-Clause
 Redistribution and use in source and binary forms, with or without
 modification, are permitted provided that the following conditions are
 met:
 .
 1. Redistributions of source code must retain the above copyright
 notice, this list of conditions and the following disclaimer.
 .
 2. Redistributions in binary form must reproduce the above copyright
 notice, this list of conditions and the following disclaimer in the
 documentation and/or other materials provided with the distribution.
 .
 THIS SOFTWARE IS PROVIDED BY THE COPYRIGHT HOLDERS AND CONTRIBUTORS "AS
 IS" AND ANY EXPRESS OR IMPLIED WARRANTIES, INCLUDING, BUT NOT LIMITED TO,
 THE IMPLIED WARRANTIES OF MERCHANTABILITY AND FITNESS FOR A PARTICULAR
 PURPOSE ARE DISCLAIMED. IN NO EVENT SHALL THE COPYRIGHT HOLDER OR
 CONTRIBUTORS BE LIABLE FOR ANY DIRECT, INDIRECT, INCIDENTAL, SPECIAL,
 EXEMPLARY, OR CONSEQUENTIAL DAMAGES (INCLUDING, BUT NOT LIMITED TO,
 PROCUREMENT OF SUBSTITUTE GOODS OR SERVICES; LOSS OF USE, DATA, OR
 PROFITS; OR BUSINESS INTERRUPTION) HOWEVER CAUSED AND ON ANY THEORY OF
 LIABILITY, WHETHER IN CONTRACT, STRICT LIABILITY, OR TORT (INCLUDING
 NEGLIGENCE OR OTHERWISE) ARISING IN ANY WAY OUT OF THE USE OF THIS
 SOFTWARE, EVEN IF ADVISED OF THE POSSIBILITY OF SUCH DAMAGE.

License: GPL-2
 This program is free software; you can redistribute it and/or modify it
 under the terms of the GNU General Public License version 2 as published
 by the Free Software Foundation.
 .
 On Debian systems, the complete text of the GNU General Public License
 version 2 can be found in /usr/share/common-licenses/GPL-2.
"""


def _debian_files(tree, fields, conf, version, mtime):
    """{relative path: (content, mode)} of debian/."""
    src_dir = f"usr/src/{conf['PACKAGE_NAME']}-{conf['PACKAGE_VERSION']}/"
    entries = sorted(n for n in os.listdir(tree) if n not in ("dkms.conf", "debian"))
    extra = {}
    for name in ("retrofi-status", "retrofi-status.8", f"{PACKAGE}.lintian-overrides"):
        with open(os.path.join(PACKAGING, name)) as f:
            extra[name] = f.read()
    files = {
        "control": (_control(fields), 0o644),
        "changelog": (_changelog(fields, version, mtime), 0o644),
        "rules": (RULES, 0o755),
        "copyright": (COPYRIGHT.format(source=f"{fields['source-package']} "
                                             f"{fields['source-version']}"), 0o644),
        "source/format": ("3.0 (quilt)\n", 0o644),
        f"{PACKAGE}.dkms": ("dkms.conf\n", 0o644),
        f"{PACKAGE}.install": ("".join(f"{e} {src_dir}\n" for e in entries)
                               + "debian/retrofi-status usr/sbin/\n"
                               + f"debian/{FORCE_FILE} {FORCE_DIR}/\n", 0o644),
        FORCE_FILE: (f"{conf['PACKAGE_NAME']}_version-override\n", 0o644),
        f"{PACKAGE}.manpages": ("debian/retrofi-status.8\n", 0o644),
        "retrofi-status": (extra["retrofi-status"], 0o755),
        "retrofi-status.8": (extra["retrofi-status.8"], 0o644),
        f"{PACKAGE}.lintian-overrides": (extra[f"{PACKAGE}.lintian-overrides"], 0o644),
    }
    return files


def _build_env(mtime):
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("DEB_", "DH_", "DPKG_", "MAKE", "DEBEMAIL", "DEBFULLNAME"))
           and k not in ("LANG", "LANGUAGE", "TZ") and not k.startswith("LC_")}
    env.update(SOURCE_DATE_EPOCH=str(mtime), LC_ALL="C.UTF-8", TZ="UTC",
               DEB_BUILD_OPTIONS="", PATH=os.environ.get("PATH", "/usr/bin:/bin"))
    return env


def _check_tools():
    missing = [t for t in BUILD_TOOLS if not shutil.which(t)]
    if missing:
        raise RetrofiError(f"{', '.join(missing)} not found: building the .deb needs "
                           "dpkg-dev, debhelper and dh-dkms", where="PATH",
                           fix="run `make bootstrap` (as root) or apt-get install "
                               "dpkg-dev debhelper dh-dkms")


def build_deb(tarball: str, dest_dir: str, revision: int = 1) -> DebResult:
    """dest_dir/retrofi-dkms_<source version>-<revision>_all.deb from tarball."""
    if not isinstance(revision, int) or revision < 1:
        raise RetrofiError(f"bad Debian revision {revision!r}", where="DEB_REVISION",
                           fix="give a whole number from 1 up (DEB_REVISION=2)")
    _check_tools()
    tarball = os.path.abspath(tarball)
    _check_sha256(tarball)
    os.makedirs(dest_dir, exist_ok=True)
    old_umask = os.umask(0o022)
    try:
        with tempfile.TemporaryDirectory(prefix=".tmp-deb-", dir=dest_dir) as work:
            tree, mtime = _safe_extract(tarball, work)
            fields = _read_versions(tree)
            conf = _read_dkms_conf(tree)
            version = deb_version(fields["source-version"], revision)
            # The directory's name never reaches the package (the tests build
            # in other directories and compare the bytes).
            src = os.path.join(work, "src")
            os.rename(tree, src)
            for rel, (content, mode) in _debian_files(src, fields, conf, version,
                                                      mtime).items():
                path = os.path.join(src, "debian", rel)
                os.makedirs(os.path.dirname(path), exist_ok=True)
                with open(path, "w") as f:
                    f.write(content)
                os.chmod(path, mode)
                os.utime(path, (mtime, mtime))
            p = subprocess.run(["dpkg-buildpackage", "-b", "--no-sign", "-nc"],
                               cwd=src, env=_build_env(mtime), stdout=subprocess.PIPE,
                               stderr=subprocess.STDOUT, text=True)
            name = deb_name(fields["source-version"], revision)
            built = os.path.join(work, name)
            if p.returncode != 0 or not os.path.isfile(built):
                tail = "\n".join(p.stdout.splitlines()[-25:])
                raise RetrofiError(f"dpkg-buildpackage failed (exit {p.returncode}):\n{tail}",
                                   where=tarball, fix="see the lines above; run `make bootstrap` "
                                                  "if a build tool is missing")
            os.chmod(built, 0o644)
            final = os.path.join(dest_dir, name)
            os.replace(built, final)
    except OSError as e:
        raise RetrofiError(f"cannot build the .deb: {e.strerror or e}",
                           where=getattr(e, "filename", None) or dest_dir,
                           fix="free disk space or choose a writable directory")
    finally:
        os.umask(old_umask)
    return DebResult(final, version, conf["PACKAGE_VERSION"])
