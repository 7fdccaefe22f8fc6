"""A private apt configuration in the cache, for looking up and downloading
Debian kernel packages without touching the host's apt setup.

The host's sources are only read, to learn which mirror this machine uses
(override with RETROFI_MIRROR / RETROFI_SECURITY_MIRROR).  Everything apt
writes (lists, archives, status) lives under <cache>/apt/<suites>/.  apt's
signature and hash checks stay on: every source is Signed-By Debian's archive
keyring, and nothing here passes an option that weakens them.
"""

import dataclasses
import glob
import hashlib
import os
import re
import shutil
import subprocess
import tempfile

from retrofi_errors import RetrofiError

KEYRING = "/usr/share/keyrings/debian-archive-keyring.gpg"
HOST_SOURCES = ("/etc/apt/sources.list", "/etc/apt/sources.list.d")


@dataclasses.dataclass(frozen=True)
class Package:
    """One binary package version as the archive describes it."""
    name: str
    version: str
    filename: str      # pool path, e.g. pool/main/l/linux/linux-kbuild-6.1_..._amd64.deb
    size: int
    sha256: str
    depends: str = ""

    @property
    def deb_name(self):
        return os.path.basename(self.filename)

    def pin(self):
        return {"name": self.name, "version": self.version, "filename": self.filename,
                "size": self.size, "sha256": self.sha256}


def _host_source_entries(paths=HOST_SOURCES):
    """(uri, suite) pairs from the host's apt sources, read-only."""
    files = []
    for p in paths:
        if os.path.isdir(p):
            files += sorted(glob.glob(os.path.join(p, "*.list")) + glob.glob(os.path.join(p, "*.sources")))
        elif os.path.isfile(p):
            files.append(p)
    entries = []
    for f in files:
        try:
            text = open(f, encoding="utf-8", errors="replace").read()
        except OSError:
            continue
        if f.endswith(".sources"):
            for para in re.split(r"\n\s*\n", text):
                fields = {}
                for line in para.splitlines():
                    if line.startswith("#") or ":" not in line or line[0].isspace():
                        continue
                    k, v = line.split(":", 1)
                    fields[k.strip().lower()] = v.split()
                if "deb" not in fields.get("types", []) or fields.get("enabled", ["yes"])[0] == "no":
                    continue
                for uri in fields.get("uris", []):
                    for suite in fields.get("suites", []):
                        entries.append((uri.rstrip("/"), suite))
        else:
            for line in text.splitlines():
                line = re.sub(r"\[[^]]*\]", "", line.split("#", 1)[0]).split()
                if len(line) >= 3 and line[0] == "deb":
                    entries.append((line[1].rstrip("/"), line[2]))
    return entries


def mirrors(host_paths=HOST_SOURCES):
    """{'debian': uri, 'debian-security': uri} for this machine."""
    found = {}
    for uri, suite in _host_source_entries(host_paths):
        kind = "debian-security" if suite.endswith("-security") else "debian"
        if re.search(r"/debian(-security)?$", uri) and kind not in found:
            found[kind] = uri
    env = {"debian": os.environ.get("RETROFI_MIRROR"),
           "debian-security": os.environ.get("RETROFI_SECURITY_MIRROR")}
    for kind, uri in env.items():
        if uri:
            found[kind] = uri.rstrip("/")
    if "debian" in found and "debian-security" not in found:
        # The security archive sits beside the main one on Debian's mirrors.
        found["debian-security"] = found["debian"] + "-security"
    if "debian" not in found:
        raise RetrofiError("no Debian mirror found in the host's apt sources",
                           where="/etc/apt/sources.list{,.d}",
                           fix="set RETROFI_MIRROR=<Debian archive URI> (and RETROFI_SECURITY_MIRROR)")
    return found


def parse_paragraphs(text):
    """deb822 paragraphs (apt-cache show output) as dicts."""
    paras = []
    for block in re.split(r"\n\s*\n", text):
        fields, key = {}, None
        for line in block.splitlines():
            if line[:1] in (" ", "\t") and key:
                fields[key] += "\n" + line.strip()
            elif ":" in line:
                key, v = line.split(":", 1)
                fields[key] = v.strip()
        if fields:
            paras.append(fields)
    return paras


def parse_depends(depends):
    """[[(name, op, version)], ...]: a list of alternatives per relation."""
    result = []
    for rel in filter(None, (r.strip() for r in depends.split(","))):
        alts = []
        for alt in rel.split("|"):
            m = re.match(r"^\s*([a-z0-9][a-z0-9+.-]*)(?::\S+)?\s*(?:\(\s*(<<|<=|=|>=|>>)\s*([^)\s]+)\s*\))?", alt)
            if m:
                alts.append((m.group(1), m.group(2), m.group(3)))
        result.append(alts)
    return result


class PrivateApt:
    """apt-get/apt-cache run with a config that lives in the cache."""

    def __init__(self, cache_dir, suites, mirror_map=None, components=("main",)):
        self.suites = tuple(suites)
        self.components = tuple(components)
        # main alone keeps the directory name it always had; other
        # components get their own, so that no two configs share lists.
        name = "+".join(self.suites)
        if self.components != ("main",):
            name += "@" + "+".join(self.components)
        self.root = os.path.join(cache_dir, "apt", name)
        self.mirrors = mirror_map or mirrors()
        self.conf = os.path.join(self.root, "apt.conf")
        self._updated = False

    def write_config(self):
        r = self.root
        for d in ("lists/partial", "archives/partial", "cache", "etc/apt.conf.d",
                  "etc/preferences.d", "etc/sources.list.d", "state"):
            os.makedirs(os.path.join(r, d), exist_ok=True)
        status = os.path.join(r, "state", "status")
        if not os.path.exists(status):
            open(status, "w").close()
        lines = []
        for suite in self.suites:
            uri = self.mirrors["debian-security" if suite.endswith("-security") else "debian"]
            lines.append(f"deb [signed-by={KEYRING}] {uri} {suite} {' '.join(self.components)}\n")
        _write_if_changed(os.path.join(r, "etc", "sources.list"), "".join(lines))
        conf = f'''// retrofi private apt configuration: generated, do not edit.
Dir "{r}/";
Dir::State "{r}/state/";
Dir::State::Lists "{r}/lists/";
Dir::State::status "{r}/state/status";
Dir::Cache "{r}/cache/";
Dir::Cache::Archives "{r}/archives/";
Dir::Etc "{r}/etc/";
Dir::Etc::SourceList "{r}/etc/sources.list";
Dir::Etc::SourceParts "{r}/etc/sources.list.d/";
Dir::Etc::Parts "{r}/etc/apt.conf.d/";
Dir::Etc::Preferences "{r}/etc/preferences";
Dir::Etc::PreferencesParts "{r}/etc/preferences.d/";
Dir::Etc::Trusted "{r}/etc/trusted.gpg";
Dir::Etc::TrustedParts "{r}/etc/trusted.gpg.d/";
APT::Architecture "amd64";
APT::Architectures {{ "amd64"; }};
APT::Sandbox::User "root";
Acquire::Languages "none";
Acquire::Retries "2";
'''
        _write_if_changed(self.conf, conf)

    def _env(self):
        env = dict(os.environ, APT_CONFIG=self.conf, LC_ALL="C")
        env.pop("APT_CONFIG_OVERRIDE", None)
        return env

    def _run(self, argv, what, capture=True, cwd=None):
        if not os.path.exists(KEYRING):
            raise RetrofiError("Debian's archive keyring is missing", where=KEYRING,
                               fix="apt-get install debian-archive-keyring (scripts/bootstrap does it)")
        try:
            p = subprocess.run(argv, env=self._env(), cwd=cwd, text=True,
                               stdout=subprocess.PIPE if capture else None,
                               stderr=subprocess.PIPE)
        except FileNotFoundError:
            raise RetrofiError(f"{argv[0]} not found", fix="run on Debian with apt installed")
        if p.returncode != 0:
            raise _AptFailed(what, p)
        self.last_stderr = p.stderr
        return p.stdout

    def update(self):
        """Fetch the index files (signed Release, Packages) for our suites."""
        if self._updated:
            return
        self.write_config()
        try:
            out = self._run(["apt-get", "update", "-q"], "apt-get update")
        except _AptFailed as e:
            detail = _apt_errors(e.proc.stderr)
            if "is expired" in (e.proc.stderr or ""):
                raise RetrofiError(f"the mirror's Release file for {', '.join(self.suites)} has expired: "
                                   f"{detail}", where=self.root,
                                   fix="use a current mirror (RETROFI_MIRROR=...); retrofi keeps "
                                       "apt's Valid-Until and signature checks on")
            raise RetrofiError(f"cannot fetch the package lists for suites {', '.join(self.suites)}: {detail}",
                               where=self.root,
                               fix="check the network and that the suites exist in the archive "
                                   "(or set RETROFI_MIRROR / RETROFI_SECURITY_MIRROR)")
        # apt-get update can exit 0 with only warnings for a source it could not read.
        text = (out or "") + "\n" + (self.last_stderr or "")
        if re.search(r"^(W|E): .*(Failed to fetch|does not have a Release file|no longer has a Release file"
                     r"|Some index files failed)", text, re.M):
            raise RetrofiError(f"cannot fetch the package lists for suites {', '.join(self.suites)}: "
                               f"{_apt_errors(text)}", where=self.root,
                               fix="check the network and that the suites exist in the archive "
                                   "(fix suites: in kernel-matrix.yaml, or set RETROFI_MIRROR / "
                                   "RETROFI_SECURITY_MIRROR)")
        self._updated = True

    def pkgnames(self, prefix):
        out = self._run(["apt-cache", "pkgnames", prefix], "apt-cache pkgnames")
        return sorted(set(out.split()))

    def versions(self, name):
        """Every version of a package in our suites, as Package records."""
        try:
            out = self._run(["apt-cache", "show", name], f"apt-cache show {name}")
        except _AptFailed:
            return []
        pkgs = []
        for f in parse_paragraphs(out):
            if f.get("Package") != name or "Filename" not in f:
                continue
            pkgs.append(Package(name=name, version=f["Version"], filename=f["Filename"],
                                size=int(f.get("Size", 0)), sha256=f.get("SHA256", ""),
                                depends=f.get("Depends", "") + (", " + f["Pre-Depends"] if "Pre-Depends" in f else "")))
        return pkgs

    def download(self, pin, dest_dir):
        """Download name=version into dest_dir with apt's hash checks; return path."""
        self.update()
        try:
            self._run(["apt-get", "download", "-q", f"{pin['name']}={pin['version']}"],
                      f"apt-get download {pin['name']}", cwd=dest_dir)
        except _AptFailed as e:
            raise download_error(pin, self.suites, e.proc.stderr or "")
        found = [f for f in os.listdir(dest_dir) if f.endswith(".deb") and f.startswith(pin["name"] + "_")]
        if len(found) != 1:
            raise RetrofiError(f"apt-get download of {pin['name']} left {found!r}", where=dest_dir)
        return os.path.join(dest_dir, found[0])


class NotServed(RetrofiError):
    """The archive's index lists a pinned package, but its pool has no file
    for it (HTTP 404): the kernel that needs it cannot be had from this
    mirror, whatever the network does.  A matrix run makes that target's
    row fail with this reason and goes on with the others."""


def download_error(pin, suites, err):
    """The error for a failed `apt-get download` of pin, from apt's stderr:
    a version the index no longer lists (the lock is stale), a file the
    index lists and the pool does not serve (404), or anything else (the
    network)."""
    what = f"{pin['name']}={pin['version']}"
    if "was not found" in err or "Unable to locate" in err or "Can't select" in err:
        return RetrofiError(f"pinned package {what} is no longer available in {', '.join(suites)}",
                            where="kernel-matrix.lock",
                            fix="run `make kernels-update` to move the pins to what the archive has")
    m = re.search(r"^E: Failed to fetch (\S+)\s+404\b", err, re.M)
    if m:
        return NotServed(f"the archive lists {what} in {', '.join(suites)} but serves no file "
                         f"for it (404 Not Found: {m.group(1)})",
                         where="kernel-matrix.lock",
                         fix="this kernel cannot be fetched from this mirror: leave it out "
                             "(TARGETS=...), use a mirror that has the file (RETROFI_MIRROR, "
                             "RETROFI_SECURITY_MIRROR), or run `make kernels-update` once the "
                             "archive has changed")
    return RetrofiError(f"download of {what} failed: {_apt_errors(err)}",
                        fix="check the network and retry; a partial file is never used")


_LIST_RE = re.compile(r"_dists_(.+)_main_binary-[a-z0-9]+_Packages$")


def served(cache_dir, pattern):
    """[(package, version, suite)] of the linux-source packages matching
    pattern (fnmatch) that the private apt lists in the cache know, newest
    first (by kernel series, then Debian version). Reads the lists only:
    no network, and a suite whose Release expired since is simply absent
    once its update fails."""
    import fnmatch
    import retrofi_debversion
    found = {}
    for lst in sorted(glob.glob(os.path.join(cache_dir, "apt", "*", "lists", "*_Packages"))):
        if "@" in os.path.basename(os.path.dirname(os.path.dirname(lst))):
            continue      # a config for other components (the firmware report's)
        m = _LIST_RE.search(os.path.basename(lst))
        if not m:
            continue
        suite = m.group(1).replace("_", "/")
        try:
            text = open(lst, encoding="utf-8", errors="replace").read()
        except OSError:
            continue
        for pm in re.finditer(r"^Package: (linux-source-\S+)\n(?:[^\n]+\n)*?Version: (\S+)$", text, re.M):
            if fnmatch.fnmatchcase(pm.group(1), pattern):
                found[(pm.group(1), pm.group(2), suite)] = True

    def key(entry):
        sm = re.match(r"^linux-source-(\d+)\.(\d+)$", entry[0])
        series = (int(sm.group(1)), int(sm.group(2))) if sm else (-1, -1)
        return series, retrofi_debversion.sort_key(entry[1])
    return sorted(found, key=key, reverse=True)


class _AptFailed(Exception):
    def __init__(self, what, proc):
        super().__init__(what)
        self.proc = proc


def _apt_errors(text):
    lines = [l.strip() for l in (text or "").splitlines() if l.startswith(("E:", "W:", "Err:"))]
    return "; ".join(lines[:4]) or (text or "").strip()[-300:] or "no output"


def _write_if_changed(path, content):
    try:
        if open(path).read() == content:
            return
    except FileNotFoundError:
        pass
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        f.write(content)
    os.replace(tmp, path)


def sha256_file(path, bufsize=1 << 20):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        while True:
            b = f.read(bufsize)
            if not b:
                break
            h.update(b)
    return h.hexdigest()


def fetch_verified(apt, pkg, debs):
    """pkg's .deb in the directory debs: reused when a file there has the
    index's sha256, else downloaded by apt (its signature and hash checks)
    through a private temporary directory and checked again before it is
    moved in place, so that debs never holds a partial or foreign file."""
    path = os.path.join(debs, pkg.deb_name)
    if os.path.exists(path) and sha256_file(path) == pkg.sha256:
        return path
    dl = tempfile.mkdtemp(prefix=".dl-", dir=debs)
    try:
        got = apt.download(pkg.pin(), dl)
        if sha256_file(got) != pkg.sha256:
            raise RetrofiError(f"{pkg.deb_name}: sha256 differs from the archive's index",
                               where=got, fix="retry; the mirror may be syncing")
        os.replace(got, path)
    finally:
        shutil.rmtree(dl, ignore_errors=True)
    return path
