# Host unit tests of the log kept across a reboot against a model of the
# variable store: the hypervisor's store (hv/platform/log_keep.c) and the
# loader's recovery (boot/kept_log_file.c, built with GNU-EFI's headers).
UNIT_TESTS += kept_log
UNIT_SRCS_kept_log := tests/unit/test_kept_log.c tests/unit/var_store.c \
	tests/unit/kept_log_fake_rt.c tests/unit/kept_log_fake_efi.c \
	hv/platform/log_keep.c hv/platform/console_log.c boot/kept_log_file.c hv/lib/fmt.c
UNIT_CFLAGS_kept_log := -idirafter $(GNUEFI_INC) -idirafter $(GNUEFI_INC)/x86_64 \
	-DGNU_EFI_USE_MS_ABI -fshort-wchar -Wno-sign-compare
