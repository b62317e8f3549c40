#!/bin/sh
# Refuse an image OVMF would refuse: nothing but .hash may be placed below
# 0x1000, where the PE headers go (ld.lld places orphan sections there; OVMF
# then refuses the image as "Unsupported").
so=$1
bad=""
for sec in $(readelf -SW "$so" | sed -n 's/^ *\[ *[0-9]*\] \(\.[^ ]*\) *[A-Z_]* *\([0-9a-f]*\) .*/\1:\2/p'); do
	name=${sec%%:*}
	addr=$((0x${sec##*:}))
	[ "$addr" -ne 0 ] && [ "$addr" -lt 4096 ] && [ "$name" != .hash ] && bad="$bad $name"
done
if [ -n "$bad" ]; then
	echo "check-image: sections below 0x1000 would overlap the PE headers:$bad" >&2
	rm -f "$2"
	exit 1
fi
exit 0
