// SPDX-License-Identifier: GPL-2.0
/*
 * STAMP Session-Reflector (RFC 8762, with the RFC 8972 extensions)
 *
 * A reflector is a kernel UDP socket whose encap_rcv hook answers every
 * Session-Sender test packet in softirq context: the test packet is turned
 * into the reply in place (RFC 8762 makes the two the same size), its
 * addresses and ports swapped, and sent back with ip6_local_out() or
 * ip_local_out().  No process is woken.
 *
 * Sessions are optional for a stateless unauthenticated reflector and
 * required otherwise.  A session is identified by its SSID and, optionally,
 * the Session-Sender's address.  It carries the per-session sequence number
 * of the stateful mode, the HMAC key of the authenticated mode, and the SRv6
 * return path: the reply's SRH is inserted (not encapsulated), with the
 * Session-Sender's address as the final segment, so the reply keeps its
 * addresses and UDP checksum and reaches the sender's socket without any
 * decapsulating SID at the sender.
 */

#define pr_fmt(fmt) "stamp: " fmt

#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/net.h>
#include <linux/random.h>
#include <crypto/hash.h>
#include <net/genetlink.h>
#include <net/netns/generic.h>
#include <net/udp_tunnel.h>

#include "stamp.h"
#include "stamp_nl_gen.h"

/* What one network namespace may hold: every command is open to the owner
 * of a user namespace, and each session costs a few hundred bytes, per-CPU
 * counters and possibly an HMAC transform.
 */
unsigned int stamp_sessions_max __read_mostly = 4096;
module_param_named(sessions_max, stamp_sessions_max, uint, 0644);
MODULE_PARM_DESC(sessions_max, "Sessions per network namespace (default 4096)");

unsigned int stamp_reflectors_max __read_mostly = 64;
module_param_named(reflectors_max, stamp_reflectors_max, uint, 0644);
MODULE_PARM_DESC(reflectors_max,
		 "Reflectors per network namespace (default 64)");

/* Sessions alive in all namespaces: what a namespace left behind shows here. */
atomic_t stamp_sessions_live = ATOMIC_INIT(0);

static int stamp_sessions_live_get(char *buf, const struct kernel_param *kp)
{
	return sysfs_emit(buf, "%d\n", atomic_read(&stamp_sessions_live));
}

static const struct kernel_param_ops stamp_sessions_live_ops = {
	.get	= stamp_sessions_live_get,
};

/* root's only: a container must not learn what other namespaces hold */
module_param_cb(sessions, &stamp_sessions_live_ops, NULL, 0400);
MODULE_PARM_DESC(sessions, "Sessions alive in all network namespaces");
unsigned int stamp_net_id __read_mostly;

/* What a reflector holds but its socket and counters, which a change
 * hands on to the reflector that replaces it.
 */
int stamp_reflector_init_route(struct stamp_reflector *r)
{
	int err;

	r->dst_key = alloc_percpu_gfp(struct stamp_dst_key, GFP_KERNEL_ACCOUNT);
	if (!r->dst_key)
		return -ENOMEM;
	err = dst_cache_init(&r->dst_cache, GFP_KERNEL_ACCOUNT);
	if (err) {
		free_percpu(r->dst_key);
		r->dst_key = NULL;
	}
	return err;
}

void stamp_reflector_release(struct stamp_reflector *r)
{
	if (r->dst_key) {
		dst_cache_destroy(&r->dst_cache);
		free_percpu(r->dst_key);
	}
	if (r->early_ts)
		net_disable_timestamp();
	kfree(r);
}

/* Stop @r's socket from handing packets to @r.  encap_rcv may still run
 * on another CPU with @r in hand until a grace period has passed: then
 * stamp_reflector_destroy() may free it.
 */
void stamp_reflector_unhook(struct stamp_reflector *r)
{
	rcu_assign_sk_user_data(r->sock->sk, NULL);
}

void stamp_reflector_destroy(struct stamp_reflector *r)
{
	kernel_sock_shutdown(r->sock, SHUT_RDWR);
	sock_release(r->sock);
	free_percpu(r->stats);
	stamp_reflector_release(r);
}

int stamp_reflector_sock(struct net *net, struct stamp_reflector *r)
{
	struct udp_tunnel_sock_cfg tcfg = {};
	struct udp_port_cfg cfg = {};
	int err;

	cfg.local_udp_port = htons(r->port);
	cfg.use_udp_checksums = 1;
	cfg.use_udp6_tx_checksums = 1;
	cfg.use_udp6_rx_checksums = 1;
	if (r->family == AF_INET) {
		cfg.family = AF_INET;
		cfg.local_ip.s_addr = r->addr.v4;
	} else {
		/* No address: one dual-stack socket answers IPv4 too. */
		cfg.family = AF_INET6;
		cfg.local_ip6 = r->addr.v6;
		cfg.ipv6_v6only = r->family == AF_INET6;
	}
	err = udp_sock_create(net, &cfg, &r->sock);
	if (err)
		return err;

	tcfg.sk_user_data = r;
	tcfg.encap_type = 1;
	tcfg.encap_rcv = stamp_udp_rcv;
	setup_udp_tunnel_sock(net, r->sock, &tcfg);
	r->sock->sk->sk_allocation = GFP_ATOMIC;
	return 0;
}

/* Give the existing reflector @old the configuration of @r, which keeps
 * @old's socket and counters: the receive path holds one reflector from
 * the socket's user data, so it sees the old configuration or the new one,
 * never a mix.  @old is freed by the caller after a grace period.
 */
void stamp_reflector_replace(struct stamp_reflector *old,
			     struct stamp_reflector *r)
{
	r->sock = old->sock;
	r->stats = old->stats;
	/* Each reflector with early_ts holds one enable, @old's until the
	 * caller releases it.
	 */
	if (r->early_ts)
		net_enable_timestamp();
	list_replace(&old->list, &r->list);
	rcu_assign_sk_user_data(r->sock->sk, r);
}

void stamp_session_cfg_free(struct stamp_session_cfg *c)
{
	if (!c)
		return;
	crypto_free_shash(c->tfm);
	kfree(c->srh);
	kfree(c->srh_short);
	kfree(c);
}

void stamp_session_free(struct stamp_session *s)
{
	stamp_session_cfg_free(rcu_dereference_protected(s->cfg, true));
	free_percpu(s->stats);
	kfree(s);
	atomic_dec(&stamp_sessions_live);
}

/* ------------------------------------------------------------- pernet -- */

static int __net_init stamp_net_init(struct net *net)
{
	struct stamp_net *sn = stamp_pernet(net);

	mutex_init(&sn->lock);
	INIT_LIST_HEAD(&sn->reflectors);
	sn->seed = get_random_u32();
	hash_init(sn->sessions);
	return 0;
}

/* A dying namespace's reflectors all wait for one grace period: a
 * namespace with the most reflectors allowed, or a batch of many, costs
 * cleanup_net() one synchronize_net(), not one per reflector.
 */
static void __net_exit stamp_net_exit_batch(struct list_head *net_list)
{
	struct stamp_reflector *r, *rtmp;
	struct stamp_session *s;
	struct hlist_node *stmp;
	LIST_HEAD(dead);
	struct net *net;
	int bkt;

	list_for_each_entry(net, net_list, exit_list) {
		struct stamp_net *sn = stamp_pernet(net);

		mutex_lock(&sn->lock);
		list_for_each_entry(r, &sn->reflectors, list)
			stamp_reflector_unhook(r);
		list_splice_init(&sn->reflectors, &dead);
		sn->n_reflectors = 0;
		mutex_unlock(&sn->lock);
	}
	/* Sessions are read only by the reflectors' receive path: after this
	 * grace period nobody reads them or the reflectors.
	 */
	synchronize_net();
	list_for_each_entry_safe(r, rtmp, &dead, list)
		stamp_reflector_destroy(r);
	list_for_each_entry(net, net_list, exit_list) {
		struct stamp_net *sn = stamp_pernet(net);

		mutex_lock(&sn->lock);
		hash_for_each_safe(sn->sessions, bkt, stmp, s, node) {
			hash_del(&s->node);
			stamp_session_free(s);
		}
		sn->n_sessions = 0;
		mutex_unlock(&sn->lock);
	}
}

static struct pernet_operations stamp_net_ops = {
	.init		= stamp_net_init,
	.exit_batch	= stamp_net_exit_batch,
	.id		= &stamp_net_id,
	.size		= sizeof(struct stamp_net),
};

static int __init stamp_init(void)
{
	int err;

	err = register_pernet_subsys(&stamp_net_ops);
	if (err)
		return err;
	err = genl_register_family(&stamp_nl_family);
	if (err)
		unregister_pernet_subsys(&stamp_net_ops);
	return err;
}

static void __exit stamp_exit(void)
{
	genl_unregister_family(&stamp_nl_family);
	unregister_pernet_subsys(&stamp_net_ops);
}

module_init(stamp_init);
module_exit(stamp_exit);
MODULE_DESCRIPTION("STAMP Session-Reflector (RFC 8762, RFC 8972)");
MODULE_LICENSE("GPL");
MODULE_ALIAS_GENL_FAMILY(STAMP_FAMILY_NAME);
