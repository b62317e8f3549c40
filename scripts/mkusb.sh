#!/bin/sh
# Write a bootable USB-stick image: GPT with one EFI System Partition
# (FAT32, starting at 1 MiB) holding EFI/BOOT/BOOTX64.EFI and mhv.cfg.
#   mkusb.sh IMAGE BOOTX64.EFI MHV.CFG
# Needs sfdisk (fdisk) and mtools; no root, no loop devices.
set -eu
img=$1 efi=$2 cfg=$3
# 130 cylinders x 16 heads x 63 sectors (~64 MiB): a geometry Bochs can
# boot as an ATA disk, and enough for FAT32 (at least 65525 clusters)
sectors=$((130 * 16 * 63))
esp_type=C12A7328-F81F-11D2-BA4B-00A0C93EC93B # UEFI spec §5.3.3
rm -f "$img"
dd if=/dev/zero of="$img" bs=512 count=$sectors status=none
printf 'label: gpt\nstart=2048, type=%s, name="MHV-ESP"\n' "$esp_type" | sfdisk -q "$img"
mformat -i "$img@@1M" -F -v MHV ::
mmd -i "$img@@1M" ::/EFI ::/EFI/BOOT
mcopy -i "$img@@1M" "$efi" ::/EFI/BOOT/BOOTX64.EFI
mcopy -i "$img@@1M" "$cfg" ::/mhv.cfg
echo "mkusb: $img: GPT, EFI System Partition (FAT32) with EFI/BOOT/BOOTX64.EFI and mhv.cfg"
