// Not matched on purpose: the rule rewrites statements only (a
// preprocessor guard cannot sit inside an expression). If upstream ever
// uses the return value, this case shows the rule leaves it alone and the
// build on < 6.2 fails loudly instead of being silently rewritten.
int stop_counted(struct ctx *c)
{
	return timer_shutdown_sync(&c->timer);
}

void keep_del(struct ctx *c)
{
	del_timer_sync(&c->timer);
}
