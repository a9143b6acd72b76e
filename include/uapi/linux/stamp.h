/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * STAMP (RFC 8762, RFC 8972) Session-Reflector: generic netlink API
 */

#ifndef _UAPI_LINUX_STAMP_H
#define _UAPI_LINUX_STAMP_H

#define STAMP_GENL_NAME		"stamp"
#define STAMP_GENL_VERSION	1

/* The well-known STAMP port (RFC 8762, section 4.1). */
#define STAMP_PORT		862

/* Largest HMAC key accepted for a session, in bytes. */
#define STAMP_KEY_MAX_LEN	64
/* Largest number of SIDs in a session's return path. */
#define STAMP_SEGS_MAX		16
/* Test packets from a lower UDP port (the well-known ports, where echo
 * and chargen live) are not answered unless the reflector says otherwise.
 */
#define STAMP_SPORT_MIN_DEFAULT	1024

enum stamp_mode {
	STAMP_MODE_STATELESS,	/* copy the Session-Sender's sequence number */
	STAMP_MODE_STATEFUL,	/* a sequence number of our own, per session */
	__STAMP_MODE_MAX,
};

#define STAMP_MODE_MAX (__STAMP_MODE_MAX - 1)

enum {
	STAMP_A_UNSPEC,
	STAMP_A_PORT,		/* u16: UDP port of a reflector */
	STAMP_A_ADDR4,		/* be32: local IPv4 address of a reflector */
	STAMP_A_ADDR6,		/* binary (struct in6_addr): local IPv6 address */
	STAMP_A_MODE,		/* u8: enum stamp_mode */
	STAMP_A_AUTH,		/* flag: authenticated mode (RFC 8762 4.2.2) */
	STAMP_A_ERR_EST,	/* u16: Error Estimate sent back (S, scale,
				 * multiplier; the Z bit is ignored)
				 */
	STAMP_A_SSID,		/* u16: Session-Sender Identifier */
	STAMP_A_PEER4,		/* be32: Session-Sender's IPv4 address */
	STAMP_A_PEER6,		/* binary (struct in6_addr): its IPv6 address */
	STAMP_A_SEGS,		/* binary: struct in6_addr[], the return path */
	STAMP_A_KEY,		/* binary: HMAC-SHA-256 key (never dumped) */
	STAMP_A_HAS_KEY,	/* flag: the session has a key (dump only) */
	STAMP_A_SEQ,		/* u32: next stateful sequence number (dump) */
	STAMP_A_STATS,		/* nest: STAMP_STATS_A_* (dump only) */
	STAMP_A_PAD,
	STAMP_A_EARLY_TS,	/* flag: T2 from the stack's receive timestamp,
				 * which the host then takes for every packet
				 */
	STAMP_A_SPORT_MIN,	/* u16: lowest Session-Sender UDP port answered
				 * (default STAMP_SPORT_MIN_DEFAULT)
				 */
	__STAMP_A_MAX,
};

#define STAMP_A_MAX (__STAMP_A_MAX - 1)

enum {
	STAMP_STATS_A_UNSPEC,
	STAMP_STATS_A_RX,		/* u64: test packets received */
	STAMP_STATS_A_TX,		/* u64: replies sent */
	STAMP_STATS_A_DROP_MALFORMED,	/* u64: too short, bad length */
	STAMP_STATS_A_DROP_AUTH,	/* u64: wrong or missing HMAC */
	STAMP_STATS_A_DROP_NO_SESSION,	/* u64: no session for the SSID */
	STAMP_STATS_A_DROP_XMIT,	/* u64: no route, no memory */
	STAMP_STATS_A_TLV_MALFORMED,	/* u64: replies with an M flag set */
	STAMP_STATS_A_TLV_UNKNOWN,	/* u64: replies with a U flag set */
	STAMP_STATS_A_PAD,
	STAMP_STATS_A_DROP_SOURCE,	/* u64: from an address or port that
					 * cannot be a Session-Sender's, or to
					 * a multicast or broadcast address
					 */
	STAMP_STATS_A_DROP_REFLECTED,	/* u64: a reflector's reply, not a
					 * test packet
					 */
	STAMP_STATS_A_TLV_LIMIT,	/* u64: replies with TLVs left
					 * unprocessed (M flag) past the limit
					 */
	__STAMP_STATS_A_MAX,
};

#define STAMP_STATS_A_MAX (__STAMP_STATS_A_MAX - 1)

enum {
	STAMP_CMD_UNSPEC,
	STAMP_CMD_REFLECTOR_ADD,
	STAMP_CMD_REFLECTOR_DEL,
	STAMP_CMD_REFLECTOR_GET,	/* dump */
	STAMP_CMD_SESSION_ADD,
	STAMP_CMD_SESSION_DEL,
	STAMP_CMD_SESSION_GET,		/* dump */
	__STAMP_CMD_MAX,
};

#define STAMP_CMD_MAX (__STAMP_CMD_MAX - 1)

#endif /* _UAPI_LINUX_STAMP_H */
