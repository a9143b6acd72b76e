/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What the series' net/stamp uses of a newer 6.1 than some of Debian's
 * 6.1 kernels.  dkms/Kbuild compiles stamp_rx.c with -include compat.h
 * where the kernel's headers lack it: dst_rt6_info() came to 6.1 with a
 * stable update (Debian's 6.1.0-57 has it in net/ip6_fib.h, 6.1.0-50 does
 * not).  A macro, expanded where it is used, after net/ip6_fib.h.
 */
#ifndef SRV6_OAM_DKMS_COMPAT_H
#define SRV6_OAM_DKMS_COMPAT_H

#define dst_rt6_info(_ptr) container_of(_ptr, struct rt6_info, dst)

#endif
