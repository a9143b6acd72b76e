// SPDX-License-Identifier: GPL-2.0
/*
 * A user-space STAMP Session-Reflector (RFC 8762: stateless,
 * unauthenticated, NTP timestamps) for the benchmark, written to be as
 * fast as user space gets: one dual-stack UDP socket, test packets read
 * and replies sent in batches with recvmmsg()/sendmmsg(), T2 from the
 * kernel's receive timestamp (SO_TIMESTAMPNS), the Session-Sender TTL from
 * IPV6_HOPLIMIT / IP_TTL ancillary data.  Replies are rewritten in place.
 *
 * usage: stamp_reflector PORT
 */

#define _GNU_SOURCE
#include <arpa/inet.h>
#include <endian.h>
#include <netinet/in.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>

#define BATCH		64
#define PKT_MAX		2048
#define BASE_LEN	44
#define NTP_OFFSET	2208988800ULL

static uint64_t ntp(const struct timespec *ts)
{
	uint64_t frac = ((uint64_t)ts->tv_nsec << 32) / 1000000000ULL;

	return htobe64(((uint64_t)(ts->tv_sec + NTP_OFFSET) << 32) | frac);
}

static void put64(uint8_t *p, uint64_t v)
{
	memcpy(p, &v, sizeof(v));
}

/* Turn the test packet P into its reply (RFC 8762 section 4.3.1). */
static void reflect(uint8_t *p, const struct timespec *t2, int ttl)
{
	uint8_t seq[4], t1[8], ee[2];
	struct timespec t3;

	memcpy(seq, p, 4);
	memcpy(t1, p + 4, 8);
	memcpy(ee, p + 12, 2);
	put64(p + 16, ntp(t2));
	memcpy(p + 24, seq, 4);
	memcpy(p + 28, t1, 8);
	memcpy(p + 36, ee, 2);
	memset(p + 38, 0, 2);
	p[40] = ttl;
	memset(p + 41, 0, 3);
	p[12] = 0x00;		/* Error Estimate: not synchronised, */
	p[13] = 0x01;		/* scale 0, multiplier 1 */
	clock_gettime(CLOCK_REALTIME, &t3);
	put64(p + 4, ntp(&t3));
}

static void rx_info(struct msghdr *mh, struct timespec *t2, int *ttl)
{
	struct cmsghdr *c;

	*ttl = 0;
	t2->tv_sec = 0;
	for (c = CMSG_FIRSTHDR(mh); c; c = CMSG_NXTHDR(mh, c)) {
		if (c->cmsg_level == SOL_SOCKET &&
		    c->cmsg_type == SCM_TIMESTAMPNS)
			memcpy(t2, CMSG_DATA(c), sizeof(*t2));
		else if ((c->cmsg_level == IPPROTO_IPV6 &&
			  c->cmsg_type == IPV6_HOPLIMIT) ||
			 (c->cmsg_level == IPPROTO_IP && c->cmsg_type == IP_TTL))
			memcpy(ttl, CMSG_DATA(c), sizeof(*ttl));
	}
	if (!t2->tv_sec)
		clock_gettime(CLOCK_REALTIME, t2);
}

int main(int argc, char **argv)
{
	static uint8_t bufs[BATCH][PKT_MAX];
	static uint8_t ctl[BATCH][256];
	struct sockaddr_in6 addr = { .sin6_family = AF_INET6 };
	struct sockaddr_in6 peers[BATCH];
	struct mmsghdr in[BATCH], out[BATCH];
	struct iovec iov[BATCH];
	int fd, one = 1, zero = 0, rcvbuf = 4 << 20;

	if (argc != 2) {
		fprintf(stderr, "usage: %s PORT\n", argv[0]);
		return 2;
	}
	addr.sin6_port = htons(atoi(argv[1]));
	fd = socket(AF_INET6, SOCK_DGRAM, 0);
	if (fd < 0 ||
	    setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &zero, sizeof(zero)) ||
	    setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &rcvbuf, sizeof(rcvbuf)) ||
	    setsockopt(fd, SOL_SOCKET, SO_TIMESTAMPNS, &one, sizeof(one)) ||
	    setsockopt(fd, IPPROTO_IPV6, IPV6_RECVHOPLIMIT, &one, sizeof(one)) ||
	    setsockopt(fd, IPPROTO_IP, IP_RECVTTL, &one, sizeof(one)) ||
	    bind(fd, (struct sockaddr *)&addr, sizeof(addr))) {
		perror("stamp_reflector: socket");
		return 1;
	}

	for (;;) {
		int i, n, m = 0;

		for (i = 0; i < BATCH; i++) {
			iov[i].iov_base = bufs[i];
			iov[i].iov_len = PKT_MAX;
			memset(&in[i].msg_hdr, 0, sizeof(in[i].msg_hdr));
			in[i].msg_hdr.msg_name = &peers[i];
			in[i].msg_hdr.msg_namelen = sizeof(peers[i]);
			in[i].msg_hdr.msg_iov = &iov[i];
			in[i].msg_hdr.msg_iovlen = 1;
			in[i].msg_hdr.msg_control = ctl[i];
			in[i].msg_hdr.msg_controllen = sizeof(ctl[i]);
		}
		n = recvmmsg(fd, in, BATCH, MSG_WAITFORONE, NULL);
		if (n < 0) {
			perror("stamp_reflector: recvmmsg");
			return 1;
		}
		for (i = 0; i < n; i++) {
			struct timespec t2;
			int ttl;

			if (in[i].msg_len < BASE_LEN)
				continue;
			rx_info(&in[i].msg_hdr, &t2, &ttl);
			reflect(bufs[i], &t2, ttl);
			iov[i].iov_len = in[i].msg_len;
			memset(&out[m], 0, sizeof(out[m]));
			out[m].msg_hdr.msg_name = &peers[i];
			out[m].msg_hdr.msg_namelen = in[i].msg_hdr.msg_namelen;
			out[m].msg_hdr.msg_iov = &iov[i];
			out[m].msg_hdr.msg_iovlen = 1;
			m++;
		}
		if (m && sendmmsg(fd, out, m, 0) < 0)
			perror("stamp_reflector: sendmmsg");
	}
}
