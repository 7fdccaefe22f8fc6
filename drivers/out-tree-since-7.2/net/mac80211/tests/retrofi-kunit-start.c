// SPDX-License-Identifier: GPL-2.0
/* retrofi: the first object of a KUnit test module (include/retrofi/kunit-suites.h) */
#define RETROFI_KUNIT_SUITES_FIRST
#include <retrofi/kunit-suites.h>
