#!/bin/sh
# Run libFuzzer harnesses: run.sh SECONDS NAME...
# Each starts from tests/fuzz/seeds/NAME (copied, so the repository stays
# clean) and runs for SECONDS; a crash, leak or sanitizer report fails it
# and leaves the reproducer in build/fuzz/ (printed, with how to replay it).
# Prints one line per harness: "PASS fuzz/NAME: N runs in S s" or FAIL.
set -u
secs=$1
shift
status=0
for name in "$@"; do
	bin=build/fuzz/fuzz_$name
	corpus=build/fuzz/corpus-$name
	mkdir -p "$corpus"
	cp tests/fuzz/seeds/"$name"/* "$corpus"/ 2>/dev/null
	log=build/fuzz/$name.log
	if "$bin" -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 \
		-artifact_prefix=build/fuzz/"$name"- "$corpus" >"$log" 2>&1; then
		runs=$(sed -n 's/^Done \([0-9]*\) runs.*/\1/p' "$log" | tail -n 1)
		echo "PASS fuzz/$name: ${runs:-?} runs in ${secs} s"
	else
		repro=$(sed -n 's/.*Test unit written to \(.*\)$/\1/p' "$log" | tail -n 1)
		why=$(grep -E 'ERROR: |SUMMARY: ' "$log" | head -n 1)
		echo "FAIL fuzz/$name: $why; reproducer $repro (replay: $bin $repro); log $log"
		status=1
	fi
done
exit $status
