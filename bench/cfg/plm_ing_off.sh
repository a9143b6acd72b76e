#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# PF-PLM, ingress, no monitoring (H.Encaps alone): see plm.sh.
exec bash "$(dirname "$0")/plm.sh" "$1" "$2" ingress off
