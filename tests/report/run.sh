#!/bin/sh
# Unit tests of scripts/report.py; the exit status is unittest's.
cd "$(dirname "$0")/../.." || exit 2
exec python3 -m unittest discover -s tests/report -v
