// retrofi rule 0003-kunit-current-test
// must-match: yes
// needed-from: 7.2
//   (lib/kunit and include/kunit are copied from sources 7.2 and newer:
//   drivers/copy-list)
// upstream: "kunit: KASAN integration" (v5.9, title not verified here)
//   gave struct task_struct its kunit_test member, under CONFIG_KUNIT;
//   lib/kunit/test.c sets it in the thread that runs a case and
//   <kunit/test-bug.h> reads it (kunit_get_current_test()).
// targets: every target without CONFIG_KUNIT (every Debian kernel), where
//   the tree builds lib/kunit as its own kunit.ko (option RETROFI_KUNIT,
//   docs/kunit.md).
// why: the member does not exist there, and the tree cannot add it: the
//   target's kernel allocates every task_struct. A header cannot turn a
//   member access into a call, so a rule does: current->kunit_test = E
//   becomes kunit_set_current_test(E) and every read kunit_current_test(),
//   compat.ko's lookup keyed by task (include/retrofi/kunit.h). Upstream's
//   member dies with its task; an entry of the lookup does not, so
//   kunit_try_catch_run(), which holds a reference to the thread that ran
//   a case, drops that thread's entry once the thread has ended
//   (kunit_forget_task(), before put_task_struct()), whether the case
//   returned or threw. try-catch.c includes no KUnit header that gives
//   the calls' declarations, so the rule adds <retrofi/kunit.h> there.

@write@
symbol current;
expression E;
@@
- current->kunit_test = E
+ kunit_set_current_test(E)

@read@
symbol current;
@@
- current->kunit_test
+ kunit_current_test()

@forget@
identifier t;
@@
kunit_try_catch_run(...)
{
<...
+ kunit_forget_task(t);
  put_task_struct(t);
...>
}

// try-catch.c reads no KUnit header that includes <retrofi/kunit.h>
@forget_include depends on forget@
@@
#include <linux/kthread.h>
+#include <retrofi/kunit.h>
