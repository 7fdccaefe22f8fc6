// SPDX-License-Identifier: GPL-2.0
/* retrofi: the last object of a KUnit test module (include/retrofi/kunit-suites.h) */
#include <retrofi/kunit-suites.h>
