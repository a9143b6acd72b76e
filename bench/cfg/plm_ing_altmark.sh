#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Alternate-Marking, ingress, N monitors: see plm_altmark.sh.
exec bash "$(dirname "$0")/plm_altmark.sh" "$1" "$2" ingress "${3:-1}"
