#!/bin/sh
# One definition of each macro under hv/ (issue 14): prints one line
# "NAME: file1 file2 ..." for every name that two or more files #define,
# and exits 1; exits 0, silent, when every name has one home.
#
# What counts:
# - A file counts once per name, however often it defines it: #ifdef
#   alternatives (HOST_TEST or not) are one definition.  Two files are two
#   definitions even when #if keeps them apart.
# - A name that a file also #undefs is that file's private helper (an
#   X-macro's F() defined, used and dropped) and is not counted there.
# - Include guards need no exception: each header has its own, and two
#   headers that share one hide each other, which deserves the failure.
# - Only C: *.c, *.h and *.inc files.  NASM's %define is not C.
#
# Usage: scripts/check-defines.sh [DIR]   (default: hv)
set -u
cd "$(dirname "$0")/.."
dir=${1:-hv}

# "d NAME FILE" per #define, "u NAME FILE" per #undef
find "$dir" -type f \( -name '*.c' -o -name '*.h' -o -name '*.inc' \) -exec awk '
/^[ \t]*#[ \t]*(define|undef)[ \t]/ {
	line = $0
	sub(/^[ \t]*#[ \t]*/, "", line)
	kind = substr(line, 1, 1)
	sub(/^[a-z]+[ \t]+/, "", line)
	if (match(line, /^[A-Za-z_][A-Za-z_0-9]*/))
		print kind, substr(line, 1, RLENGTH), FILENAME
}' {} + | LC_ALL=C sort -u | awk '
$1 == "u" { undef[$2 " " $3] = 1; next }
{ name[++n] = $2; file[n] = $3 }
END {
	bad = 0
	for (i = 1; i <= n; i++) {
		if ((name[i] " " file[i]) in undef)
			continue
		if (name[i] == last) {
			files = files " " file[i]
			count++
			continue
		}
		if (count > 1) {
			print last ": " files
			bad = 1
		}
		last = name[i]
		files = file[i]
		count = 1
	}
	if (count > 1) {
		print last ": " files
		bad = 1
	}
	exit bad
}'
