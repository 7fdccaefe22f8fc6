// Test input for 0001-timer-shutdown: every call the stack makes, as in
// 6.12's net/mac80211/agg-rx.c, net/mac80211/mesh_pathtbl.c and
// drivers/net/wireless/ath/ath9k/channel.c (two calls in a row), on
// stand-ins for the structures they tear down.
#include <linux/atomic.h>
#include <linux/module.h>
#include <linux/rcupdate.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/timer.h>

#define MESH_PATH_RESOLVING	BIT(2)
#define MESH_PATH_DELETED	BIT(7)

struct tid_ampdu_rx {
	struct rcu_head rcu_head;
	struct timer_list session_timer;
	void *reorder_buf;
};

struct mesh_table {
	atomic_t entries;
};

struct mesh_path {
	spinlock_t state_lock;
	u32 flags;
	struct timer_list timer;
};

struct ath_softc {
	struct {
		struct timer_list timer;
	} sched, offchannel;
};

void ieee80211_free_tid_rx(struct rcu_head *h);
void mesh_path_free_rcu(struct mesh_table *tbl, struct mesh_path *mpath);
void ath9k_deinit_channel_context(struct ath_softc *sc);

void ieee80211_free_tid_rx(struct rcu_head *h)
{
	struct tid_ampdu_rx *tid_rx =
		container_of(h, struct tid_ampdu_rx, rcu_head);

	timer_shutdown_sync(&tid_rx->session_timer);
	kfree(tid_rx->reorder_buf);
}

void mesh_path_free_rcu(struct mesh_table *tbl, struct mesh_path *mpath)
{
	spin_lock_bh(&mpath->state_lock);
	mpath->flags |= MESH_PATH_RESOLVING | MESH_PATH_DELETED;
	spin_unlock_bh(&mpath->state_lock);
	timer_shutdown_sync(&mpath->timer);
	atomic_dec(&tbl->entries);
}

void ath9k_deinit_channel_context(struct ath_softc *sc)
{
	timer_shutdown_sync(&sc->sched.timer);
	timer_shutdown_sync(&sc->offchannel.timer);
}

MODULE_LICENSE("GPL");
