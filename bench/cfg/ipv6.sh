#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Plain IPv6 forwarding: the baseline.  ipv6_N: in frames of N bytes,
# whatever the experiment's size (the baseline of a behaviour that sets its
# own, e.g. an authenticated STAMP test packet).

. "$(dirname "$0")/common.sh"

sut_routes
FRAME_SIZE=${3:-} traffic 6
