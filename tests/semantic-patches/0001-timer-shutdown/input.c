// Test input for 0001-timer-shutdown: teardown paths as in 6.12's
// net/mac80211/agg-rx.c and drivers/net/wireless/ath/ath9k/channel.c.
#include <linux/module.h>
#include <linux/spinlock.h>
#include <linux/timer.h>

struct ctx {
	struct timer_list timer;
	struct timer_list other;
	spinlock_t lock;
};

void stop_one(struct ctx *c);
void stop_cond(struct ctx *c, bool both);

void stop_one(struct ctx *c)
{
	timer_shutdown_sync(&c->timer);
	spin_lock_bh(&c->lock);
	spin_unlock_bh(&c->lock);
}

void stop_cond(struct ctx *c, bool both)
{
	if (both)
		timer_shutdown_sync(&c->other);
	timer_shutdown(&c->timer);
}

MODULE_LICENSE("GPL");
