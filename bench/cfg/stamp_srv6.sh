#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# STAMP reflection, mode srv6: see stamp_reflect.sh.
exec bash "$(dirname "$0")/stamp_reflect.sh" "$1" "$2" srv6 ${3:-}
