// SPDX-License-Identifier: MIT
/* The variable store model (var_store.h). */
#include <stdlib.h>
#include <string.h>

#include "var_store.h"

#define MAX_VARS 4096
#define NAME_MAX_CHARS 128

struct var {
	uint16_t name[NAME_MAX_CHARS];
	uint8_t guid[16];
	uint32_t attrs;
	unsigned long long size;
	uint8_t *data;
};

static struct var_store_cfg cfg;
static struct var vars[MAX_VARS];
static int nr_vars;
static unsigned long long used, garbage; /* bytes: of live variables and headers, of dead ones */
static bool runtime;
static long reset_at, all_writes;
static jmp_buf *reset_env;
static uint32_t writes;
static unsigned long long bytes_written, min_free;

static const uint8_t other_guid[16] = { 0x11, 0x22, 0x33, 0x44 };

static size_t name_chars(const uint16_t *name)
{
	size_t n = 0;

	while (name[n])
		n++;
	return n;
}

unsigned long long vs_cost(unsigned long long name_bytes, unsigned long long size)
{
	/* EDK2 aligns each variable to 4 bytes in the store */
	return (VS_HEADER + name_bytes + size + 3) & ~3ull;
}

static unsigned long long cost_of(const struct var *v)
{
	return vs_cost((name_chars(v->name) + 1) * 2, v->size);
}

void vs_init(const struct var_store_cfg *c)
{
	int i;

	for (i = 0; i < nr_vars; i++)
		free(vars[i].data);
	cfg = *c;
	nr_vars = 0;
	used = garbage = 0;
	runtime = false;
	reset_at = all_writes = 0;
	writes = 0;
	bytes_written = 0;
}

unsigned long long vs_free(void)
{
	return cfg.capacity - used - garbage;
}

static int find(const uint16_t *name, const void *guid)
{
	int i;

	for (i = 0; i < nr_vars; i++)
		if (!memcmp(vars[i].guid, guid, 16) &&
		    !memcmp(vars[i].name, name, (name_chars(name) + 1) * 2))
			return i;
	return -1;
}

/* The variable's space: free now under boot services, garbage at runtime. */
static void drop(int i)
{
	unsigned long long c = cost_of(&vars[i]);

	used -= c;
	if (runtime)
		garbage += c;
	free(vars[i].data);
	vars[i] = vars[--nr_vars];
}

static void add(const uint16_t *name, const void *guid, uint32_t attrs, unsigned long long size,
		const void *data)
{
	struct var *v = &vars[nr_vars++];

	memset(v, 0, sizeof(*v));
	memcpy(v->name, name, (name_chars(name) + 1) * 2);
	memcpy(v->guid, guid, 16);
	v->attrs = attrs;
	v->size = size;
	v->data = malloc(size ? size : 1);
	memcpy(v->data, data, size);
	used += cost_of(v);
}

void vs_fill_to(unsigned long long want_free)
{
	static const uint16_t name[] = u"Filler";
	unsigned long long size = vs_free() - want_free - vs_cost(sizeof(name), 0);
	uint8_t *data = calloc(1, size);

	add(name, other_guid, 7, size, data);
	free(data);
}

void vs_put(const uint16_t *name, const void *guid, uint32_t attrs, unsigned long long size,
	    const void *data)
{
	int i = find(name, guid);

	if (i >= 0)
		drop(i);
	add(name, guid, attrs, size, data);
}

void vs_boot(void)
{
	garbage = 0;
	runtime = false;
}

void vs_runtime(void)
{
	runtime = true;
	writes = 0;
	bytes_written = 0;
	min_free = vs_free();
}

void vs_reset_at(long n)
{
	reset_at = n;
}

void vs_reset_env(jmp_buf *env)
{
	reset_env = env;
}

uint32_t vs_writes(void)
{
	return writes;
}

unsigned long long vs_bytes_written(void)
{
	return bytes_written;
}

unsigned long long vs_min_free(void)
{
	return min_free;
}

/* A write done: counted, and the machine resets here when told to. */
static unsigned long long written(unsigned long long bytes)
{
	writes++;
	bytes_written += bytes;
	if (runtime && vs_free() < min_free)
		min_free = vs_free();
	if (++all_writes == reset_at) {
		reset_at = 0;
		longjmp(*reset_env, 1);
	}
	return 0;
}

unsigned long long vs_get(const uint16_t *name, const void *guid, uint32_t *attrs,
			  unsigned long long *size, void *data)
{
	int i = find(name, guid);

	if (i < 0)
		return VS_NOT_FOUND;
	if (*size < vars[i].size) {
		*size = vars[i].size;
		return VS_BUFFER_TOO_SMALL;
	}
	*size = vars[i].size;
	if (attrs)
		*attrs = vars[i].attrs;
	memcpy(data, vars[i].data, vars[i].size);
	return 0;
}

unsigned long long vs_set(const uint16_t *name, const void *guid, uint32_t attrs,
			  unsigned long long size, const void *data)
{
	unsigned long long name_bytes = (name_chars(name) + 1) * 2,
			   need = vs_cost(name_bytes, size);
	int i = find(name, guid);

	if (!attrs || !size) {
		if (i < 0)
			return VS_NOT_FOUND;
		drop(i);
		return written(0);
	}
	if (name_bytes + size > cfg.max_var || name_chars(name) >= NAME_MAX_CHARS)
		return VS_INVALID_PARAMETER;
	if (i >= 0 && vars[i].attrs != attrs)
		return VS_INVALID_PARAMETER; /* UEFI 2.10 §8.2.3: attributes must match */
	/* under boot services the firmware reclaims when it runs out */
	if (vs_free() < need && !runtime)
		garbage = 0;
	if (vs_free() < need || nr_vars == MAX_VARS)
		return VS_OUT_OF_RESOURCES;
	if (i >= 0)
		drop(i);
	add(name, guid, attrs, size, data);
	return written(need);
}

unsigned long long vs_next(unsigned long long *name_size, uint16_t *name, void *guid)
{
	int i = 0;

	if (name[0]) {
		i = find(name, guid);
		if (i < 0)
			return VS_INVALID_PARAMETER;
		i++;
	}
	if (i >= nr_vars)
		return VS_NOT_FOUND;
	if (*name_size < (name_chars(vars[i].name) + 1) * 2) {
		*name_size = (name_chars(vars[i].name) + 1) * 2;
		return VS_BUFFER_TOO_SMALL;
	}
	*name_size = (name_chars(vars[i].name) + 1) * 2;
	memcpy(name, vars[i].name, *name_size);
	memcpy(guid, vars[i].guid, 16);
	return 0;
}

bool vs_has_query(void)
{
	return !cfg.no_query;
}

unsigned long long vs_query(uint32_t attrs, unsigned long long *max_storage,
			    unsigned long long *remaining, unsigned long long *max_size)
{
	if (cfg.no_query)
		return VS_UNSUPPORTED;
	if (cfg.query_fails)
		return VS_INVALID_PARAMETER;
	*max_storage = cfg.capacity;
	*remaining = vs_free();
	*max_size = cfg.max_var;
	return 0;
}

int vs_count(const void *guid)
{
	int i, n = 0;

	for (i = 0; i < nr_vars; i++)
		n += !memcmp(vars[i].guid, guid, 16);
	return n;
}
