#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Plain IPv4 forwarding.

. "$(dirname "$0")/common.sh"

sut_routes
traffic 4
