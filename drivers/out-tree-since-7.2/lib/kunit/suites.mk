# retrofi: the first and the last object of a KUnit test module, which its
# tests/Kbuild lists around the source's objects ($(retrofi-kunit-start)
# and $(retrofi-kunit-end)) and includes this file for: every test module
# gets the same two, generated here (include/retrofi/kunit-suites.h says
# what they do). Only with the tree's kunit.ko: where the target has KUnit
# of its own (RETROFI_KUNIT is then off), its module loader reads the
# module's .kunit_test_suites section and its KUnit runs the suites.
ifneq ($(RETROFI_CONFIG_RETROFI_KUNIT),)
retrofi-kunit-start := retrofi-kunit-start.o
retrofi-kunit-end := retrofi-kunit-end.o
endif

$(obj)/retrofi-kunit-start.c:
	$(Q)printf '%s\n' '// SPDX-License-Identifier: GPL-2.0' \
		'#define RETROFI_KUNIT_SUITES_FIRST' '#include <retrofi/kunit-suites.h>' >$@
$(obj)/retrofi-kunit-end.c:
	$(Q)printf '%s\n' '// SPDX-License-Identifier: GPL-2.0' \
		'#include <retrofi/kunit-suites.h>' >$@

clean-files += retrofi-kunit-start.c retrofi-kunit-end.c
