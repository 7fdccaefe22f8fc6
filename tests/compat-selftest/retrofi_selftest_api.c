// SPDX-License-Identifier: GPL-2.0
/*
 * retrofi compat selftest at a forced API level: the cases of
 * retrofi_selftest.c, built with RETROFI_API_CODE set below every additive
 * shim (2.6.21, in Kbuild), so that the shims -- the seeds' list helpers
 * among them -- are compiled in and are what runs, and each case checks
 * that its call resolves to the shim. The cases of exported additive shims
 * are left out and reported as skipped (see retrofi_selftest.c).
 */
#define RETROFI_SELFTEST_INLINE_SHIMS_ONLY
#include "retrofi_selftest.c"
