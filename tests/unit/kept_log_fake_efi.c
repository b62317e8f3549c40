// SPDX-License-Identifier: MIT
/*
 * The loader's side of the kept log's tests: GNU-EFI's ST, BS and RT for
 * boot/kept_log_file.c, its variables from the store model and its boot
 * volume a directory that takes one file, or refuses it as a read-only
 * stick does.
 */
#include <efi.h>
#include <efilib.h>
#include <stdio.h>
#include <string.h>

#include "boot/kept_log_file.h"
#include "kept_log_fake.h"
#include "var_store.h"

static bool volume_writable;
static char *file_data;
static size_t file_size;
static bool file_made;

static EFI_STATUS EFIAPI get_variable(CHAR16 *name, EFI_GUID *guid, UINT32 *attrs, UINTN *size,
				      VOID *data)
{
	unsigned long long n = *size;
	EFI_STATUS st = vs_get(name, guid, attrs, &n, data);

	*size = n;
	return st;
}

static unsigned set_calls;

static EFI_STATUS EFIAPI set_variable(CHAR16 *name, EFI_GUID *guid, UINT32 attrs, UINTN size,
				      VOID *data)
{
	set_calls++;
	return vs_set(name, guid, attrs, size, data);
}

static EFI_STATUS EFIAPI next_name(UINTN *size, CHAR16 *name, EFI_GUID *guid)
{
	unsigned long long n = *size;
	EFI_STATUS st = vs_next(&n, name, guid);

	*size = n;
	return st;
}

static EFI_STATUS EFIAPI query(UINT32 attrs, UINT64 *max_storage, UINT64 *remaining,
			       UINT64 *max_size)
{
	unsigned long long a, b, c;
	EFI_STATUS st = vs_query(attrs, &a, &b, &c);

	*max_storage = a;
	*remaining = b;
	*max_size = c;
	return st;
}

/* Pool memory, freed at the next boot when a reset left it behind. */
static void *pool[16];

static EFI_STATUS EFIAPI allocate_pool(EFI_MEMORY_TYPE type, UINTN size, VOID **buf)
{
	unsigned i;

	for (i = 0; i < 16 && pool[i]; i++)
		;
	if (i == 16 || !(*buf = pool[i] = malloc(size)))
		return EFI_OUT_OF_RESOURCES;
	memset(*buf, FAKE_POOL_BYTE, size);
	return EFI_SUCCESS;
}

static EFI_STATUS EFIAPI free_pool(VOID *buf)
{
	unsigned i;

	for (i = 0; i < 16; i++)
		if (pool[i] == buf)
			pool[i] = NULL;
	free(buf);
	return EFI_SUCCESS;
}

static EFI_STATUS EFIAPI output_string(SIMPLE_TEXT_OUTPUT_INTERFACE *out, CHAR16 *s)
{
	if (getenv_verbose())
		for (; *s; s++)
			fputc((char)*s, stderr);
	return EFI_SUCCESS;
}

/* The boot volume: its root, the results directory and the one file. */
static EFI_FILE_PROTOCOL root, dir, file;

static EFI_STATUS EFIAPI file_open(EFI_FILE_HANDLE self, EFI_FILE_HANDLE *out, CHAR16 *name,
				   UINT64 mode, UINT64 attrs)
{
	if (!volume_writable && (mode & EFI_FILE_MODE_WRITE))
		return EFI_WRITE_PROTECTED;
	if (self == &root) {
		*out = &dir;
		return EFI_SUCCESS;
	}
	if (!(mode & EFI_FILE_MODE_CREATE) || file_made)
		return EFI_NOT_FOUND;
	file_made = true;
	*out = &file;
	return EFI_SUCCESS;
}

static EFI_STATUS EFIAPI file_close(EFI_FILE_HANDLE self)
{
	return EFI_SUCCESS;
}

static EFI_STATUS EFIAPI file_write(EFI_FILE_HANDLE self, UINTN *size, VOID *buf)
{
	file_data = realloc(file_data, file_size + *size + 1);
	memcpy(file_data + file_size, buf, *size);
	file_size += *size;
	return EFI_SUCCESS;
}

static EFI_STATUS EFIAPI file_flush(EFI_FILE_HANDLE self)
{
	return EFI_SUCCESS;
}

static EFI_RUNTIME_SERVICES rt;
static EFI_BOOT_SERVICES bs;
static SIMPLE_TEXT_OUTPUT_INTERFACE con_out;
static EFI_SYSTEM_TABLE st;
EFI_SYSTEM_TABLE *ST = &st;
EFI_BOOT_SERVICES *BS = &bs;
EFI_RUNTIME_SERVICES *RT = &rt;

void fake_loader_boot(bool writable, char *note, size_t note_size)
{
	EFI_FILE_PROTOCOL *h[] = { &root, &dir, &file };
	unsigned i;

	rt.GetVariable = get_variable;
	rt.SetVariable = set_variable;
	rt.GetNextVariableName = next_name;
	rt.QueryVariableInfo = vs_has_query() ? query : NULL;
	rt.Hdr.Revision = vs_has_query() ? 2u << 16 : (1u << 16) | 10;
	bs.AllocatePool = allocate_pool;
	bs.FreePool = free_pool;
	con_out.OutputString = output_string;
	st.ConOut = &con_out;
	for (i = 0; i < 3; i++) {
		h[i]->Open = file_open;
		h[i]->Close = file_close;
		h[i]->Write = file_write;
		h[i]->Flush = file_flush;
	}
	for (i = 0; i < 16; i++)
		free_pool(pool[i]);
	volume_writable = writable;
	free(file_data);
	file_data = NULL;
	file_size = 0;
	file_made = false;
	set_calls = 0;
	kept_log_to_file(&root, note, note_size);
}

unsigned fake_loader_set_calls(void)
{
	return set_calls;
}

const char *fake_loader_file(size_t *size)
{
	*size = file_size;
	return file_made ? file_data : NULL;
}
