#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# STAMP reflection, mode auth: see stamp_reflect.sh.
exec bash "$(dirname "$0")/stamp_reflect.sh" "$1" "$2" auth ${3:-}
