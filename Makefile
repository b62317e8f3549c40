# mhv — build, run and test.  `make run` and `make test` are the two
# commands a newcomer needs (README.md).

B := build
EFI := $(B)/esp/EFI/BOOT/BOOTX64.EFI

CC := clang
LD := ld.lld
NASM := nasm
OBJCOPY := objcopy
HOSTCC := gcc

GNUEFI_INC := /usr/include/efi
GNUEFI_LIB := /usr/lib

# MHV_TEST_CFLAGS: test-only builds, by hand (e.g. -DMHV_TEST_FIRMWARE_CR4_MCE_CLEAR,
# -DMHV_TEST_NO_CR4_MCE: host/nmi_mce.c; -DMHV_TEST_LATE_AP=1 or 2: the first AP answers,
# or ends its set-up, after the BSP's time-out, host/smp.c); make test uses none.
# The hypervisor is freestanding, position independent (GNU-EFI's crt0
# relocates it) and never touches FPU/SIMD state: guest FPU/SSE/AVX
# registers stay loaded across exits and are never switched on the hot path.
KCFLAGS := -target x86_64-pc-linux-gnu -std=gnu11 -ffreestanding -fpic -fshort-wchar \
	-mno-red-zone -mgeneral-regs-only -fno-stack-protector -fno-asynchronous-unwind-tables \
	-fno-strict-aliasing -O2 -g0 -Wall -Wextra -Werror -Wno-unused-parameter \
	-Ihv -I. -I$(B) -MMD -MP $(MHV_TEST_CFLAGS)
BOOT_CFLAGS := $(KCFLAGS) -DGNU_EFI_USE_MS_ABI -I$(GNUEFI_INC) -I$(GNUEFI_INC)/x86_64 \
	-Wno-sign-compare
NASMFLAGS := -f elf64 -Ihv/ -I$(B)/hv/ -I$(B)/guest/

# Guests: flat 64-bit images linked at their load address, embedded as blobs.
GCFLAGS := -target x86_64-pc-linux-gnu -std=gnu11 -ffreestanding -fno-pic -mcmodel=small \
	-mno-red-zone -mgeneral-regs-only -fno-stack-protector -fno-asynchronous-unwind-tables \
	-O2 -Wall -Wextra -Werror -Wno-unused-parameter -Iguest-tests -Iguest-tests/rt -Ihv -MMD -MP

# core/asm_offsets.c is compiled to assembly only (asm_offsets.inc below).
HV_C := $(filter-out hv/core/asm_offsets.c,$(wildcard hv/*.c hv/*/*.c))
HV_ASM := $(wildcard hv/*/*.asm)
HV_OBJ := $(HV_C:%.c=$(B)/%.o) $(HV_ASM:%.asm=$(B)/%.o)
BOOT_OBJ := $(B)/boot/efi_main.o $(B)/boot/kept_log_file.o $(B)/boot/secure_boot.o

GUEST_SUITES := smoke vmexit xstate pmu hostile fuzz
GUEST_RT_C := $(wildcard guest-tests/rt/*.c)
# The guests reuse the hypervisor's printf and string routines.
GUEST_RT_OBJ := $(GUEST_RT_C:%.c=$(B)/%.o) $(B)/guest-tests/rt/entry.o $(B)/guest-tests/rt/simd.o \
	$(B)/guest-tests/rt/probe_ops.o \
	$(B)/guest-tests/lib/fmt.o $(B)/guest-tests/lib/string.o
GUEST_BINS := $(GUEST_SUITES:%=$(B)/guest/%.bin)

.PHONY: all run test unit emu-test deps clean format format-check bench-baseline usb fuzz fuzz-build \
	kut bochs kut-test kut-reference kut-expect kut-check pmutest linux-guest perf-fuzz-soak linuxload docs-tables \
	kvm-side kvm-run kvm-guest kvm-nested fuzz-soak fuzz-bare fuzz-diff
.SECONDARY:
all: $(EFI)

deps:
	@sh scripts/deps.sh

$(B)/boot/%.o: boot/%.c
	@mkdir -p $(@D)
	@echo '  CC      $<'
	@$(CC) $(BOOT_CFLAGS) -c $< -o $@

$(B)/hv/%.o: hv/%.c
	@mkdir -p $(@D)
	@echo '  CC      $<'
	@$(CC) $(KCFLAGS) -c $< -o $@

# The entry code's offsets into struct vcpu, generated from the C struct:
# each "->NAME value" marker of the compiled core/asm_offsets.c becomes a
# NASM %define (clang prints an "i" operand's value bare with %c).
$(B)/hv/core/asm_offsets.inc: hv/core/asm_offsets.c
	@mkdir -p $(@D)
	@echo '  GEN     $@'
	@$(CC) $(KCFLAGS) -MT $@ -MF $(B)/hv/core/asm_offsets.d -S $< -o $(@:.inc=.s)
	@{ echo '; generated from hv/core/asm_offsets.c: do not edit'; \
	  sed -n 's/.*->\([A-Z_0-9]*\) \([0-9]*\).*/%define \1 \2/p' $(@:.inc=.s); } >$@.tmp
	@test $$(grep -c define $@.tmp) -eq $$(grep -c '^	ASM_OFFSET(' $<) || \
		{ echo "asm_offsets: $$(grep -c define $@.tmp) offsets read from $(@:.inc=.s)" >&2; exit 1; }
	@mv $@.tmp $@
-include $(B)/hv/core/asm_offsets.d

# Dependencies in a pass of their own: NASM 2.16's -MD, while assembling,
# leaves out the %include files (core/guest_regs.inc); -M lists them.
$(B)/hv/%.o: hv/%.asm $(B)/hv/core/asm_offsets.inc
	@mkdir -p $(@D)
	@echo '  NASM    $<'
	@$(NASM) $(NASMFLAGS) -M -MP -MT $@ -MF $(@:.o=.d) $<
	@$(NASM) $(NASMFLAGS) -o $@ $<

# The version printed in every run's header: git describe, rewritten only
# when it changes so that a commit rebuilds one file.
MHV_VERSION := $(shell git describe --always --dirty --tags 2>/dev/null || echo unknown)
$(B)/version.h: FORCE
	@mkdir -p $(@D)
	@echo '#define MHV_VERSION "$(MHV_VERSION)"' > $@.tmp
	@cmp -s $@.tmp $@ && rm -f $@.tmp || mv $@.tmp $@
$(B)/hv/platform/machine.o: $(B)/version.h
.PHONY: FORCE
FORCE:

# The blobs are pulled in with incbin: rebuild when a guest changes.
$(B)/hv/lab/guest_blobs.o: $(GUEST_BINS)

# --apply-dynamic-relocs: GNU-EFI's crt0 relocates by adding the load base
# to the word in place (R_X86_64_RELATIVE), so the addend must be there too;
# lld leaves it only in .rela.dyn unless told.
# Every UEFI application here (mhv, pmutest, linuxload): its objects linked
# with GNU-EFI's crt0 and libraries into a shared object, then made a PE image.
define efi_link
@echo '  LD      $@'
@$(LD) -nostdlib -znocombreloc --hash-style=sysv -shared -Bsymbolic --no-undefined \
	--apply-dynamic-relocs -T linker.ld $(GNUEFI_LIB)/crt0-efi-x86_64.o $(filter %.o,$^) \
	-L$(GNUEFI_LIB) -lefi -lgnuefi -o $@
endef
define efi_image
@echo '  EFI     $@'
@$(OBJCOPY) -j .text -j .sdata -j .data -j .dynamic -j .dynsym -j .rel -j .rela \
	-j .rel.* -j .rela.* -j .reloc --target=efi-app-x86_64 --subsystem=10 $< $@
@sh scripts/check-image.sh $< $@
endef
$(B)/mhv.so: $(BOOT_OBJ) $(HV_OBJ) linker.ld
	$(efi_link)

$(EFI): $(B)/mhv.so
	@mkdir -p $(@D)
	$(efi_image)

$(B)/guest-tests/%.o: guest-tests/%.c
	@mkdir -p $(@D)
	@echo '  CC      $< (guest)'
	@$(CC) $(GCFLAGS) -c $< -o $@

$(B)/guest-tests/lib/%.o: hv/lib/%.c
	@mkdir -p $(@D)
	@echo '  CC      $< (guest)'
	@$(CC) $(GCFLAGS) -c $< -o $@

$(B)/guest-tests/%.o: guest-tests/%.asm
	@mkdir -p $(@D)
	@echo '  NASM    $< (guest)'
	@$(NASM) -f elf64 -MD $(@:.o=.d) -o $@ $<
# NASM's -MD leaves the %include files out (see hv/%.o above)
$(B)/guest-tests/rt/entry.o $(B)/guest-tests/rt/probe_ops.o: guest-tests/rt/fault_probe.inc

$(B)/guest/%.elf: $(B)/guest-tests/%.o $(GUEST_RT_OBJ) guest-tests/guest.ld
	@mkdir -p $(@D)
	@echo '  LD      $@'
	@$(LD) -nostdlib -static -T guest-tests/guest.ld $(GUEST_RT_OBJ) $< -o $@

# The fuzz guest's operations live apart: the bare build links them too.
FUZZ_OPS_OBJ := $(patsubst guest-tests/%.c,$(B)/guest-tests/%.o,$(wildcard guest-tests/fuzz/*.c))
$(B)/guest/fuzz.elf: $(B)/guest-tests/fuzz.o $(FUZZ_OPS_OBJ) $(GUEST_RT_OBJ) \
		guest-tests/guest.ld
	@mkdir -p $(@D)
	@echo '  LD      $@'
	@$(LD) -nostdlib -static -T guest-tests/guest.ld $(GUEST_RT_OBJ) $(B)/guest-tests/fuzz.o $(FUZZ_OPS_OBJ) -o $@

$(B)/guest/%.bin: $(B)/guest/%.elf
	@$(OBJCOPY) -O binary $< $@

# ---- host unit tests (cmocka, ASan + UBSan) ----
# The .d files (-MM): each binary rebuilds when any header it includes changes.
# UNIT_CFLAGS_name: a test's own flags (GNU-EFI's headers for boot/ code).
UNIT_CFLAGS := -std=gnu11 -g -O1 -Wall -Wextra -Werror -Wno-unused-parameter -fsanitize=address,undefined \
	-fno-sanitize-recover=all -fno-omit-frame-pointer -Ihv -I. -DHOST_TEST
UNIT_TESTS :=
include $(wildcard tests/unit/*.mk)
UNIT_BINS := $(UNIT_TESTS:%=$(B)/unit/test_%)

define unit_rule
$(B)/unit/test_$(1): $$(UNIT_SRCS_$(1))
	@mkdir -p $$(@D) $(B)/deps
	@echo '  HOSTCC  $$@'
	@$$(HOSTCC) $$(UNIT_CFLAGS) $$(UNIT_CFLAGS_$(1)) -o $$@ $$(UNIT_SRCS_$(1)) -lcmocka
	@$$(HOSTCC) $$(UNIT_CFLAGS) $$(UNIT_CFLAGS_$(1)) -MM -MP -MT $$@ $$(filter %.c,$$(UNIT_SRCS_$(1))) >$(B)/deps/$$(@F).d
endef
$(foreach t,$(UNIT_TESTS),$(eval $(call unit_rule,$(t))))

unit: $(UNIT_BINS)

# ---- the multiboot test kernel (docs/multiboot.md) ----
MB_CFLAGS := -target i386-unknown-none-elf -ffreestanding -fno-pic -mgeneral-regs-only -O2 \
	-fno-stack-protector -fno-builtin -Wall -Wextra -Werror
$(B)/multiboot/mbtest.elf: tests/multiboot/mbtest.c tests/multiboot/mbapic.c tests/multiboot/mbtest.h \
		tests/multiboot/start.asm tests/multiboot/identity_4g.inc tests/multiboot/link.ld hv/lib/guest_abi.h hv/lib/types.h
	@mkdir -p $(@D)
	@echo '  MBLD    $@'
	@$(CC) $(MB_CFLAGS) -c tests/multiboot/mbtest.c -o $(B)/multiboot/mbtest.o
	@$(CC) $(MB_CFLAGS) -c tests/multiboot/mbapic.c -o $(B)/multiboot/mbapic.o
	@$(NASM) -f elf32 -o $(B)/multiboot/start.o tests/multiboot/start.asm
	@$(LD) -m elf_i386 -T tests/multiboot/link.ld -o $@ $(B)/multiboot/start.o $(B)/multiboot/mbtest.o \
		$(B)/multiboot/mbapic.o
# Kernels mhv must refuse: too large for 2 MiB, and cut short.
$(B)/multiboot/mbtest-big.elf: $(B)/multiboot/mbtest.elf
	@$(CC) $(MB_CFLAGS) -DMBTEST_BIG -c tests/multiboot/mbtest.c -o $(B)/multiboot/mbtest-big.o
	@$(LD) -m elf_i386 -T tests/multiboot/link.ld -o $@ $(B)/multiboot/start.o \
		$(B)/multiboot/mbtest-big.o $(B)/multiboot/mbapic.o
$(B)/multiboot/truncated.elf: $(B)/multiboot/mbtest.elf
	@head -c 4200 $< >$@
MB_KERNELS := $(B)/multiboot/mbtest.elf $(B)/multiboot/mbtest-big.elf $(B)/multiboot/truncated.elf

# ---- the bare test of the pinned Bochs' PMU model (tests/pmu-bare, no mhv) ----
PMUTEST := $(B)/pmu-bare/pmutest.efi
$(B)/pmu-bare/%.o: tests/pmu-bare/%.c tests/pmu-bare/pmutest.h
	@mkdir -p $(@D)
	@echo '  CC      $<'
	@$(CC) $(BOOT_CFLAGS) -c $< -o $@
$(B)/pmu-bare/pmuasm.o: tests/pmu-bare/pmuasm.asm
	@mkdir -p $(@D)
	@echo '  NASM    $<'
	@$(NASM) -f elf64 -o $@ $<
$(B)/pmu-bare/pmutest.so: $(B)/pmu-bare/pmutest.o $(B)/pmu-bare/pmutest_intel.o \
		$(B)/pmu-bare/pmuasm.o linker.ld
	$(efi_link)
$(PMUTEST): $(B)/pmu-bare/pmutest.so
	$(efi_image)
pmutest: $(PMUTEST)

# ---- the bare run of the Linux guest (tests/linux-bare, no mhv) ----
LINUXLOAD := $(B)/linux-bare/linuxload.efi
$(B)/linux-bare/%.o: tests/linux-bare/%.c
	@mkdir -p $(@D)
	@echo '  CC      $<'
	@$(CC) $(BOOT_CFLAGS) -c $< -o $@
$(B)/linux-bare/linuxload.so: $(B)/linux-bare/linuxload.o linker.ld
	$(efi_link)
$(LINUXLOAD): $(B)/linux-bare/linuxload.so
	$(efi_image)
linuxload: $(LINUXLOAD)

# ---- fuzzing (clang libFuzzer, ASan + UBSan) ----
FUZZ_CFLAGS := -std=gnu11 -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all \
	-Wall -Wextra -Werror -Wno-unused-parameter -Ihv -I. -DHOST_TEST
include tests/fuzz/fuzz.mk
FUZZ_BINS := $(FUZZ_TARGETS:%=$(B)/fuzz/fuzz_%)
FUZZ_SECONDS ?= 60

define fuzz_rule
$(B)/fuzz/fuzz_$(1): $$(FUZZ_SRCS_$(1))
	@mkdir -p $$(@D) $(B)/deps
	@echo '  FUZZCC  $$@'
	@$$(CC) $$(FUZZ_CFLAGS) -o $$@ $$(FUZZ_SRCS_$(1))
	@$$(CC) $$(FUZZ_CFLAGS) -MM -MP -MT $$@ $$(FUZZ_SRCS_$(1)) >$(B)/deps/$$(@F).d
endef
$(foreach t,$(FUZZ_TARGETS),$(eval $(call fuzz_rule,$(t))))

fuzz-build: $(FUZZ_BINS)

# Each harness for FUZZ_SECONDS from its committed seeds; new corpus
# entries stay in build/fuzz/corpus-*.
fuzz: deps fuzz-build
	@sh tests/fuzz/run.sh $(FUZZ_SECONDS) $(FUZZ_TARGETS)

# ---- running ----
ACCEL ?= tcg
CPU ?= max
run: deps all
	@sh scripts/run-qemu.sh --accel $(ACCEL) --cpu $(CPU) --config scripts/run.cfg \
		--explain-status $(EFI)

# KUT and the pinned Bochs for the kvm-unit-tests cases, the Debian Linux
# guest for qemu-linux (each a one-line skip where it cannot be had).
test: deps all unit fuzz-build $(B)/fuzz-bare/fuzz-bare.flat $(MB_KERNELS) $(PMUTEST) $(LINUXLOAD) kut bochs linux-guest kvm-guest kvm-nested
	@KUT_OBJ=$(KUT_OUT)/obj sh tests/run-all.sh

# A USB-stick image: GPT + FAT32 EFI System Partition (README: Running on
# real hardware), its BOOTX64.EFI signed for Secure Boot when SB_KEY and
# SB_CERT name a PEM key and certificate (README: Secure Boot), else unsigned.
SB_KEY ?=
SB_CERT ?=
usb: deps all
	@if [ -n "$(SB_KEY)$(SB_CERT)" ]; then \
		[ -n "$(SB_KEY)" ] && [ -n "$(SB_CERT)" ] || \
			{ echo "make usb: signing needs both SB_KEY and SB_CERT" >&2; exit 2; }; \
		sh scripts/sign-efi.sh "$(SB_KEY)" "$(SB_CERT)" $(EFI) $(B)/signed/BOOTX64.EFI && \
		sh scripts/mkusb.sh $(B)/mhv-usb.img $(B)/signed/BOOTX64.EFI scripts/usb.cfg; \
	else \
		echo "make usb: BOOTX64.EFI unsigned: it boots only with Secure Boot off" \
			"(make usb SB_KEY=KEY.pem SB_CERT=CERT.pem signs it; README: Secure Boot)"; \
		sh scripts/mkusb.sh $(B)/mhv-usb.img $(EFI) scripts/usb.cfg; \
	fi

# Rewrite the exit-path baseline from fresh Bochs runs (both vendors, and the
# pinned Bochs' zen5 and skylake_pmu where make bochs built it).
bench-baseline: all $(LINUXLOAD)
	@for c in ryzen:bochs-ryzen corei7_skylake_x:bochs-skylake-x; do \
		sh scripts/run-bochs.sh --cpu $${c%%:*} --config tests/emu/bochs.cfg \
			--log $(B)/$${c#*:}.baseline.log $(EFI) || true; \
	done
	@pmu=""; pb=$$(sh scripts/build-bochs.sh --path); \
	if [ -x "$$pb" ]; then \
		for c in zen5:bochs-zen5-pmu skylake_pmu:bochs-skylake-pmu; do \
			sh scripts/run-bochs.sh --bochs "$$pb" --cpu $${c%%:*} \
				--config tests/emu/bochs.cfg \
				--log $(B)/$${c#*:}.baseline.log $(EFI) || true; \
			pmu="$$pmu $${c#*:}=$(B)/$${c#*:}.baseline.log"; \
		done; \
		if [ -f $(B)/kvm-guest/initrd.cpio ]; then \
			for c in zen5:bochs-kvm-zen5 skylake_pmu:bochs-kvm-skylake_pmu; do \
				sh scripts/run-bochs.sh --bochs "$$pb" --cpu $${c%%:*} --megs 1024 \
					--config tests/emu/linux-bochs-kvm.cfg --until 'mhv-linux: no ACPI' \
					--esp-file $(B)/linux-guest/vmlinuz \
					--esp-file $(B)/kvm-guest/initrd.cpio --timeout 600 \
					--com1 $(B)/$${c#*:}.baseline.log --log $(B)/$${c#*:}.e9 \
					$(LINUXLOAD) || true; \
				pmu="$$pmu $${c#*:}=$(B)/$${c#*:}.baseline.log"; \
			done; \
		fi; \
	fi; \
	sh scripts/bench-gate.sh write tests/emu/bench-baseline.txt \
		bochs-ryzen=$(B)/bochs-ryzen.baseline.log \
		bochs-skylake-x=$(B)/bochs-skylake-x.baseline.log $$pmu

# ---- the KVM side (scripts/kvm; README: Comparing with KVM on your machine) ----
# mhv's guests under Linux KVM: a Linux program built with the system
# compiler and linux-libc-dev's <linux/kvm.h>, static so that an initramfs
# needs nothing else; mhv's statistics, JSON lines and guest tables
# compiled for the host, as the unit tests compile them.
KVM_SIDE := $(B)/kvm/mhv-kvm
KVM_SIDE_SRCS := $(wildcard scripts/kvm/*.c) hv/lab/report.c hv/lab/report_classes.c \
	hv/platform/insn_class.c hv/lib/fmt.c hv/lib/stats.c hv/arch/pagetable.c hv/arch/guest_tables.c
KVM_ARGS ?=
$(KVM_SIDE): $(KVM_SIDE_SRCS) $(wildcard scripts/kvm/*.h) hv/lib/guest_abi.h hv/lab/report.h
	@mkdir -p $(@D)
	@echo '  HOSTCC  $@'
	@$(HOSTCC) -std=gnu11 -O2 -static -Wall -Wextra -Werror -Wno-unused-parameter -Ihv -I. \
		-DHOST_TEST -o $@ $(KVM_SIDE_SRCS) -pthread
kvm-side: $(GUEST_BINS) $(KVM_SIDE)
# The KVM side inside the pinned Bochs (make test's bochs-kvm-* cases):
# make linux-guest's Debian kernel, its KVM modules and mhv-kvm in an
# initramfs (a one-line skip without apt, as linux-guest)
kvm-guest: kvm-side linux-guest
	@python3 scripts/kvm/initramfs.py $(KVM_SIDE) $(B)/guest $(B)/kvm-guest
# mhv nested under KVM inside the pinned Bochs (make test's bochs-nested-*
# cases, docs/testing.md): make linux-guest's kernel and KVM modules as L0,
# this machine's QEMU and OVMF, mhv and tests/emu/nested.cfg with the
# kvm-unit-tests binary it names (a one-line skip without apt or QEMU)
NESTED_KUT = $(KUT_OUT)/obj/x86/xsave.flat
kvm-nested: all kut linux-guest
	@python3 scripts/kvm/nested.py $(EFI) tests/emu/nested.cfg $(B)/kvm-nested $(NESTED_KUT)
# The user's command: the vmexit suite under this machine's KVM, its log
# beside mhv's for scripts/mhv-report
kvm-run: deps kvm-side
	@sh scripts/kvm/run.sh $(KVM_SIDE) $(B)/guest $(B)/kvm.log $(KVM_ARGS)

# ---- the Linux guest (docs/linux-guest.md) ----
# A Debian kernel and an initramfs of Debian's busybox-static and linux-perf,
# fetched once into a cache outside the clone; a one-line skip without apt.
# with the perf_event fuzzer (tests/perf-fuzz), a static Linux program
# built with the system compiler, as /bin/perf-fuzz
PERF_FUZZ := $(B)/perf-fuzz/perf-fuzz
$(PERF_FUZZ): $(wildcard tests/perf-fuzz/*.c tests/perf-fuzz/*.h)
	@mkdir -p $(@D)
	@echo '  HOSTCC  $@'
	@$(HOSTCC) -std=gnu11 -O2 -static -Wall -Wextra -Werror -Wno-unused-parameter \
		-o $@ $(wildcard tests/perf-fuzz/*.c)
linux-guest: $(PERF_FUZZ)
	@python3 scripts/linux-guest.py $(B)/linux-guest $(PERF_FUZZ)
# The fuzzer's soak (scripts/perf-fuzz-soak.sh): SOAK_SECONDS of guest time
# per run, bare and under each PMU mode of SOAK_MODELS, with SEED (random:
# drawn and printed); one Bochs at a time
SOAK_SECONDS ?= 300
SOAK_MODELS ?= zen5 skylake_pmu
SEED ?= random
perf-fuzz-soak: all $(LINUXLOAD) bochs linux-guest
	@sh scripts/perf-fuzz-soak.sh $(SOAK_SECONDS) $(SEED) "$(SOAK_MODELS)" $(B)/perf-fuzz-soak

# ---- the fuzz guest on the bare emulator (docs/fuzz.md) ----
# The same objects as the mhv guest, with the bare hypercalls and a
# multiboot entry; an ELF32 wrapper of the 64-bit image, as kvm-unit-tests'
# x86_64 binaries are, for QEMU's -kernel.
FUZZ_BARE := $(B)/fuzz-bare/fuzz-bare.flat
FUZZ_BARE_RT := $(filter-out %/hypercall.o,$(GUEST_RT_OBJ))
$(B)/fuzz-bare/fuzz.o: guest-tests/fuzz.c
	@mkdir -p $(@D)
	@echo '  CC      $< (bare)'
	@$(CC) $(GCFLAGS) -DFUZZ_BARE -c $< -o $@
$(B)/fuzz-bare/bare_hc.o: tests/fuzz-bare/bare_hc.c
	@mkdir -p $(@D)
	@echo '  CC      $< (bare)'
	@$(CC) $(GCFLAGS) -c $< -o $@
$(B)/fuzz-bare/start.o: tests/fuzz-bare/start.asm tests/multiboot/identity_4g.inc
	@mkdir -p $(@D)
	@echo '  NASM    $< (bare)'
	@$(NASM) -f elf64 -o $@ $<
$(B)/fuzz-bare/fuzz-bare.elf: $(B)/fuzz-bare/start.o $(B)/fuzz-bare/fuzz.o $(B)/fuzz-bare/bare_hc.o \
		$(FUZZ_OPS_OBJ) $(FUZZ_BARE_RT) tests/fuzz-bare/bare.ld
	@echo '  LD      $@'
	@$(LD) -nostdlib -static -T tests/fuzz-bare/bare.ld $(filter %.o,$^) -o $@
$(FUZZ_BARE): $(B)/fuzz-bare/fuzz-bare.elf
	@$(OBJCOPY) -O elf32-i386 $< $@
fuzz-bare: $(FUZZ_BARE)

# The differential oracle alone: the kept seeds bare and under mhv.
fuzz-diff: all $(FUZZ_BARE)
	@rc=0; for seed in $$(sed 's/#.*//' tests/emu/fuzz-seeds.txt | grep -Eo '[0-9]+'); do \
		nice -n 10 sh tests/fuzz-bare/run.sh $$seed max || rc=1; done; exit $$rc

# ---- the fuzz suite's soak (docs/fuzz.md) ----
# Longer than make test's fuzz cases: the kept seeds, then SOAK_SEEDS new
# ones of SOAK_EXITS exits each, on QEMU and each Bochs model in turn.
SOAK_SEEDS ?= 20
SOAK_EXITS ?= 20000
fuzz-soak: all
	@rc=0; \
	for e in "qemu max" "bochs ryzen" "bochs corei7_skylake_x" "bochs-pmu zen5" \
		"bochs-pmu skylake_pmu"; do \
		set -- $$e; \
		nice -n 10 sh scripts/fuzz-soak.sh --emu $$1 --cpu $$2 --seed-list tests/emu/fuzz-seeds.txt \
			--exits $(SOAK_EXITS) || rc=1; \
		nice -n 10 sh scripts/fuzz-soak.sh --emu $$1 --cpu $$2 --seeds $(SOAK_SEEDS) \
			--exits $(SOAK_EXITS) || rc=1; \
	done; exit $$rc

# ---- kvm-unit-tests as mhv guests (docs/kvm-unit-tests.md) ----
# The sources stay outside the repository: KUT_SRC=DIR or the pinned
# snapshot (scripts/build-kut.sh, scripts/build-bochs.sh say where they look).
KUT_OUT := $(B)/kut
# ENV only from the command line: an inherited ENV is sh's start-up file.
KUT_ENV := $(if $(filter command line,$(origin ENV)),$(ENV),qemu)
KUT_TESTS ?=
KUT_JOBS ?= 2
KUT_EXPECT := tests/kut/expect.txt
KUT_RUN = python3 tests/kut/run.py --env $(KUT_ENV) --kut $(KUT_OUT)/obj --tests '$(KUT_TESTS)' \
	--jobs $(KUT_JOBS)
kut:
	@sh scripts/deps.sh kut
	@sh scripts/build-kut.sh $(KUT_OUT)

# The pinned Bochs, built once into a cache outside the clone.
bochs:
	@sh scripts/deps.sh bochs
	@sh scripts/build-bochs.sh

# Each KUT x86_64 test on the bare emulator and as mhv's guest: a table in
# build/kut/results-$(KUT_ENV).md.  ENV=qemu|bochs-vmx|bochs-svm|bochs-zen5|bochs-skylake-pmu, KUT_TESTS=
# names or patterns (test name or file stem, e.g. 'smptest vmexit*').
kut-test: deps all kut $(if $(filter bochs-%,$(KUT_ENV)),bochs)
	@$(if $(filter bochs-%,$(KUT_ENV)),sh scripts/deps.sh kut-bochs)
	@$(KUT_RUN)

# The bare reference of $(KUT_EXPECT) for ENV: the tests it lists there
# (all of KUT's default tests when it lists none), on the bare emulator.
kut-reference: deps all kut $(if $(filter bochs-%,$(KUT_ENV)),bochs)
	@$(if $(filter bochs-%,$(KUT_ENV)),sh scripts/deps.sh kut-bochs)
	@$(KUT_RUN) --only bare --write $(KUT_EXPECT)
	@$(DOCS_TABLES)

# The mhv side of $(KUT_EXPECT) for ENV rewritten from a run (a verdict that
# did not change keeps its reason), and the table in docs/ with it.
kut-expect: deps all kut $(if $(filter bochs-%,$(KUT_ENV)),bochs)
	@$(KUT_RUN) --only mhv --write $(KUT_EXPECT)
	@$(DOCS_TABLES)

# What make test runs for ENV: the mhv side judged by $(KUT_EXPECT).
kut-check: deps all kut $(if $(filter bochs-%,$(KUT_ENV)),bochs)
	@$(KUT_RUN) --check $(KUT_EXPECT) --out $(B)/kut-check

# The tables in docs/ that are generated from the files they describe,
# rewritten (make test's style/docs-tables fails while one is out of date):
# docs/kvm-unit-tests.md's from $(KUT_EXPECT).
DOCS_TABLES = python3 tests/kut/expect.py table
docs-tables:
	@$(DOCS_TABLES)

format:
	clang-format -i $$(git ls-files '*.c' '*.h')

format-check:
	@clang-format --dry-run --Werror $$(git ls-files '*.c' '*.h')

clean:
	rm -rf $(B)

-include $(shell find $(B) -name '*.d' 2>/dev/null)
