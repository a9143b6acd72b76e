#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# PF-PLM, egress, sets method, counting per colour, N flows: see plm.sh.
exec bash "$(dirname "$0")/plm.sh" "$1" "$2" egress sets colour "${3:-1}"
