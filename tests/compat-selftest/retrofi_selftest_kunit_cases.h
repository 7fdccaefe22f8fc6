/* SPDX-License-Identifier: GPL-2.0 */
/*
 * retrofi compat selftest: the table entries of retrofi_selftest_kunit.h's
 * cases, included inside retrofi_selftest.c's tests[] (where T is defined).
 */
	T(count_args_counts_and_concatenate_pastes, COUNT_ARGS),
	T(stdarg_walks_the_arguments, va_arg),
	T(container_of_const_keeps_the_constness, container_of_const),
	T(taint_test_is_upstreams, TAINT_TEST),
	T(seq_buf_puts_appends_and_overflows, seq_buf_puts),
	T(kthread_exit_ends_the_thread_with_its_result, kthread_exit),
	T(device_is_bound_follows_the_driver, device_is_bound),
	T(software_node_group_of_const_pointers_registers,
	  software_node_register_node_group),
