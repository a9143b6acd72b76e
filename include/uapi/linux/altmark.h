/* SPDX-License-Identifier: ((GPL-2.0 WITH Linux-syscall-note) OR BSD-3-Clause) */
/* Do not edit directly, auto-generated from: */
/*	Documentation/netlink/specs/altmark.yaml */
/* YNL-GEN uapi header */

#ifndef _UAPI_LINUX_ALTMARK_H
#define _UAPI_LINUX_ALTMARK_H

#define ALTMARK_FAMILY_NAME	"altmark"
#define ALTMARK_FAMILY_VERSION	1

#define ALTMARK_FLOWMON_MAX	1048575
#define ALTMARK_HISTORY_DEFAULT	16
#define ALTMARK_HISTORY_MAX	32

/**
 * enum altmark_place - Where the ingress puts the option (RFC 9343, section
 *   4).
 * @ALTMARK_PLACE_HOP: A Hop-by-Hop Options header, read by every node on the
 *   path.
 * @ALTMARK_PLACE_SEGMENT: A Destination Options header before the Segment
 *   Routing Header, read by every segment endpoint.
 * @ALTMARK_PLACE_DEST: A Destination Options header after the Segment Routing
 *   Header, read by the final destination only.
 */
enum altmark_place {
	ALTMARK_PLACE_HOP,
	ALTMARK_PLACE_SEGMENT,
	ALTMARK_PLACE_DEST,

	/* private: */
	__ALTMARK_PLACE_MAX,
	ALTMARK_PLACE_MAX = (__ALTMARK_PLACE_MAX - 1)
};

/**
 * enum altmark_block_flags
 * @ALTMARK_BLOCK_FLAGS_PARTIAL: The monitor was created during the block: its
 *   counts are of the block's part since then.
 * @ALTMARK_BLOCK_FLAGS_UNSURE: The block was closed late (after the next block
 *   of its colour began) or the block before it of its colour was not closed:
 *   its counts may hold packets of other blocks.
 * @ALTMARK_BLOCK_FLAGS_DMARK: A double-marked (D flag) packet of the block was
 *   counted.
 */
enum altmark_block_flags {
	ALTMARK_BLOCK_FLAGS_PARTIAL = 1,
	ALTMARK_BLOCK_FLAGS_UNSURE = 2,
	ALTMARK_BLOCK_FLAGS_DMARK = 4,
};

enum {
	ALTMARK_A_MONITOR_FLOWMON = 1,
	ALTMARK_A_MONITOR_HISTORY,
	ALTMARK_A_MONITOR_PERIOD_MS,
	ALTMARK_A_MONITOR_COUNTERS,
	ALTMARK_A_MONITOR_BLOCK,

	__ALTMARK_A_MONITOR_MAX,
	ALTMARK_A_MONITOR_MAX = (__ALTMARK_A_MONITOR_MAX - 1)
};

enum {
	ALTMARK_A_COUNTERS_COLOUR = 1,
	ALTMARK_A_COUNTERS_PACKETS,
	ALTMARK_A_COUNTERS_BYTES,
	ALTMARK_A_COUNTERS_PAD,

	__ALTMARK_A_COUNTERS_MAX,
	ALTMARK_A_COUNTERS_MAX = (__ALTMARK_A_COUNTERS_MAX - 1)
};

enum {
	ALTMARK_A_BLOCK_NUMBER = 1,
	ALTMARK_A_BLOCK_PACKETS,
	ALTMARK_A_BLOCK_BYTES,
	ALTMARK_A_BLOCK_TS_SUM,
	ALTMARK_A_BLOCK_DMARK_NS,
	ALTMARK_A_BLOCK_FLAGS,
	ALTMARK_A_BLOCK_PAD,

	__ALTMARK_A_BLOCK_MAX,
	ALTMARK_A_BLOCK_MAX = (__ALTMARK_A_BLOCK_MAX - 1)
};

enum {
	ALTMARK_CMD_MONITOR_ADD = 1,
	ALTMARK_CMD_MONITOR_DEL,
	ALTMARK_CMD_MONITOR_GET,

	__ALTMARK_CMD_MAX,
	ALTMARK_CMD_MAX = (__ALTMARK_CMD_MAX - 1)
};

#endif /* _UAPI_LINUX_ALTMARK_H */
