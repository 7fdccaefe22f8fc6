/* The shape of net/mac80211/iface.c in 6.12: netdevs with core tstats. */
static const struct net_device_ops ieee80211_dataif_ops = {
	.ndo_open		= ieee80211_open,
	.ndo_stop		= ieee80211_stop,
	.ndo_start_xmit		= ieee80211_subif_start_xmit,
};

static const struct net_device_ops ieee80211_monitorif_ops = {
	.ndo_open		= ieee80211_open,
	.ndo_stop		= ieee80211_stop,
	.ndo_start_xmit		= ieee80211_monitor_start_xmit,
};

/* Already has its own: left alone. */
static const struct net_device_ops own_stats_ops = {
	.ndo_open		= own_open,
	.ndo_get_stats64	= own_get_stats64,
};

static int if_add(struct net_device *ndev)
{
	ndev->pcpu_stat_type = NETDEV_PCPU_STAT_TSTATS;
	return 0;
}
