#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# IOAM, mode ns: see ioam.sh.
exec bash "$(dirname "$0")/ioam.sh" "$1" "$2" ns "${3:-1}"
