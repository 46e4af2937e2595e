#!/bin/sh
# CONFIGS: debug
# TIMEOUT: 900
#
# The kernel's own page allocator test modules (tests we did not write),
# run in the debug kernel: each must load (a failing self-test refuses to
# load) and unload. test_free_pages takes about a minute and a half here.

. /etc/allocprof/ktap.sh

MODULES="test_free_pages"

ktap_plan $(echo $MODULES | wc -w)
for m in $MODULES; do
	if ! grep -q "/$m\.ko" "/lib/modules/$(uname -r)/modules.dep"; then
		ktap_skip "$m" "not built in this config"
		continue
	fi
	ktap_check "$m loads and unloads" sh -c "modprobe $m && modprobe -r $m"
done
