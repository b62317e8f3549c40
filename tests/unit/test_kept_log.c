// SPDX-License-Identifier: MIT
/*
 * The log kept across a reboot against a model of the variable store
 * (var_store.h): the hypervisor's store (platform/log_keep.c) at runtime,
 * where nothing it deletes or overwrites is reclaimed, and the loader's
 * recovery (boot/kept_log_file.c) at the next boot, with the issue's
 * reproductions as cases and a reset after every write of a sequence of
 * runs.  After each run: free space never below the reserve, no more
 * writes and bytes than the budget; after each boot: no mhv variable left
 * but a complete log that waits for a writable volume.
 */
#define _GNU_SOURCE /* memmem */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "kept_log_fake.h"
#include "lib/kept_log.h"
#include "log_feed.h"
#include "platform/console_log.h"
#include "platform/log_keep.h"
#include "var_store.h"

static const struct efi_guid_bytes {
	u32 d1;
	u16 d2, d3;
	u8 d4[8];
} mhv_guid = MHV_VENDOR_GUID_INIT;

static struct {
	u64 capacity, reserve, free_at_start;
} m;

static void store_init(u64 capacity, u64 max_var, u64 free, bool no_query)
{
	struct var_store_cfg cfg = { capacity, max_var, no_query, false };

	vs_init(&cfg);
	vs_fill_to(free);
	m.capacity = capacity;
	m.reserve = kept_log_reserve(capacity);
}

/* One run's end at runtime; false when the machine reset in it. */
static bool run(void)
{
	jmp_buf reset;

	vs_runtime();
	m.free_at_start = vs_free();
	vs_reset_env(&reset);
	if (setjmp(reset))
		return false;
	log_keep_store(0x10);
	return true;
}

/* What a run may have done, reset or not. */
static void check_run(void)
{
	u64 floor = m.free_at_start < m.reserve ? m.free_at_start : m.reserve;

	if (vs_min_free() < floor)
		fail_msg("the run left %llu bytes free, below the reserve %llu (%llu at its start)",
			 (unsigned long long)vs_min_free(), (unsigned long long)m.reserve,
			 (unsigned long long)m.free_at_start);
	if (vs_writes() > KEPT_LOG_WRITES_MAX)
		fail_msg("the run made %u writes, more than %u", vs_writes(), KEPT_LOG_WRITES_MAX);
	if (vs_bytes_written() > kept_log_share(m.capacity))
		fail_msg("the run wrote %llu bytes, more than its share %llu",
			 (unsigned long long)vs_bytes_written(),
			 (unsigned long long)kept_log_share(m.capacity));
}

/* The file is the log: its head, maybe a marker line, its end. */
static void check_file_is_log(const char *f, size_t size)
{
	const char *mark = memmem(f, size, "\r\n[mhv: ", 8), *end;
	size_t head, tail;

	if (!mark) {
		assert_int_equal(size, shadow_len);
		assert_memory_equal(f, shadow, size);
		return;
	}
	head = mark - f;
	end = memmem(mark, size - head, "]\r\n", 3);
	assert_non_null(end);
	tail = size - (end + 3 - f);
	assert_memory_equal(f, shadow, head);
	assert_memory_equal(end + 3, shadow + shadow_len - tail, tail);
}

/* After the loader: no mhv variable, or a whole log (info and its chunks)
 * waiting for a writable volume.  True when one waits. */
static bool check_boot(void)
{
	struct kept_log_info info;
	u64 size = sizeof(info);
	u32 attrs;
	int n = vs_count(&mhv_guid);

	if (!n)
		return false;
	if (vs_get(KEPT_LOG_INFO_NAME, &mhv_guid, &attrs, &size, &info))
		fail_msg("%d mhv variables left after the boot, and no MhvLogInfo", n);
	if ((int)info.nr_chunks + 1 != n)
		fail_msg("%d mhv variables left after the boot, the info names %u chunks", n,
			 info.nr_chunks);
	return true;
}

/* A boot with the loader; its note. */
static char note[256];

/* The loader's part of a boot; false when the machine reset in it.  A
 * file it wrote must be the log. */
static bool loader(bool writable)
{
	jmp_buf reset;
	const char *f;
	size_t size;

	vs_boot();
	vs_reset_env(&reset);
	if (setjmp(reset))
		return false;
	fake_loader_boot(writable, note, sizeof(note));
	f = fake_loader_file(&size);
	if (f)
		check_file_is_log(f, size);
	return true;
}

static bool boot(bool writable)
{
	assert_true(loader(writable));
	return check_boot();
}

/* Issue 37: run 1 keeps its log, the stick is read-only; run 2 must not
 * strand it, and once the stick takes the file the store is as it was. */
static void stranded_chunks(void **state)
{
	int i;

	store_init(256 << 10, 33 << 10, 200 << 10, false);
	feed(300000);
	for (i = 0; i < 3; i++) {
		assert_true(run());
		check_run();
		boot(false);
	}
	boot(true);
	assert_int_equal(vs_count(&mhv_guid), 0);
	assert_int_equal(vs_free(), 200 << 10);
}

/* No QueryVariableInfo (EFI 1.10): nothing written, and said why. */
static void no_query(void **state)
{
	store_init(64 << 10, 33 << 10, 40 << 10, true);
	feed(20000);
	assert_true(run());
	assert_int_equal(vs_writes(), 0);
	assert_non_null(strstr(fake_console_last, "QueryVariableInfo"));
	assert_false(boot(true));
	assert_int_equal(vs_free(), 40 << 10);
}

/* A firmware whose largest variable is smaller than a chunk's header (and
 * whose store is said to be huge). */
static void tiny_max_var(void **state)
{
	store_init(16ull << 30, 100, (16ull << 30) - (1 << 20), false);
	feed(40000);
	assert_true(run());
	check_run();
	assert_int_equal(vs_writes(), 0);
	assert_false(boot(true));
}

/* Two runs whose boot between has no mhv loader (the machine booted
 * something else): the second must not strand the first's chunks. */
static void two_runs_without_recovery(void **state)
{
	store_init(256 << 10, 33 << 10, 200 << 10, false);
	feed(200000);
	assert_true(run());
	check_run();
	vs_boot();
	assert_true(run());
	check_run();
	boot(true);
	assert_int_equal(vs_count(&mhv_guid), 0);
	assert_int_equal(vs_free(), 200 << 10);
}

/* A small store: the run keeps its share, head and end of the log. */
static void small_store_capped(void **state)
{
	size_t size;

	store_init(64 << 10, 8 << 10, 60 << 10, false);
	feed(100000);
	assert_true(run());
	check_run();
	assert_true(vs_writes() > 0);
	assert_false(boot(true));
	assert_non_null(fake_loader_file(&size));
	assert_true(size > 1024);
	assert_int_equal(vs_free(), 60 << 10);
}

static void put_info(u64 bytes, u32 chunk_size, u32 nr_chunks, u32 attrs)
{
	struct kept_log_info info = { .magic = KEPT_LOG_MAGIC,
				      .bytes = bytes,
				      .chunk_size = chunk_size,
				      .nr_chunks = nr_chunks };

	vs_put(KEPT_LOG_INFO_NAME, &mhv_guid, attrs, sizeof(info), &info);
}

static void put_chunk(u32 i, u64 size, u32 attrs)
{
	u16 name[12];
	char *data = malloc(size);

	memset(data, 'x', size);
	kept_log_chunk_name(name, i);
	vs_put(name, &mhv_guid, attrs, size, data);
	free(data);
}

/* A forged info asks for 9999 chunks of 1 MiB: the loader must neither
 * believe it nor delete 10,000 variables; every mhv variable goes. */
static void forged_info(void **state)
{
	store_init(256 << 10, 33 << 10, 200 << 10, false);
	put_info(9999ull << 20, 1 << 20, 9999, KEPT_LOG_ATTRS);
	put_chunk(5, 100, KEPT_LOG_ATTRS);
	assert_true(loader(true));
	assert_int_equal(vs_count(&mhv_guid), 0);
	assert_true(fake_loader_set_calls() <= 2);
	assert_int_equal(vs_free(), 200 << 10);
}

/* An info whose attributes mhv never writes (boot access only). */
static void info_with_other_attributes(void **state)
{
	size_t size;

	store_init(256 << 10, 33 << 10, 200 << 10, false);
	put_info(1500, 1024, 2, 0x3);
	put_chunk(0, 1024, KEPT_LOG_ATTRS);
	put_chunk(1, 476, KEPT_LOG_ATTRS);
	assert_true(loader(true));
	assert_null(fake_loader_file(&size));
	assert_int_equal(vs_count(&mhv_guid), 0);
}

/* A chunk shorter than the info says: no file of old pool memory. */
static void short_chunk(void **state)
{
	size_t size;
	const char *f;

	store_init(256 << 10, 33 << 10, 200 << 10, false);
	put_info(3000, 1024, 3, KEPT_LOG_ATTRS);
	put_chunk(0, 1024, KEPT_LOG_ATTRS);
	put_chunk(1, 100, KEPT_LOG_ATTRS);
	put_chunk(2, 952, KEPT_LOG_ATTRS);
	assert_true(loader(true));
	f = fake_loader_file(&size);
	if (f)
		assert_null(memchr(f, FAKE_POOL_BYTE, size));
	assert_null(f);
	assert_int_equal(vs_count(&mhv_guid), 0);
}

/*
 * Boots (read-only stick twice, then writable) each followed by a run,
 * with the machine reset after write k of the sequence, for every k
 * until a sequence runs through: the invariants at every step, and at
 * the end no mhv variable and the store as it was.
 */
static void reset_sequence(u64 max_var)
{
	static const bool writable[] = { false, false, true, true, true };
	unsigned i, resets;
	long k;

	for (k = 1;; k++) {
		store_init(256 << 10, max_var, 200 << 10, false);
		vs_reset_at(k);
		resets = 0;
		for (i = 0; i < ARRAY_SIZE(writable); i++) {
			if (!loader(writable[i])) {
				resets++;
				continue; /* the next boot */
			}
			check_boot();
			resets += !run();
			check_run();
		}
		if (!loader(true))
			resets++; /* write k was the last boot's: one more */
		boot(true);
		if (vs_count(&mhv_guid) || vs_free() != 200 << 10)
			fail_msg("reset after write %ld: %d mhv variables and %llu bytes free at "
				 "the end",
				 k, vs_count(&mhv_guid), (unsigned long long)vs_free());
		if (!resets)
			break; /* write k never came: every point was tried */
		assert_true(k < 10000);
	}
	vs_reset_at(0);
	/* two runs stored, two boots deleted (chunks and info each) */
	assert_true(k > 8);
}

/* Chunks as large as mhv writes (one per run here), and 4 KiB ones. */
static void reset_at_every_write(void **state)
{
	feed(150000);
	reset_sequence(33 << 10);
	reset_sequence(4096 + KEPT_LOG_PER_VARIABLE);
}

/* test_kept_log [PATTERN]: the cases whose name matches (cmocka's filter) */
int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(stranded_chunks),
		cmocka_unit_test(no_query),
		cmocka_unit_test(tiny_max_var),
		cmocka_unit_test(two_runs_without_recovery),
		cmocka_unit_test(small_store_capped),
		cmocka_unit_test(forged_info),
		cmocka_unit_test(info_with_other_attributes),
		cmocka_unit_test(short_chunk),
		cmocka_unit_test(reset_at_every_write),
	};

	if (argc > 1)
		cmocka_set_test_filter(argv[1]);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
