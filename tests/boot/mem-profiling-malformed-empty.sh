#!/bin/sh
# CONFIGS: profiling debug
# APPEND: sysctl.vm.mem_profiling=
#
# A malformed value boots, warns once and falls back to the Kconfig default
# (enabled in these configs).
. /etc/allocprof/ktap.sh
. /etc/allocprof/lib/mem_profiling.sh

ktap_plan 4
ktap_check "malformed '': warned once" malformed_warnings 1
ktap_check "malformed '': default state (1)" sysctl_is 1
ktap_check "malformed '': page_ext reserved" page_ext_allocated
ktap_check "malformed '': no sysctl.* boot errors" no_sysctl_arg_errors
