// SPDX-License-Identifier: GPL-2.0
/*
 * An eBPF STAMP Session-Reflector (RFC 8762: stateless, unauthenticated)
 * at the tc ingress hook, the bench's yardstick for the in-kernel one
 * (net/stamp/) and the user-space one (bench/stamp_reflector.c): a test
 * packet is turned into its reply in place, addresses and ports swapped,
 * and redirected out of a device without entering the IP stack.
 *
 * What it answers: a UDP datagram to port STAMP_PORT of one of this host's
 * addresses (a FIB lookup of the destination says "not forwarded": local),
 * IPv6 without extension headers or IPv4 without options, with at least
 * the 44 bytes of an unauthenticated test packet, from a unicast source
 * whose port is neither STAMP_PORT nor below 1024, and whose Receive
 * Timestamp field is zero (not a reflector's reply).  Anything else goes
 * on to the stack (TC_ACT_OK).  TLVs after the 44 bytes are left as they
 * are; the incoming UDP checksum is not verified, it is updated for the
 * bytes rewritten (a bad one stays bad).
 *
 * The reply's bytes are those of the in-kernel reflector in its stateless
 * unauthenticated mode: the sender's Sequence Number, Timestamp, Error
 * Estimate and TTL (the hop limit it arrived with) copied, Error Estimate
 * 0x0001 (its Z bit from the sender's), T2 and T3 in NTP format, or PTPv2
 * truncated where the sender's Z bit is set; IPv6 traffic class (IPv4 TOS)
 * kept without its ECN bits, flow label 0, hop limit (TTL) 64, IPv4
 * DF cleared (its ID kept).
 *
 * Time: bpf_ktime_get_tai_ns() (CLOCK_TAI).  PTP timestamps are TAI
 * seconds and nanoseconds; NTP ones are UTC: TAI less tai_offset seconds,
 * the kernel's TAI-UTC offset, which the loader writes into this object's
 * .bss (0, the kernel's own default, if nobody does), plus the 70
 * years from 1900 to 1970, the fraction (ns << 32) / 10^9.  T2 is read
 * when the program starts, T3 when the payload is written.
 *
 * Out: a FIB lookup of the sender's address from the ingress device (the
 * reply is routed as a forwarded packet would be: the host must forward),
 * then bpf_redirect() out of the device it gives with its MACs, or
 * bpf_redirect_neigh() when the neighbour is not resolved yet.  Where
 * the lookup fails (a link-local sender) the reply leaves through the
 * device it came in on, the test packet's MAC addresses swapped.
 *
 * Built with clang -target bpf (make bench-bpf), attached at the tcx
 * ingress hook (the tc ingress hook without a qdisc) by
 * bench/stamp_ebpf_load.sh with bench/tcx_load.c.
 */

#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <linux/if_packet.h>
#include <linux/in.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/pkt_cls.h>
#include <linux/udp.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_endian.h>

#define STAMP_PORT		862
#define STAMP_SPORT_MIN		1024
#define STAMP_UNAUTH_LEN	44
#define STAMP_EE_Z		0x4000
#define STAMP_EE_DEFAULT	0x0001
#define REPLY_HOPS		64
#define NTP_EPOCH_OFFSET	2208988800ULL
#define NSEC_PER_SEC		1000000000ULL

/* The kernel's TAI-UTC offset in seconds, written by the loader. */
__s32 tai_offset;

/* The unauthenticated test packet and its reply (RFC 8762 4.2.1, 4.3.1). */
struct stamp_unauth {
	__be32	seq;
	__be64	ts;
	__be16	err_est;
	__be16	ssid;
	__be64	rx_ts;		/* the reply's; zero in a test packet */
	__be32	snd_seq;
	__be64	snd_ts;
	__be16	snd_err_est;
	__be16	mbz1;
	__u8	snd_ttl;
	__u8	mbz2[3];
} __attribute__((packed));

static __always_inline __be64 stamp_time(__u64 tai_ns, int ptp)
{
	__u64 sec, nsec;

	if (!ptp)
		tai_ns -= (__s64)tai_offset * NSEC_PER_SEC;
	sec = tai_ns / NSEC_PER_SEC;
	nsec = tai_ns % NSEC_PER_SEC;
	if (ptp)
		return bpf_cpu_to_be64((sec << 32) | nsec);
	return bpf_cpu_to_be64(((sec + NTP_EPOCH_OFFSET) << 32) |
			       ((nsec << 32) / NSEC_PER_SEC));
}

static __always_inline __u16 csum_fold(__s64 s)
{
	__u32 c = (__u32)s;

	c = (c & 0xffff) + (c >> 16);
	c = (c & 0xffff) + (c >> 16);
	return (__u16)c;
}

/* Rewrite the test packet P into the reply; return the UDP checksum
 * updated for it (CHECK: the test packet's, 0: none, IPv4 only).
 */
static __always_inline __u16 stamp_reply(struct stamp_unauth *p, __u8 ttl,
					 __u64 t2, __u16 check)
{
	struct stamp_unauth old = *p;
	__u16 ee = STAMP_EE_DEFAULT;
	int ptp;
	__u16 c;

	ptp = !!(bpf_ntohs(old.err_est) & STAMP_EE_Z);
	if (ptp)
		ee |= STAMP_EE_Z;
	p->rx_ts = stamp_time(t2, ptp);
	p->snd_seq = old.seq;
	p->snd_ts = old.ts;
	p->snd_err_est = old.err_est;
	p->mbz1 = 0;
	p->snd_ttl = ttl;
	p->mbz2[0] = 0;
	p->mbz2[1] = 0;
	p->mbz2[2] = 0;
	p->err_est = bpf_htons(ee);
	p->ts = stamp_time(bpf_ktime_get_tai_ns(), ptp);
	if (!check)
		return 0;
	c = ~csum_fold(bpf_csum_diff((__be32 *)&old, sizeof(old),
				     (__be32 *)p, sizeof(old),
				     (__u16)~check));
	return c ? c : 0xffff;
}

static __always_inline int stamp_udp_ok(const struct udphdr *uh, __u16 len,
					void *data_end)
{
	__u16 sport = bpf_ntohs(uh->source);

	if ((void *)(uh + 1) + STAMP_UNAUTH_LEN > data_end)
		return 0;
	if (uh->dest != bpf_htons(STAMP_PORT) || sport == STAMP_PORT ||
	    sport < STAMP_SPORT_MIN)
		return 0;
	if (bpf_ntohs(uh->len) != len || len < sizeof(*uh) + STAMP_UNAUTH_LEN)
		return 0;
	/* A reflector's reply: never answer one. */
	return !((struct stamp_unauth *)(uh + 1))->rx_ts;
}

/* Out of the device the FIB gives for the reply's destination, else back
 * out of the one the test packet came in on.
 */
static __always_inline int stamp_out(struct __sk_buff *skb,
				     struct bpf_fib_lookup *fib,
				     struct ethhdr *eth)
{
	__u8 mac[ETH_ALEN];
	int rc;

	rc = bpf_fib_lookup(skb, fib, sizeof(*fib), 0);
	if (rc == BPF_FIB_LKUP_RET_SUCCESS) {
		__builtin_memcpy(eth->h_dest, fib->dmac, ETH_ALEN);
		__builtin_memcpy(eth->h_source, fib->smac, ETH_ALEN);
		return bpf_redirect(fib->ifindex, 0);
	}
	if (rc == BPF_FIB_LKUP_RET_NO_NEIGH)
		return bpf_redirect_neigh(fib->ifindex, NULL, 0, 0);
	__builtin_memcpy(mac, eth->h_dest, ETH_ALEN);
	__builtin_memcpy(eth->h_dest, eth->h_source, ETH_ALEN);
	__builtin_memcpy(eth->h_source, mac, ETH_ALEN);
	return bpf_redirect(skb->ingress_ifindex, 0);
}

/* Whether DST is one of this host's addresses: the FIB does not forward
 * it (a local route; multicast is refused before).
 */
static __always_inline int stamp_local(struct __sk_buff *skb,
				       struct bpf_fib_lookup *fib)
{
	return bpf_fib_lookup(skb, fib, sizeof(*fib), 0) ==
	       BPF_FIB_LKUP_RET_NOT_FWDED;
}

static __always_inline int stamp_v6(struct __sk_buff *skb, __u64 t2)
{
	void *data = (void *)(long)skb->data;
	void *data_end = (void *)(long)skb->data_end;
	struct bpf_fib_lookup fib = {};
	struct ethhdr *eth = data;
	struct ipv6hdr *ip6h = (void *)(eth + 1);
	struct udphdr *uh = (void *)(ip6h + 1);
	struct in6_addr a;
	__u8 tclass;

	if ((void *)(uh + 1) > data_end || ip6h->nexthdr != IPPROTO_UDP)
		return TC_ACT_OK;
	if (!stamp_udp_ok(uh, bpf_ntohs(ip6h->payload_len), data_end))
		return TC_ACT_OK;
	/* Unicast, neither unspecified nor loopback, nor v4-mapped. */
	if (ip6h->daddr.s6_addr[0] == 0xff || ip6h->saddr.s6_addr[0] == 0xff)
		return TC_ACT_OK;
	if (!(ip6h->saddr.s6_addr32[0] | ip6h->saddr.s6_addr32[1]) &&
	    (!ip6h->saddr.s6_addr32[2] ||
	     ip6h->saddr.s6_addr32[2] == bpf_htonl(0xffff)))
		return TC_ACT_OK;

	fib.family = 10;	/* AF_INET6 */
	fib.l4_protocol = IPPROTO_UDP;
	fib.ifindex = skb->ingress_ifindex;
	__builtin_memcpy(fib.ipv6_src, &ip6h->saddr, sizeof(a));
	__builtin_memcpy(fib.ipv6_dst, &ip6h->daddr, sizeof(a));
	if (!stamp_local(skb, &fib))
		return TC_ACT_OK;

	uh->check = stamp_reply((void *)(uh + 1), ip6h->hop_limit, t2,
				uh->check);
	uh->source ^= uh->dest;
	uh->dest ^= uh->source;
	uh->source ^= uh->dest;
	a = ip6h->saddr;
	ip6h->saddr = ip6h->daddr;
	ip6h->daddr = a;
	tclass = (ip6h->priority << 4 | ip6h->flow_lbl[0] >> 4) & ~3;
	ip6h->priority = tclass >> 4;
	ip6h->flow_lbl[0] = (tclass & 0xf) << 4;
	ip6h->flow_lbl[1] = 0;
	ip6h->flow_lbl[2] = 0;
	ip6h->hop_limit = REPLY_HOPS;

	fib.ifindex = skb->ingress_ifindex;
	__builtin_memcpy(fib.ipv6_src, &ip6h->saddr, sizeof(a));
	__builtin_memcpy(fib.ipv6_dst, &ip6h->daddr, sizeof(a));
	return stamp_out(skb, &fib, eth);
}

static __always_inline int stamp_v4(struct __sk_buff *skb, __u64 t2)
{
	void *data = (void *)(long)skb->data;
	void *data_end = (void *)(long)skb->data_end;
	struct bpf_fib_lookup fib = {};
	struct ethhdr *eth = data;
	struct iphdr *iph = (void *)(eth + 1);
	struct udphdr *uh = (void *)(iph + 1);
	__be32 a;

	if ((void *)(uh + 1) > data_end || iph->ihl != 5 ||
	    iph->protocol != IPPROTO_UDP ||
	    (iph->frag_off & bpf_htons(0x3fff)))
		return TC_ACT_OK;
	if (!stamp_udp_ok(uh, bpf_ntohs(iph->tot_len) - sizeof(*iph),
			  data_end))
		return TC_ACT_OK;
	/* Unicast: not 0/8, 127/8, multicast or broadcast. */
	a = bpf_ntohl(iph->saddr);
	if (!(a >> 24) || a >> 24 == 127 || a >> 28 >= 0xe)
		return TC_ACT_OK;
	if (bpf_ntohl(iph->daddr) >> 28 >= 0xe)
		return TC_ACT_OK;

	fib.family = 2;		/* AF_INET */
	fib.l4_protocol = IPPROTO_UDP;
	fib.ifindex = skb->ingress_ifindex;
	fib.ipv4_src = iph->saddr;
	fib.ipv4_dst = iph->daddr;
	if (!stamp_local(skb, &fib))
		return TC_ACT_OK;

	uh->check = stamp_reply((void *)(uh + 1), iph->ttl, t2, uh->check);
	uh->source ^= uh->dest;
	uh->dest ^= uh->source;
	uh->source ^= uh->dest;
	a = iph->saddr;
	iph->saddr = iph->daddr;
	iph->daddr = a;
	iph->tos &= ~3;
	iph->frag_off = 0;
	iph->ttl = REPLY_HOPS;
	iph->check = 0;
	iph->check = ~csum_fold(bpf_csum_diff(NULL, 0, (__be32 *)iph,
					      sizeof(*iph), 0));

	fib.ifindex = skb->ingress_ifindex;
	fib.ipv4_src = iph->saddr;
	fib.ipv4_dst = iph->daddr;
	return stamp_out(skb, &fib, eth);
}

SEC("tc")
int stamp_reflect(struct __sk_buff *skb)
{
	__u32 need = sizeof(struct ethhdr) + sizeof(struct ipv6hdr) +
		     sizeof(struct udphdr) + STAMP_UNAUTH_LEN;
	__u64 t2 = bpf_ktime_get_tai_ns();

	if (skb->pkt_type != PACKET_HOST)
		return TC_ACT_OK;
	if (skb->protocol != bpf_htons(ETH_P_IPV6) &&
	    skb->protocol != bpf_htons(ETH_P_IP))
		return TC_ACT_OK;
	if (skb->len < need - (sizeof(struct ipv6hdr) - sizeof(struct iphdr)))
		return TC_ACT_OK;
	if (skb->len < need)
		need = skb->len;
	/* The headers and the 44 bytes in the linear part. */
	if ((long)skb->data_end - (long)skb->data < need &&
	    bpf_skb_pull_data(skb, need))
		return TC_ACT_OK;
	if (skb->protocol == bpf_htons(ETH_P_IPV6))
		return stamp_v6(skb, t2);
	return stamp_v4(skb, t2);
}

char _license[] SEC("license") = "GPL";
