#!/bin/sh
# The exit-path performance gate.  Under Bochs RDTSC counts retired
# instructions, so a test's median is an exact, repeatable instruction
# count.  Usage:
#   bench-gate.sh check BASELINE CASE=LOG...   fail on growth over 2%
#   bench-gate.sh write BASELINE CASE=LOG...   rewrite the baseline
#   bench-gate.sh add BASELINE CASE=LOG...     add the tests of each case that
#       the baseline does not have yet, read from its log as write does; the
#       lines already there stay as they are.  A new test goes after the test
#       that comes before it in the log (the place write would give it), or
#       before the case's first line; a case new to the baseline goes at the
#       end.  One Bochs run of the case that has the new test, not a rewrite.
# Prints one "PASS name" / "FAIL name: why" line per test (check); a test
# missing from the baseline fails with the add command to run.
# KVM's rows (scripts/kvm/mhv-kvm: "hypervisor":"kvm", config kvm*) are the
# other side of the comparison: they fail when they move either way by
# more than KVM_TOLERANCE percent (docs/kvm.md says why 3); rows KVM
# answers in user space ("not_comparable") are not gated.
set -u
KVM_TOLERANCE=${KVM_TOLERANCE:-3}
usage="usage: bench-gate.sh check|write|add BASELINE CASE=LOG..."
[ $# -ge 2 ] || { echo "bench-gate: $usage" >&2; exit 2; }
mode=$1 baseline=$2
shift 2
case $mode in
check | write | add) ;;
*) echo "bench-gate: unknown mode '$mode': $usage" >&2; exit 2 ;;
esac
if [ "$mode" != write ] && [ ! -f "$baseline" ]; then
	echo "bench-gate: no baseline $baseline (make bench-baseline writes one)" >&2
	exit 2
fi
tmp=$(mktemp)
trap 'rm -f "$tmp" "$tmp.fail" "$tmp.new" "$tmp.added"' EXIT
for arg in "$@"; do
	case_name=${arg%%=*} log=${arg#*=}
	if ! grep -aq '^MHV-JSON ' "$log" 2>/dev/null; then
		echo "FAIL gate/$case_name: no measurements in $log" >>"$tmp.fail"
		continue
	fi
	# key: the test name, with @configuration for columns other than default;
	# then, where the emulator counts them (the pinned Bochs), the costly
	# instructions per iteration: the classes that occur, "none" if none does
	grep -a '^MHV-JSON ' "$log" | grep -v '"skipped"\|"not_comparable"' | while read -r line; do
		key=$(echo "$line" |
			sed -n 's/.*"test":"\([^"]*\)","config":"\([^"]*\)".*"median":\([0-9]*\).*/\1@\2 \3/p' |
			sed 's/@default / /')
		[ -n "$key" ] || continue
		case $line in
		*'"classes":{'*)
			classes=$(echo "$line" | sed 's/.*"classes":{\([^}]*\)}.*/\1/' | tr ',' '\n' |
				grep -v ':0$' | sed 's/"//g; s/:/=/' | paste -sd, -)
			echo "$case_name $key ${classes:-none}" ;;
		*) echo "$case_name $key" ;;
		esac
	done
done >"$tmp"
touch "$tmp.fail"
if [ "$mode" = write ] && [ -s "$tmp.fail" ]; then
	cat "$tmp.fail"
	echo "bench-gate: $baseline left as it was" >&2
	exit 1
fi
if [ "$mode" = write ]; then
	{
		echo "# Exit-path baseline: median retired instructions per iteration under Bochs"
		echo "# (RDTSC counts instructions), guest loop included.  make test fails when a"
		echo "# test grows by more than 2%; make bench-baseline rewrites this file."
		echo "# The pinned Bochs' cases add the costly instructions per iteration by class"
		echo "# (docs/exit-gate.md), held exactly: any change fails."
		echo "# case test median [classes]"
		cat "$tmp"
	} >"$baseline"
	echo "bench-gate: wrote $(wc -l <"$tmp") baselines to $baseline"
	exit 0
fi
if [ "$mode" = add ]; then
	status=0
	[ -s "$tmp.fail" ] && status=1
	for arg in "$@"; do
		case_name=${arg%%=*}
		# the case's measurements in log order; the baseline's lines kept
		# byte for byte, each new one after the log's test before it
		awk -v c="$case_name" -v tmpf="$tmp" '
		BEGIN {
			while ((getline l < tmpf) > 0) {
				split(l, f, " ")
				if (f[1] == c)
					m[++nm] = l
			}
		}
		{ line[++n] = $0 }
		!/^#/ && $1 == c {
			at[$2] = n
			if (!first)
				first = n
		}
		END {
			anchor = 0
			for (i = 1; i <= nm; i++) {
				split(m[i], f, " ")
				if (f[2] in at) {
					anchor = at[f[2]]
					continue
				}
				after[anchor] = after[anchor] m[i] "\n"
				added = added " " f[2]
				at[f[2]] = anchor
			}
			for (i = 1; i <= n; i++) {
				if (i == first && (0 in after))
					printf "%s", after[0]
				print line[i]
				if (i in after)
					printf "%s", after[i]
			}
			if (!first && (0 in after))
				printf "%s", after[0]
			print added > "/dev/stderr"
		}' "$baseline" >"$tmp.new" 2>"$tmp.added" && mv "$tmp.new" "$baseline" || status=1
		added=$(cat "$tmp.added")
		rm -f "$tmp.added"
		if [ -n "$added" ]; then
			echo "bench-gate: $case_name: added$added to $baseline"
		else
			echo "bench-gate: $case_name: nothing new for $baseline"
		fi
	done
	cat "$tmp.fail"
	exit $status
fi
cat "$tmp.fail"
while read -r case_name test median classes; do
	old=$(awk -v c="$case_name" -v t="$test" '$1 == c && $2 == t { print $3 }' "$baseline")
	old_classes=$(awk -v c="$case_name" -v t="$test" '$1 == c && $2 == t { print $4 }' "$baseline")
	# one more WRMSR or CPUID on an exit path fails, whatever the instructions say
	if [ -n "$old" ] && [ "$classes" != "$old_classes" ]; then
		echo "FAIL gate/$case_name/$test/classes: ${classes:-not counted} per iteration, baseline ${old_classes:-not counted}"
	elif [ -n "$old_classes" ]; then
		echo "PASS gate/$case_name/$test/classes ($classes)"
	fi
	if [ -z "$old" ]; then
		log=
		for arg in "$@"; do [ "${arg%%=*}" = "$case_name" ] && log=${arg#*=}; done
		echo "FAIL gate/$case_name/$test: $median instructions, not in the baseline: run sh scripts/bench-gate.sh add $baseline $case_name=$log"
	elif case "$test" in *@kvm*) true ;; *) false ;; esac; then
		diff=$((median > old ? median - old : old - median))
		if [ $((diff * 100)) -gt $((old * KVM_TOLERANCE)) ]; then
			echo "FAIL gate/$case_name/$test: KVM's $median instructions, baseline $old (moved over $KVM_TOLERANCE%)"
		else
			echo "PASS gate/$case_name/$test (KVM's $median instructions, baseline $old)"
		fi
	elif [ $((median * 100)) -gt $((old * 102)) ]; then
		echo "FAIL gate/$case_name/$test: $median instructions, baseline $old (+$(((median - old) * 1000 / old / 10)).$(((median - old) * 1000 / old % 10))%, over 2%)"
	else
		echo "PASS gate/$case_name/$test ($median instructions, baseline $old)"
	fi
done <"$tmp"
# only the cases given: a case not run here (bochs-zen5-pmu without the pinned
# Bochs) is not a missing measurement
cases=" "
for arg in "$@"; do cases="$cases${arg%%=*} "; done
awk '!/^#/ && NF >= 3 { print $1, $2 }' "$baseline" | while read -r case_name test; do
	case "$cases" in *" $case_name "*) ;; *) continue ;; esac
	grep -q "^$case_name $test " "$tmp" ||
		echo "FAIL gate/$case_name/$test: in the baseline but not measured"
done
