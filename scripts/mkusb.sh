#!/bin/sh
# Write a bootable USB-stick image: GPT with one EFI System Partition
# (FAT32, starting at 1 MiB) holding EFI/BOOT/BOOTX64.EFI and mhv.cfg.
#   mkusb.sh IMAGE BOOTX64.EFI MHV.CFG
# Needs sfdisk (fdisk) and mtools; no root, no loop devices.
set -eu
img=$1 efi=$2 cfg=$3
size_mib=64 # FAT32 wants at least 65525 clusters: 62 MiB of 512-byte clusters
esp_type=C12A7328-F81F-11D2-BA4B-00A0C93EC93B # UEFI spec §5.3.3
rm -f "$img"
dd if=/dev/zero of="$img" bs=1M count=$size_mib status=none
printf 'label: gpt\nstart=2048, type=%s, name="MHV-ESP"\n' "$esp_type" | sfdisk -q "$img"
mformat -i "$img@@1M" -F -v MHV ::
mmd -i "$img@@1M" ::/EFI ::/EFI/BOOT
mcopy -i "$img@@1M" "$efi" ::/EFI/BOOT/BOOTX64.EFI
mcopy -i "$img@@1M" "$cfg" ::/mhv.cfg
echo "mkusb: $img: GPT, EFI System Partition (FAT32) with EFI/BOOT/BOOTX64.EFI and mhv.cfg"
