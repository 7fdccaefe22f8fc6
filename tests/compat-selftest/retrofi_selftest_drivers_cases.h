/* SPDX-License-Identifier: GPL-2.0 */
/*
 * retrofi compat selftest: the table entries of retrofi_selftest_drivers.h's
 * cases, included inside retrofi_selftest.c's tests[] (where T is defined).
 */
#if !RETROFI_LINUX_LESS(5, 14, 0)
	T(pp_page_to_nmdesc_names_the_pages_pool, pp_page_to_nmdesc),
#endif
	T(pci_ids_spacemit_are_upstreams, PCI_VENDOR_ID_SPACEMIT),
	T(qmi_service_id_wlfw_is_upstreams, QMI_SERVICE_ID_WLFW),
	TA(of_reserved_mem_region_to_resource_refuses_no_node,
	   of_reserved_mem_region_to_resource, 7, 2, 6),
	T(kernel_connect_of_sockaddr_unsized_connects, kernel_connect),
#if !RETROFI_LINUX_LESS(5, 12, 0)
	T(netif_threaded_enable_makes_napi_threaded, netif_threaded_enable),
#endif
	T(field_get_and_prep_take_a_runtime_mask, field_get),
	T(field_get_signed_sign_extends_the_field, FIELD_GET_SIGNED),
	T(pci_irq_intx_is_upstreams, PCI_IRQ_INTX),
	TA(napi_is_scheduled_reads_the_sched_bit, napi_is_scheduled, 6, 7, 0),
	TA(alloc_netdev_dummy_carries_napi_and_frees, alloc_netdev_dummy, 6, 10, 0),
	T(irq_can_set_affinity_answers_for_real_interrupts, irq_can_set_affinity),
	T(netif_napi_add_takes_the_default_weight, netif_napi_add_noweight),
	TA(napi_schedule_says_whether_it_scheduled, napi_schedule, 6, 7, 0),
	T(abs_diff_is_the_distance, abs_diff),
	TA(roundup_u64_rounds_up_to_the_multiple, roundup_u64, 6, 11, 0),
	T(struct_size_t_sizes_the_type_and_saturates, struct_size_t),
	T(struct_size_is_the_size_of_a_raw_flex_object, __struct_size),
	T(stack_variables_start_zeroed, INIT_STACK_ALL_ZERO),
	TA(rfkill_soft_blocked_follows_the_soft_state, rfkill_soft_blocked, 5, 17, 0),
	T(sdio_ids_realtek_are_upstreams, SDIO_VENDOR_ID_REALTEK),
	T(wq_percpu_makes_a_bound_workqueue, WQ_PERCPU),
	T(wq_bh_work_runs_with_bottom_halves_off, WQ_BH),
	T(system_bh_wq_runs_work_on_its_cpu_with_bottom_halves_off, system_bh_wq),
	T(lockdep_assert_in_rcu_read_lock_is_silent_under_rcu_read_lock,
	  lockdep_assert_in_rcu_read_lock),
	T(mhi_power_down_keep_dev_has_upstreams_type, mhi_power_down_keep_dev),
	T(memset_startat_sets_from_the_member_to_the_end, memset_startat),
	T(skb_pull_data_pulls_or_refuses_a_short_buffer, skb_pull_data),
	T(from_work_is_the_container, from_work),
	T(mhi_rddm_and_forced_resume_have_upstreams_types, mhi_pm_resume_force),
	T(mhi_irq_flags_are_set_or_refuse_the_controller, retrofi_mhi_set_irq_flags),
	T(sysfs_group_visible_hides_the_groups_files, DEFINE_SIMPLE_SYSFS_GROUP_VISIBLE),
	T(system_percpu_wq_runs_work, system_percpu_wq),
	TX(kvmemdup_copies_small_and_large, kvmemdup, 6, 3, 0),
	TA(pci_clear_and_set_config_dword_is_the_helper, pci_clear_and_set_config_dword, 6, 8, 0),
	TA(str_helpers_are_upstreams_words, str_yes_no, 5, 16, 0),
	TA(str_read_write_is_upstreams_word, str_read_write, 6, 1, 0),
	T(lockdep_assert_not_held_is_silent_unheld, lockdep_assert_not_held),
	T(device_get_mac_address_without_a_node_is_enoent, device_get_mac_address),
	TX(pcim_request_all_regions_holds_the_bars_while_bound, pcim_request_all_regions, 6, 13, 0),
	TX(pcim_iomap_region_maps_and_holds_the_bar_while_bound, pcim_iomap_region, 6, 12, 0),
	T(pci_vendor_id_ittim_is_upstreams, PCI_VENDOR_ID_ITTIM),
#if IS_ENABLED(CONFIG_THERMAL) && IS_ENABLED(CONFIG_THERMAL_WRITABLE_TRIPS)
	T(thermal_zone_of_a_trip_table_keeps_and_writes_it, thermal_trip_table),
#endif
	T(page_pool_hands_out_fragments_and_takes_them_back, page_pool_dev_alloc_frag),
	T(a_pool_buffer_handed_to_the_stack_comes_back_or_leaves_the_pool,
	  skb_mark_for_recycle),
	T(netif_napi_add_tx_adds_a_napi_without_busy_poll, netif_napi_add_tx),
#if RETROFI_LINUX_LESS(5, 12, 0)
	T(threaded_napi_reads_off_and_cannot_be_turned_on, dev_set_threaded),
#endif
	T(define_simple_dev_pm_ops_takes_the_drivers_storage_class,
	  DEFINE_SIMPLE_DEV_PM_OPS),
	T(page_pool_ethtool_stats_strings_match_their_count,
	  page_pool_ethtool_stats_get_count),
