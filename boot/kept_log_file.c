// SPDX-License-Identifier: MIT
/*
 * The previous run's log, from UEFI variables to a file (kept_log_file.h).
 * It runs before ExitBootServices, while the boot volume's file system is
 * there: \mhv-results\YYYYMMDD-HHMMSS.log, named by the firmware's clock
 * when that run began.  The variables are deleted only once the file is
 * written, so a read-only stick keeps them for a later try.
 */
#include <efi.h>
#include <efilib.h>

#include "kept_log_file.h"
#include "lib/fmt.h"
#include "lib/kept_log.h"

#define RESULTS_DIR L"\\mhv-results"
#define NAME_MAX 64

static EFI_GUID vendor = MHV_VENDOR_GUID_INIT;

static void to_wide(CHAR16 *dst, const char *src, UINTN n)
{
	UINTN i;

	for (i = 0; src[i] && i + 1 < n; i++)
		dst[i] = (CHAR16)(unsigned char)src[i];
	dst[i] = 0;
}

static void say(const char *line)
{
	CHAR16 w[200];

	to_wide(w, line, 200);
	ST->ConOut->OutputString(ST->ConOut, w);
	ST->ConOut->OutputString(ST->ConOut, L"\r\n");
}

static void delete_all(const struct kept_log_info *info)
{
	CHAR16 name[12];
	UINT32 i;

	RT->SetVariable(KEPT_LOG_INFO_NAME, &vendor, 0, 0, NULL);
	for (i = 0; i < info->nr_chunks; i++) {
		kept_log_chunk_name((u16 *)name, i);
		RT->SetVariable(name, &vendor, 0, 0, NULL);
	}
}

/* The log's bytes from its chunks, into a pool buffer; NULL when one is missing. */
static char *read_chunks(const struct kept_log_info *info, UINT32 *bad)
{
	CHAR16 name[12];
	char *buf;
	UINT64 pos = 0;
	UINTN size;
	UINT32 i, attrs;

	if (EFI_ERROR(
		BS->AllocatePool(EfiLoaderData, info->bytes ? info->bytes : 1, (void **)&buf)))
		return NULL;
	for (i = 0; i < info->nr_chunks; i++, pos += size) {
		kept_log_chunk_name((u16 *)name, i);
		size = info->bytes - pos < info->chunk_size ? info->bytes - pos : info->chunk_size;
		if (EFI_ERROR(RT->GetVariable(name, &vendor, &attrs, &size, buf + pos))) {
			*bad = i;
			BS->FreePool(buf);
			return NULL;
		}
	}
	return buf;
}

/* "20261204-151749.log", "-2" and so on before the dot when taken. */
static EFI_FILE_HANDLE create_file(EFI_FILE_HANDLE dir, const struct kept_log_info *info,
				   char *name, UINTN size)
{
	const struct kept_log_time *t = &info->started;
	EFI_FILE_HANDLE f;
	CHAR16 w[NAME_MAX];
	unsigned try;

	for (try = 1; try < 100; try++) {
		char suffix[8] = "";

		if (try > 1)
			fmt_snprintf(suffix, sizeof(suffix), "-%u", try);
		if (t->valid)
			fmt_snprintf(name, size, "%04u%02u%02u-%02u%02u%02u%s.log", t->year,
				     t->month, t->day, t->hour, t->minute, t->second, suffix);
		else
			fmt_snprintf(name, size, "undated%s.log", suffix);
		to_wide(w, name, NAME_MAX);
		if (!EFI_ERROR(dir->Open(dir, &f, w, EFI_FILE_MODE_READ, 0))) {
			f->Close(f); /* taken: a run with the same start second */
			continue;
		}
		if (EFI_ERROR(dir->Open(
			dir, &f, w, EFI_FILE_MODE_READ | EFI_FILE_MODE_WRITE | EFI_FILE_MODE_CREATE,
			0)))
			return NULL;
		return f;
	}
	return NULL;
}

void kept_log_to_file(EFI_FILE_HANDLE root, char *note, UINTN note_size)
{
	struct kept_log_info info;
	EFI_FILE_HANDLE dir, f;
	char name[NAME_MAX], *log;
	UINTN size = sizeof(info), len;
	UINT32 attrs, bad = 0;
	EFI_STATUS st;

	note[0] = 0;
	if (EFI_ERROR(RT->GetVariable(KEPT_LOG_INFO_NAME, &vendor, &attrs, &size, &info)))
		return; /* nothing kept */
	if (size != sizeof(info) || info.magic != KEPT_LOG_MAGIC || !info.chunk_size ||
	    info.nr_chunks > KEPT_LOG_MAX_CHUNKS ||
	    info.bytes > (UINT64)info.nr_chunks * info.chunk_size) {
		fmt_snprintf(note, note_size,
			     "previous run's log: its MhvLogInfo variable is malformed: deleted");
		RT->SetVariable(KEPT_LOG_INFO_NAME, &vendor, 0, 0, NULL);
		say(note);
		return;
	}
	log = read_chunks(&info, &bad);
	if (!log) {
		fmt_snprintf(note, note_size,
			     "previous run's log: variable MhvLog%04u of %u is missing: deleted",
			     bad, info.nr_chunks);
		delete_all(&info);
		say(note);
		return;
	}
	st = root->Open(root, &dir, RESULTS_DIR,
			EFI_FILE_MODE_READ | EFI_FILE_MODE_WRITE | EFI_FILE_MODE_CREATE,
			EFI_FILE_DIRECTORY);
	f = EFI_ERROR(st) ? NULL : create_file(dir, &info, name, sizeof(name));
	len = info.bytes;
	if (!f || EFI_ERROR(f->Write(f, &len, log)) || len != info.bytes ||
	    EFI_ERROR(f->Flush(f))) {
		fmt_snprintf(note, note_size,
			     "previous run's log (%llu bytes): cannot write it to \\mhv-results\\ "
			     "on the boot volume (read-only?): it stays in UEFI variables",
			     info.bytes);
	} else {
		fmt_snprintf(note, note_size,
			     "previous run's log (%llu bytes, status 0x%x%s) written to "
			     "\\mhv-results\\%s on the boot volume; its UEFI variables deleted",
			     info.bytes, info.status,
			     info.bytes_left_out ? ", cut to fit the variable store" : "", name);
		delete_all(&info);
	}
	if (f)
		f->Close(f);
	if (!EFI_ERROR(st))
		dir->Close(dir);
	BS->FreePool(log);
	say(note);
}
