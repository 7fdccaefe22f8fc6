# retrofi: the entry points.  Two commands for a newcomer:
#   make matrix   the main job: kernels, generate, build, boot-test, report
#   make check    the test suite
# Both install what they need first (scripts/bootstrap, as root via apt-get).

# Debian's interpreter: it sees python3-yaml and python3-pytest.
PYTHON := /usr/bin/python3
RETROFI := $(PYTHON) scripts/retrofi.py
TARGETS ?=
# RERUN=1: make matrix boots every row anew (by default a row whose kernel,
# initramfs and QEMU are unchanged is judged from its stored boot).
RERUN ?=
PYTEST_ARGS ?=

export TARGETS RERUN

.PHONY: all help bootstrap kernels kernels-update kernels-verify matrix matrix-build stress \
	report-merge list check check-fast api-census api-census-docs api-bounds

all: help

help:
	@echo "make matrix          generate, build and boot-test the default targets (TARGETS=... for others)"
	@echo "make matrix RERUN=1  the same, booting rows whose inputs a stored boot already ran"
	@echo "make matrix-build    the same without booting (rows say the boot did not run)"
	@echo "make matrix TARGETS=sweep      build-only rows: oldest/newest served ABI of each major (sweep-all: every one)"
	@echo "make stress          50 unload/reload cycles in the guest, an association every 10th"
	@echo "make check           run the test suite"
	@echo "make check-debug     the tests that boot the debug kernel (built on first use, long)"
	@echo "make check-options   every offered option built for every kernel line of the matrix (OPTIONS=rest: all but the two ends make check builds)"
	@echo "make bench           speed figures against same-run baselines (COLD=1: + cold matrix)"
	@echo "make kernels         fetch and unpack the source and target kernels into the cache"
	@echo "make kernels-update  move the pins in kernel-matrix.lock to the newest packages"
	@echo "make kernels-verify  re-check every cached package against the lock's sha256"
	@echo "make list            the selected targets as JSON"
	@echo "make generate        write the output tree under out/ (SOURCE=newest|6.12|7.3: that source's)"
	@echo "make release         generate and pack out/retrofi-<source version>.tar.xz (+ .sha256)"
	@echo "make deb             release, then out/retrofi-dkms_<source version>-1_all.deb (DKMS)"
	@echo "make firmware-report KLIB=DIR  the firmware the modules ask for, and the Debian package shipping each"
	@echo "make deb-e2e         the .deb installed, booted and purged in a debootstrapped root (RELEASE=bookworm|bullseye)"
	@echo "make api-bounds      which served ABIs have each shimmed API (compat/api-bounds.txt), checked"
	@echo "make refresh         the drift of the newest source served (SOURCE=...: another):"
	@echo "                     rules, copy list, included headers, Kbuild object lists"

bootstrap:
	@sh scripts/bootstrap

kernels: bootstrap
	$(RETROFI) kernels

kernels-update: bootstrap
	$(RETROFI) kernels --update

kernels-verify: bootstrap
	$(RETROFI) kernels --verify

# The main job: every default target (or TARGETS="6.1 6.12") generated,
# built, booted in QEMU and tested; the report goes to out/report/.
matrix: bootstrap
	$(RETROFI) matrix

# Build only: every row says "not run" for the boot.
matrix-build: bootstrap
	$(RETROFI) matrix --no-boot

# In the guest, instead of the guest tests: 50 unload/reload cycles of the
# stack with an association after every 10th; zero splats.  Not in
# `make check`.  Report: out/report-stress/.
stress: bootstrap
	$(RETROFI) matrix --stress

# Combine CI shards' reports: make report-merge REPORTS="a/report.json b/report.json"
report-merge:
	$(RETROFI) report-merge $(REPORTS)

list:
	@$(RETROFI) list

# The kernels come first, so that the tests that need the real source tree
# (RETROFI_TEST_SOURCE) run instead of skipping. Of the all-options builds
# (check-options) it makes the oldest and the newest real default target's.
check: bootstrap
	@src=$$($(RETROFI) kernels --source-path) && \
	RETROFI_TEST_SOURCE="$$src" RETROFI_OPTIONS_TARGETS=ends \
	$(PYTHON) -m pytest -ra --durations=25 tests/scripts $(PYTEST_ARGS)

# The tests that need the debug kernel (the build target debug-6.12): never
# part of `make check`, since its cold build takes most of an hour here.
.PHONY: check-debug
check-debug: bootstrap
	$(PYTHON) -m pytest -ra tests/debug-kernel $(PYTEST_ARGS)

# The all-options builds: the output tree with defconfigs/all (every
# driver and every option a defconfig may set), zero warnings, for each
# real target of the default source (one per kernel line, 7.2 included)
# and each default API shape; the targets come from kernel-matrix.yaml
# (tests/scripts/test_all_options.py). `make check` builds the oldest and
# the newest real default target; OPTIONS=rest builds the others (the
# workflow's options job), OPTIONS=all (the default here) every one.
.PHONY: check-options
OPTIONS ?= all
check-options: bootstrap
	@src=$$($(RETROFI) kernels --source-path) && \
	RETROFI_TEST_SOURCE="$$src" RETROFI_OPTIONS_TARGETS="$(OPTIONS)" \
	$(PYTHON) -m pytest -ra -s tests/scripts/test_all_options.py $(PYTEST_ARGS)

# Speed against baselines measured in the same run: a table, and
# bench/results/<date>-<host>.json compared with the previous result.
# Never part of `make check` (its smoke mode is).  COLD=1 adds a cold
# `make matrix` (empty cache, downloads: long).
.PHONY: bench
bench: bootstrap
	$(PYTHON) scripts/retrofi_bench.py $(if $(COLD),--cold)

# Only the tests that need neither network nor kernel packages.
check-fast: bootstrap
	$(PYTHON) -m pytest -ra -m "not network" tests/scripts $(PYTEST_ARGS)

# ---- generation
# SOURCE: a source of kernel-matrix.yaml (its name, or the series of its
# pinned package: SOURCE=7.3); default: its default_source.  For refresh
# also any linux-source-X.Y package; SOURCE_SUITES: where to find it
# (default: the suites whose private apt lists serve it).
.PHONY: generate release deb refresh
SOURCE ?=
SOURCE_SUITES ?=
export SOURCE SOURCE_SUITES

generate: bootstrap
	$(RETROFI) generate

release: bootstrap
	$(RETROFI) release

# The release tarball as a Debian package: retrofi-dkms_<source version>-<n>_all.deb
# (DEB_REVISION=n, default 1; TARBALL=...: from that tarball, without generating).
DEB_REVISION ?=
TARBALL ?=
export DEB_REVISION TARBALL
deb: bootstrap
	$(RETROFI) deb

# The .deb end to end in a Debian root made by debootstrap (cached under
# $RETROFI_CACHE/e2e/, never this machine's /): the kernel's image and
# headers and dkms installed, apt-get install ./retrofi-dkms_*.deb (DKMS
# builds RETROFI_DEFCONFIG=$(E2E_DEFCONFIG) of /etc/default/retrofi) for
# the root's older ABI, the newer ABI's image and headers installed (dkms's
# kernel hooks build for it; E2E_UPGRADE_FROM=none: no upgrade), signatures
# against dkms's MOK, boot of the newer kernel with the stack, purge,
# leftovers, boot with the kernel's own stack.  RELEASE=bookworm (6.1) or bullseye (5.10).
.PHONY: deb-e2e
RELEASE ?= bookworm
E2E_DEFCONFIG ?= hwsim
E2E_UPGRADE_FROM ?= previous
deb-e2e: deb
	$(PYTHON) scripts/retrofi_e2e.py --release "$(RELEASE)" --defconfig "$(E2E_DEFCONFIG)" \
	  --upgrade-from "$(E2E_UPGRADE_FROM)" \
	  --deb "$$(ls -t out/retrofi-dkms_*_all.deb | head -n 1)"

# make refresh [SOURCE=linux-source-7.2]: what no longer fits the source
# (exit 1): rules, patches, copy-list lines, headers the copied files newly
# include, Kbuild object lists against the source's Makefiles.
refresh: bootstrap
	$(RETROFI) refresh --source "$(SOURCE)" --suites "$(SOURCE_SUITES)"

# make api-census LEVEL=2.6.21: every API the compat layer knows that is
# newer than LEVEL, shimmed (in force at that level) or structural (shown
# only by a real kernel that old), with its upstream change. No kernel needed.
api-census:
	@test -n "$(LEVEL)" || { echo "retrofi: error: make api-census needs LEVEL=<kernel version>"; \
	  echo "  fix: e.g. make api-census LEVEL=2.6.21"; exit 2; }
	$(PYTHON) scripts/retrofi_api_census.py --level "$(LEVEL)"

# make firmware-report KLIB=<dir of built .ko files, or /lib/modules/RELEASE>
# [RELEASE=bookworm|bullseye|trixie] [KCONFIG=.config] [FW_JSON=out/firmware-report.json] [STRICT=1]:
# the firmware files the modules ask for (MODULE_FIRMWARE, iwlwifi's API
# ranges from the source tree) and which Debian package of the release, or
# of a newer suite, ships each (docs/firmware.md). STRICT=1: exit 2 when a
# file is shipped by no suite.
FW_JSON ?= out/firmware-report.json
.PHONY: firmware-report
firmware-report:
	@test -n "$(KLIB)" || { echo "retrofi: error: make firmware-report needs KLIB=<dir>"; \
	  echo "  fix: e.g. make firmware-report KLIB=/lib/modules/\$$(uname -r)"; exit 2; }
	@src=$$($(RETROFI) kernels --source-path) && \
	$(PYTHON) scripts/retrofi_firmware.py "$(KLIB)" --source "$$src" --json "$(FW_JSON)" \
	  $(if $(RELEASE),--release "$(RELEASE)") $(if $(KCONFIG),--config "$(KCONFIG)") $(if $(STRICT),--strict)

# The census table of docs/compat.md, rewritten from the compat layer
# (test_census.py fails while it is out of date).
api-census-docs:
	$(PYTHON) scripts/retrofi_api_census.py --update-doc docs/compat.md

# compat/api-bounds.txt: which ABIs the archive serves (every ABI pinned in
# kernel-matrix.lock) have each API of the census, grepped from their own
# -common headers (compat/bounds.list's markers; the packages come through
# the kernels stage into the cache), then each record's since checked
# against it (test_api_bounds.py does both). Every package is read again.
api-bounds: bootstrap
	$(PYTHON) scripts/retrofi_bounds.py --fresh --check

# The sweep table of docs/sweep.md, rewritten from a sweep's report
# (make matrix TARGETS=sweep-all): make sweep-table-docs REPORT=out/report/report.json
.PHONY: sweep-table-docs
REPORT ?= out/report/report.json
sweep-table-docs:
	$(RETROFI) sweep-table "$(REPORT)" --update-doc docs/sweep.md
