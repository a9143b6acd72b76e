// SPDX-License-Identifier: GPL-2.0-only
/* Module information of the DKMS build of ip6t_srh (dkms/Kbuild): the
 * stock srh match plus the series' revision 2 (SID list).
 *
 * It needs a version: DKMS compares the module it installs with the
 * kernel's own ip6t_srh, which has none, and two modules without a version
 * "exactly match", so DKMS would refuse to install this one.  With a
 * version the comparison is undecided and DKMS installs it, in
 * updates/dkms/, which depmod searches before kernel/.
 */
#include <linux/module.h>

MODULE_VERSION(SRV6_OAM_VERSION);
MODULE_INFO(srv6_oam, "srh match revisions 0, 1 and 2 (SID list), out of tree");
