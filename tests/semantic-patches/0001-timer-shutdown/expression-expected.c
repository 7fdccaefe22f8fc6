// Not matched on purpose: the rule rewrites statements only (a
// preprocessor guard cannot sit inside an expression). If upstream ever
// uses the return value, this case shows the rule leaves it alone and the
// build on < 6.2 fails loudly instead of being silently rewritten.
// does-not-build: 5.10, 5.10-api2.6.21: implicit declaration of function 'timer_shutdown_sync'
#include <linux/module.h>
#include <linux/timer.h>

struct ctx {
	struct timer_list timer;
};

int stop_counted(struct ctx *c);
void keep_del(struct ctx *c);

int stop_counted(struct ctx *c)
{
	return timer_shutdown_sync(&c->timer);
}

void keep_del(struct ctx *c)
{
	del_timer_sync(&c->timer);
}

MODULE_LICENSE("GPL");
