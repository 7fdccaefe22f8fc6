/* SPDX-License-Identifier: GPL-2.0 */
/*
 * retrofi compat selftest: the table entries of retrofi_selftest_5x.h's
 * cases, included inside retrofi_selftest.c's tests[] (where T, TA and TX
 * are defined).
 */
	TA(memset_after_sets_every_byte_after_the_member, memset_after, 5, 15, 0),
	T(lockdep_is_held_sees_a_held_mutex_and_its_release, lockdep_is_held),
	TA(rfkill_hw_state_reason_blocks_and_unblocks, rfkill_set_hw_state_reason,
	   5, 11, 0),
	T(tasklet_disable_in_atomic_holds_it_off, tasklet_disable_in_atomic),
	T(of_get_mac_address_without_a_node, of_get_mac_address),
	TA(skb_get_dsfield_reads_ipv4_and_ipv6, skb_get_dsfield, 5, 16, 0),
	TA(virtio_reset_device_resets_through_the_transport, virtio_reset_device,
	   5, 16, 0),
	TA(get_random_u16_draws_every_bit, get_random_u16, 6, 1, 0),
	T(dev_sw_netstats_tx_add_counts_packets_and_bytes, dev_sw_netstats_tx_add),
	TX(netdev_tstats_reach_the_stats_of_a_registered_netdev, dev_get_tstats64,
	   5, 11, 0),
	T(debugfs_removal_cancels_the_handlers_inside_it, debugfs_enter_cancellation),
	T(debugfs_removal_cancels_a_handler_that_enters_after_it_started,
	  debugfs_enter_cancellation),
	T(mac_addr_str_len_is_a_printed_address, MAC_ADDR_STR_LEN),
	TA(hwrng_msleep_sleeps_the_delay, hwrng_msleep, 6, 0, 0),
	T(relay_open_takes_const_callbacks, relay_open),
	T(free_attribute_frees_at_scope_exit, __free),
	TC(mutex_guard_releases_at_scope_exit, mutex, RETROFI_HAVE_mutex_guard),
	TC(rcu_guard_holds_a_read_side_section_in_its_scope, rcu, RETROFI_HAVE_rcu_guard),
	TC(spinlock_guard_releases_at_scope_exit, spinlock, RETROFI_HAVE_spinlock_guard),
	TC(kfree_class_leaves_null_and_error_pointers_alone, kfree,
	   RETROFI_HAVE_kfree_free_class),
	TC(device_node_class_compiles_and_leaves_null_alone, device_node,
	   RETROFI_HAVE_device_node_free),
	T(min_max_compare_an_unsigned_with_a_positive_int_constant, min),
