#!/bin/sh
# SPDX-License-Identifier: MIT
# make kvm-run: mhv's vmexit guest under this machine's KVM (scripts/kvm/
# mhv-kvm), its console into LOG for scripts/mhv-report kvm.
#   run.sh MHV_KVM GUEST_DIR LOG [mhv-kvm options...]
# Exit status: mhv-kvm's (77: no usable KVM here, a skip).
prog=$1 guests=$2 log=$3
shift 3
"$prog" --guests "$guests" --suite vmexit "$@" >"$log"
status=$?
cat "$log"
if [ "$status" = 0 ]; then
	echo "kvm-run: $log; beside mhv's log of this machine:" \
		"scripts/mhv-report kvm MHV_LOG $log --plot side-by-side.png"
fi
exit "$status"
