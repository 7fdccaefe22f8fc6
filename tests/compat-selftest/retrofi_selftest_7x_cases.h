/* SPDX-License-Identifier: GPL-2.0 */
/*
 * retrofi compat selftest: the table entries of retrofi_selftest_7x.h's
 * cases, included inside retrofi_selftest.c's tests[] (where T, TA and TX
 * are defined).
 */
	TA(kmalloc_obj_family_sizes_zeroes_and_overflow, kmalloc_obj, 7, 0, 0),
	TA(timer_container_of_finds_the_owner, timer_container_of, 6, 16, 0),
	TA(timer_delete_deactivates_a_pending_timer, timer_delete, 6, 2, 0),
	TA(timer_delete_sync_deactivates_a_pending_timer, timer_delete_sync, 6, 2, 0),
	T(spinlock_bh_guard_holds_the_lock_in_its_scope, guard),
#if defined(__STDC_VERSION__) && __STDC_VERSION__ >= 201112L
	T(scoped_guard_with_return_runs_its_body_once, scoped_guard),
#endif
	TA(hrtimer_setup_sets_the_callback_and_clock, hrtimer_setup, 6, 13, 0),
	TA(secs_to_jiffies_is_seconds_times_hz, secs_to_jiffies, 6, 13, 0),
	TA(us_to_ktime_is_microseconds_in_nanoseconds, us_to_ktime, 6, 14, 0),
	TA(nla_get_u8_default_value_or_default, nla_get_u8_default, 6, 13, 0),
	TA(nla_get_u16_default_value_or_default, nla_get_u16_default, 6, 13, 0),
	TA(nla_get_u32_default_value_or_default, nla_get_u32_default, 6, 13, 0),
	TA(nlmsg_for_each_attr_type_visits_one_type, nlmsg_for_each_attr_type, 6, 17, 0),
	T(nl_set_err_msg_fmt_sets_a_message, NL_SET_ERR_MSG_FMT),
	TA(get_random_u8_draws_every_bit, get_random_u8, 6, 1, 0),
	TA(get_random_u32_inclusive_stays_in_range, get_random_u32_inclusive, 6, 2, 0),
	T(strscpy_with_two_arguments_uses_the_array_size, strscpy),
	T(strscpy_pad_with_two_arguments_pads_the_array, strscpy_pad),
	T(system_dfl_wq_runs_work, system_dfl_wq),
	T(define_raw_flex_is_zeroed_with_room_for_the_count, DEFINE_RAW_FLEX),
	T(aes_cmac_matches_the_rfc_4493_examples, aes_cmac_update),
	T(aes_cmac_zeroize_clears_the_key_and_the_context, aes_cmac_zeroize_key),
	T(faux_device_is_made_probed_and_destroyed, faux_device_create),
	T(kunit_static_stub_redirect_runs_the_body, KUNIT_STATIC_STUB_REDIRECT),
	TA(sk_requests_wifi_status_follows_the_socket_flag, sk_requests_wifi_status, 6, 16, 0),
	TA(devm_kmemdup_array_copies_and_refuses_overflow, devm_kmemdup_array, 6, 15, 0),
	TX(debugfs_change_name_renames_in_place, debugfs_change_name, 6, 14, 0),
	T(do_once_lite_calls_once_per_site, DO_ONCE_LITE),
	T(hex_helpers_pack_and_parse_bytes, bin2hex),
	T(debugfs_short_fops_file_runs_its_handlers_on_its_data, debugfs_short_fops),
	T(lockdep_assert_in_softirq_is_quiet_in_softirq, lockdep_assert_in_softirq),
