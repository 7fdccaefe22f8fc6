// retrofi rule 0004-kunit-module-suites
// must-match: yes
// needed-from: 7.2
//   (lib/kunit is copied from sources 7.2 and newer: drivers/copy-list)
// upstream: "kunit: unify module and builtin suite definitions" (v6.0,
//   title not verified here) gave struct module kunit_suites and
//   num_kunit_suites, filled by the module loader from the section
//   .kunit_test_suites, and a later change (not verified here; 6.12 has
//   it, 6.1 not) kunit_init_suites and num_kunit_init_suites; all four
//   only under CONFIG_KUNIT. lib/kunit/test.c reads and rewrites them in
//   kunit_module_init() and kunit_module_exit() (MODULE_STATE_LIVE and
//   MODULE_STATE_GOING).
// targets: every target without CONFIG_KUNIT (every Debian kernel), where
//   the tree builds lib/kunit as its own kunit.ko (option RETROFI_KUNIT,
//   docs/kunit.md).
// why: the members do not exist there (the target's kernel allocates
//   struct module and its loader fills nothing), so a test module hands
//   its suites to compat.ko's store keyed by module (the suites it
//   registers from its own init), and every access of the four members
//   becomes a call of that store: an assignment a setter, a read a
//   getter. kunit_module_init() and kunit_module_exit() then run as
//   upstream's, filters included. A header cannot turn a member access
//   into a call.

@write@
struct module *M;
expression E;
@@
(
- M->kunit_suites = E
+ kunit_module_set_suites(M, E)
|
- M->num_kunit_suites = E
+ kunit_module_set_num_suites(M, E)
|
- M->kunit_init_suites = E
+ kunit_module_set_init_suites(M, E)
|
- M->num_kunit_init_suites = E
+ kunit_module_set_num_init_suites(M, E)
)

@read@
struct module *M;
@@
(
- M->kunit_suites
+ kunit_module_suites(M)
|
- M->num_kunit_suites
+ kunit_module_num_suites(M)
|
- M->kunit_init_suites
+ kunit_module_init_suites(M)
|
- M->num_kunit_init_suites
+ kunit_module_num_init_suites(M)
)
