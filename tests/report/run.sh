#!/bin/sh
# Unit tests of scripts/mhv-report; the exit status is unittest's.
cd "$(dirname "$0")/../.." || exit 2
exec python3 -m unittest discover -s tests/report -v
