/* SPDX-License-Identifier: MIT */
/*
 * A model of a UEFI variable store in flash, for the tests of the log
 * kept across a reboot (tests/unit/test_kept_log.c): a fixed capacity, a
 * header per variable, a largest variable, and the runtime rule of
 * EDK2's variable driver: after ExitBootServices a delete or an
 * overwrite frees nothing (the old copy stays as garbage) until the next
 * boot reclaims it.  The machine can be made to reset right after any
 * write.  Its calls take and return what the UEFI services do (UEFI 2.10
 * §8.2), with the status codes below.
 */
#ifndef MHV_TEST_VAR_STORE_H
#define MHV_TEST_VAR_STORE_H

#include <setjmp.h>
#include <stdbool.h>
#include <stdint.h>

#define VS_ERR (1ull << 63)
#define VS_INVALID_PARAMETER (VS_ERR | 2)
#define VS_UNSUPPORTED (VS_ERR | 3)
#define VS_BUFFER_TOO_SMALL (VS_ERR | 5)
#define VS_OUT_OF_RESOURCES (VS_ERR | 9)
#define VS_NOT_FOUND (VS_ERR | 14)

/* EDK2's authenticated variable header is 60 bytes; the name follows. */
#define VS_HEADER 60

struct var_store_cfg {
	unsigned long long capacity; /* MaximumVariableStorageSize */
	unsigned long long max_var;  /* MaximumVariableSize: name and data */
	bool no_query;		     /* firmware without QueryVariableInfo (EFI 1.10) */
	bool query_fails;	     /* QueryVariableInfo answers an error */
};

/* The store, one per test program. */
void vs_init(const struct var_store_cfg *cfg);
/* A variable of another vendor's that leaves @free bytes free. */
void vs_fill_to(unsigned long long free);
/* A boot: garbage reclaimed; then boot services run until vs_runtime(). */
void vs_boot(void);
void vs_runtime(void);
unsigned long long vs_free(void);
/* Bytes a variable of @name_bytes and @size takes in the store. */
unsigned long long vs_cost(unsigned long long name_bytes, unsigned long long size);

/* The machine resets right after write number @n since vs_init (1: the
 * first): longjmp(*env, 1) to the env last given.  0: no reset. */
void vs_reset_at(long n);
void vs_reset_env(jmp_buf *env);
/* Writes (SetVariable calls that changed the store) and the bytes they took,
 * since vs_runtime(); the lowest free space mhv's writes left since then. */
uint32_t vs_writes(void);
unsigned long long vs_bytes_written(void);
unsigned long long vs_min_free(void);

/* The services; @guid is 16 bytes. */
unsigned long long vs_get(const uint16_t *name, const void *guid, uint32_t *attrs,
			  unsigned long long *size, void *data);
unsigned long long vs_set(const uint16_t *name, const void *guid, uint32_t attrs,
			  unsigned long long size, const void *data);
unsigned long long vs_next(unsigned long long *name_size, uint16_t *name, void *guid);
unsigned long long vs_query(uint32_t attrs, unsigned long long *max_storage,
			    unsigned long long *remaining, unsigned long long *max_size);
bool vs_has_query(void);

/* Variables of @guid, and the name of the i-th of them in *name. */
int vs_count(const void *guid);
/* Stores a variable as forged data would, with no check: for the tests. */
void vs_put(const uint16_t *name, const void *guid, uint32_t attrs, unsigned long long size,
	    const void *data);

#endif
