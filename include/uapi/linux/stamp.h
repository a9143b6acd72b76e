/* SPDX-License-Identifier: ((GPL-2.0 WITH Linux-syscall-note) OR BSD-3-Clause) */
/* Do not edit directly, auto-generated from: */
/*	Documentation/netlink/specs/stamp.yaml */
/* YNL-GEN uapi header */

#ifndef _UAPI_LINUX_STAMP_H
#define _UAPI_LINUX_STAMP_H

#define STAMP_FAMILY_NAME	"stamp"
#define STAMP_FAMILY_VERSION	1

#define STAMP_PORT		862
#define STAMP_KEY_MAX_LEN	64
#define STAMP_SEGS_MAX		16
#define STAMP_SPORT_MIN_DEFAULT	1024

/**
 * enum stamp_mode
 * @STAMP_MODE_STATELESS: Copy the Session-Sender's sequence number.
 * @STAMP_MODE_STATEFUL: A sequence number of our own, per session.
 */
enum stamp_mode {
	STAMP_MODE_STATELESS,
	STAMP_MODE_STATEFUL,

	/* private: */
	__STAMP_MODE_MAX,
	STAMP_MODE_MAX = (__STAMP_MODE_MAX - 1)
};

/**
 * enum stamp_altmark - Which Session-Senders the reflector answers PF-PLM
 *   block queries (TLV 252, version 2) from the closed blocks of the
 *   namespace's Alternate-Marking monitors
 *   (Documentation/networking/altmark.rst).
 * @STAMP_ALTMARK_OFF: None; the TLV is flagged U (unrecognized).
 * @STAMP_ALTMARK_ANY: Every Session-Sender the reflector answers.
 * @STAMP_ALTMARK_PEER: Only those whose test packets match a session that
 *   names the Session-Sender's address; others get the refused status.
 */
enum stamp_altmark {
	STAMP_ALTMARK_OFF,
	STAMP_ALTMARK_ANY,
	STAMP_ALTMARK_PEER,

	/* private: */
	__STAMP_ALTMARK_MAX,
	STAMP_ALTMARK_MAX = (__STAMP_ALTMARK_MAX - 1)
};

enum {
	STAMP_A_REFLECTOR_PORT = 1,
	STAMP_A_REFLECTOR_ADDR4,
	STAMP_A_REFLECTOR_ADDR6,
	STAMP_A_REFLECTOR_MODE,
	STAMP_A_REFLECTOR_AUTH,
	STAMP_A_REFLECTOR_ERR_EST,
	STAMP_A_REFLECTOR_EARLY_TS,
	STAMP_A_REFLECTOR_SPORT_MIN,
	STAMP_A_REFLECTOR_STATS,
	STAMP_A_REFLECTOR_ALTMARK,

	__STAMP_A_REFLECTOR_MAX,
	STAMP_A_REFLECTOR_MAX = (__STAMP_A_REFLECTOR_MAX - 1)
};

enum {
	STAMP_A_SESSION_SSID = 1,
	STAMP_A_SESSION_PEER4,
	STAMP_A_SESSION_PEER6,
	STAMP_A_SESSION_SEGS,
	STAMP_A_SESSION_KEY,
	STAMP_A_SESSION_HAS_KEY,
	STAMP_A_SESSION_SEQ,
	STAMP_A_SESSION_STATS,

	__STAMP_A_SESSION_MAX,
	STAMP_A_SESSION_MAX = (__STAMP_A_SESSION_MAX - 1)
};

enum {
	STAMP_A_STATS_RX = 1,
	STAMP_A_STATS_TX,
	STAMP_A_STATS_DROP_MALFORMED,
	STAMP_A_STATS_DROP_AUTH,
	STAMP_A_STATS_DROP_NO_SESSION,
	STAMP_A_STATS_DROP_XMIT,
	STAMP_A_STATS_DROP_SOURCE,
	STAMP_A_STATS_DROP_REFLECTED,
	STAMP_A_STATS_TLV_MALFORMED,
	STAMP_A_STATS_TLV_UNKNOWN,
	STAMP_A_STATS_TLV_LIMIT,
	STAMP_A_STATS_ALTMARK_BLOCKS,
	STAMP_A_STATS_ALTMARK_REFUSED,
	STAMP_A_STATS_PAD,

	__STAMP_A_STATS_MAX,
	STAMP_A_STATS_MAX = (__STAMP_A_STATS_MAX - 1)
};

enum {
	STAMP_CMD_REFLECTOR_ADD = 1,
	STAMP_CMD_REFLECTOR_SET,
	STAMP_CMD_REFLECTOR_DEL,
	STAMP_CMD_REFLECTOR_GET,
	STAMP_CMD_SESSION_ADD,
	STAMP_CMD_SESSION_SET,
	STAMP_CMD_SESSION_DEL,
	STAMP_CMD_SESSION_GET,

	__STAMP_CMD_MAX,
	STAMP_CMD_MAX = (__STAMP_CMD_MAX - 1)
};

#endif /* _UAPI_LINUX_STAMP_H */
