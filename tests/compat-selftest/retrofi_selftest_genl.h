/* SPDX-License-Identifier: GPL-2.0 */
/*
 * retrofi compat selftest: genlmsg_multicast_allns() as the stack calls it
 * (three arguments after the family: 6.10's form, <net/genetlink.h> shims
 * it where the target still takes the flags). Included by
 * retrofi_selftest.c before its table.
 *
 * In retrofi_selftest_probes_off on a target below 6.10 that has 6.10's
 * form (Debian's 5.10.262 and 6.1.192), the shim's body is compiled all
 * the same, and the pre-6.10 function it calls is
 * retrofi_genlmsg_multicast_allns_gfp() below: the target has none (see
 * <net/genetlink.h>). It counts its calls, records the flags and sends
 * through the target's own function, so the case checks both what the
 * shim passes on and that the message arrives.
 */
#include <linux/net.h>
#include <linux/netlink.h>
#include <net/genetlink.h>
#include <net/sock.h>
#include <retrofi/backport.h>
#include <retrofi/probes.h>

#define ST_MCAST_CMD 1

#if defined(RETROFI_PROBES_OFF) && RETROFI_LINUX_LESS(6, 10, 0) && \
	RETROFI_HAVE_genlmsg_multicast_allns_noflags
#define ST_MCAST_OLD_FORM 1
#else
#define ST_MCAST_OLD_FORM 0
#endif

static struct {
	int calls;
	gfp_t flags;
} st_mcast_old;

static int st_mcast_doit(struct sk_buff *skb, struct genl_info *info)
{
	return 0;
}

static const struct genl_ops st_mcast_ops[] = {
	{ .cmd = ST_MCAST_CMD, .doit = st_mcast_doit },
};

static const struct genl_multicast_group st_mcast_groups[] = {
	{ .name = "retrofi_st_mc" },
};

static struct genl_family st_mcast_family = {
	.name = "retrofi_st_mc",
	.version = 1,
	.module = THIS_MODULE,
	.ops = st_mcast_ops,
	.n_ops = ARRAY_SIZE(st_mcast_ops),
#if !RETROFI_LINUX_LESS(6, 1, 0)	/* as rule 0202 writes it */
	.resv_start_op = ST_MCAST_CMD + 1,
#endif
	.mcgrps = st_mcast_groups,
	.n_mcgrps = ARRAY_SIZE(st_mcast_groups),
};

/*
 * Bind sock (a port id of its own: a broadcast skips the sender's port id,
 * and an unbound socket has 0, the kernel's) and join the family's group
 * on it; 0 or a negative errno. kernel_bind() takes a struct sockaddr *
 * before 7.x, a struct sockaddr_unsized * since: a void * is either.
 */
static int st_mcast_join(struct socket *sock)
{
	struct sockaddr_nl addr = { .nl_family = AF_NETLINK };
	int group = st_mcast_family.mcgrp_offset;
	int ret;

	ret = kernel_bind(sock, (void *)&addr, sizeof(addr));
	if (ret)
		return ret;
	return sock->ops->setsockopt(sock, SOL_NETLINK, NETLINK_ADD_MEMBERSHIP,
				     KERNEL_SOCKPTR(&group), sizeof(group));
}

/*
 * One ST_MCAST_CMD message multicast to the family's group with
 * genlmsg_multicast_allns() (portid 0: nobody left out): the kernel
 * socket that joined the group receives it, once (the socket is in
 * init_net; the message goes to every namespace's generic netlink socket).
 */
static const char *st_mcast_send_and_receive(struct socket *sock)
{
	struct {
		struct nlmsghdr nlh;
		struct genlmsghdr genl;
	} got;
	struct msghdr msg = {};
	struct kvec iov = { &got, sizeof(got) };
	struct sk_buff *skb;
	void *hdr;
	int ret;

	skb = genlmsg_new(0, GFP_KERNEL);
	if (!skb)
		return "genlmsg_new() failed";
	hdr = genlmsg_put(skb, 0, 0, &st_mcast_family, 0, ST_MCAST_CMD);
	if (!hdr) {
		nlmsg_free(skb);
		return "genlmsg_put() failed";
	}
	genlmsg_end(skb, hdr);
	ret = genlmsg_multicast_allns(&st_mcast_family, skb, 0, 0);
	if (ret)
		return "genlmsg_multicast_allns() did not deliver to the group's member";
	ret = kernel_recvmsg(sock, &msg, &iov, 1, sizeof(got), MSG_DONTWAIT);
	if (ret != (int)sizeof(got))
		return "the group's member received no message";
	if (got.nlh.nlmsg_type != st_mcast_family.id || got.genl.cmd != ST_MCAST_CMD)
		return "the group's member received another message";
	memset(&msg, 0, sizeof(msg));
	ret = kernel_recvmsg(sock, &msg, &iov, 1, sizeof(got), MSG_DONTWAIT);
	if (ret != -EAGAIN)
		return "the group's member received the message more than once";
	return NULL;
}

static const char *test_genl_multicast_allns_reaches_a_member_of_the_group(void)
{
	struct socket *sock;
	const char *err;
	int ret;

	memset(&st_mcast_old, 0, sizeof(st_mcast_old));
	if (genl_register_family(&st_mcast_family))
		return "genl_register_family failed";
	ret = sock_create_kern(&init_net, AF_NETLINK, SOCK_RAW, NETLINK_GENERIC,
			       &sock);
	if (ret) {
		genl_unregister_family(&st_mcast_family);
		return "no kernel netlink socket";
	}
	if (st_mcast_join(sock))
		err = "the kernel socket could not join the family's group";
	else
		err = st_mcast_send_and_receive(sock);
	sock_release(sock);
	genl_unregister_family(&st_mcast_family);
	if (err)
		return err;
	if (ST_MCAST_OLD_FORM && st_mcast_old.calls != 1)
		return "the shim did not call the pre-6.10 function once";
	if (ST_MCAST_OLD_FORM && st_mcast_old.flags != GFP_ATOMIC)
		return "the shim did not pass GFP_ATOMIC to the pre-6.10 function";
	return NULL;
}

#if ST_MCAST_OLD_FORM
/* The target's own, four-argument function from here on. */
#undef genlmsg_multicast_allns
static int retrofi_genlmsg_multicast_allns_gfp(const struct genl_family *family,
					       struct sk_buff *skb, u32 portid,
					       unsigned int group, gfp_t flags)
{
	st_mcast_old.calls++;
	st_mcast_old.flags = flags;
	return genlmsg_multicast_allns(family, skb, portid, group);
}
#define genlmsg_multicast_allns LINUX_BACKPORT(genlmsg_multicast_allns)
#endif
