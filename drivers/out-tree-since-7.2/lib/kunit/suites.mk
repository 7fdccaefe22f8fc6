# retrofi: the first and the last object of a KUnit test module, which its
# tests/Kbuild lists around the source's objects and includes this file
# for: every test module gets the same two, generated here
# (include/retrofi/kunit-suites.h says what they do).
$(obj)/retrofi-kunit-start.c:
	$(Q)printf '%s\n' '// SPDX-License-Identifier: GPL-2.0' \
		'#define RETROFI_KUNIT_SUITES_FIRST' '#include <retrofi/kunit-suites.h>' >$@
$(obj)/retrofi-kunit-end.c:
	$(Q)printf '%s\n' '// SPDX-License-Identifier: GPL-2.0' \
		'#include <retrofi/kunit-suites.h>' >$@

clean-files += retrofi-kunit-start.c retrofi-kunit-end.c
