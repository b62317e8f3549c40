// SPDX-License-Identifier: MIT
/*
 * The previous run's log, from UEFI variables to a file (kept_log_file.h).
 * It runs before ExitBootServices, while the boot volume's file system is
 * there: \mhv-results\YYYYMMDD-HHMMSS.log, named by the firmware's clock
 * when that run began.  Nothing the variables say is trusted: the info's
 * numbers must be ones mhv writes (lib/kept_log.h), every chunk must have
 * the size and attributes the info implies, and the file gets exactly the
 * bytes read.  Then every variable of mhv's GUID that GetNextVariableName
 * finds is deleted, whatever the info says (chunks of a store cut short
 * have none), chunks before the info; only a whole log that the volume
 * would not take (a read-only stick) stays, for a later try.
 */
#include <efi.h>
#include <efilib.h>

#include "kept_log_file.h"
#include "lib/fmt.h"
#include "lib/kept_log.h"

#define RESULTS_DIR L"\\mhv-results"
#define NAME_MAX 64
/* mhv's names are 11 characters; a longer one of its GUID is not its own */
#define NAME_CHARS 16
/* Variables of mhv's GUID deleted per walk, and walks per boot: a store
 * holds KEPT_LOG_CHUNKS_MAX + 1 of them after a run, more only if forged. */
#define FOUND_MAX 128
#define WALKS_MAX 4
/* GetNextVariableName calls per walk: a firmware that never says
 * EFI_NOT_FOUND still ends (a store holds a few thousand variables). */
#define WALK_CALLS_MAX 16384

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

static bool same_name(const CHAR16 *a, const CHAR16 *b)
{
	while (*a && *a == *b)
		a++, b++;
	return *a == *b;
}

static bool same_guid(const EFI_GUID *a, const EFI_GUID *b)
{
	const UINT8 *x = (const UINT8 *)a, *y = (const UINT8 *)b;
	UINTN i;

	for (i = 0; i < sizeof(*a); i++)
		if (x[i] != y[i])
			return false;
	return true;
}

/* A variable of the log @keep (its info or one of its chunks). */
static bool kept(const CHAR16 *name, const struct kept_log_info *keep)
{
	CHAR16 chunk[12];
	UINT32 i;

	if (!keep)
		return false;
	if (same_name(name, KEPT_LOG_INFO_NAME))
		return true;
	for (i = 0; i < keep->nr_chunks; i++) {
		kept_log_chunk_name((u16 *)chunk, i);
		if (same_name(name, chunk))
			return true;
	}
	return false;
}

/* Names of mhv's GUID but @keep's, up to FOUND_MAX; the firmware's state
 * is not changed during a walk (UEFI 2.10 §8.2.2 leaves a walk across
 * SetVariable calls undefined). */
static UINTN walk(CHAR16 (*found)[NAME_CHARS], const struct kept_log_info *keep)
{
	CHAR16 name[256];
	EFI_GUID guid;
	UINTN size, calls, i, n = 0;

	name[0] = 0;
	for (calls = 0; calls < WALK_CALLS_MAX && n < FOUND_MAX; calls++) {
		size = sizeof(name);
		if (EFI_ERROR(RT->GetNextVariableName(&size, name, &guid)))
			break;
		if (!same_guid(&guid, &vendor) || kept(name, keep))
			continue;
		for (i = 0; name[i] && i + 1 < NAME_CHARS; i++)
			found[n][i] = name[i];
		found[n][i] = 0;
		if (!name[i])
			n++; /* a longer name is not one mhv writes, nor one it can delete */
	}
	return n;
}

/* Deletes every variable of mhv's GUID but @keep's (NULL: all), the info
 * last; how many. */
static UINT32 delete_all(const struct kept_log_info *keep)
{
	static CHAR16 found[FOUND_MAX][NAME_CHARS];
	UINT32 deleted = 0, walks, info;
	UINTN i, n;

	for (walks = 0; walks < WALKS_MAX; walks++) {
		n = walk(found, keep);
		for (info = 0; info < 2; info++)
			for (i = 0; i < n; i++)
				if (same_name(found[i], KEPT_LOG_INFO_NAME) == info &&
				    !EFI_ERROR(RT->SetVariable(found[i], &vendor, 0, 0, NULL)))
					deleted++;
		if (n < FOUND_MAX)
			break;
	}
	return deleted;
}

/* The info, if one is there: its numbers must be ones mhv writes.  False
 * and why in @why ("" when there is none). */
static bool read_info(struct kept_log_info *info, char *why, UINTN why_size)
{
	UINTN size = sizeof(*info);
	UINT32 attrs;
	EFI_STATUS st;

	why[0] = 0;
	st = RT->GetVariable(KEPT_LOG_INFO_NAME, &vendor, &attrs, &size, info);
	if (st == EFI_NOT_FOUND)
		return false;
	if (EFI_ERROR(st) || size != sizeof(*info) || attrs != KEPT_LOG_ATTRS ||
	    info->magic != KEPT_LOG_MAGIC) {
		fmt_snprintf(why, why_size, "its MhvLogInfo variable is malformed");
		return false;
	}
	if (info->chunk_size < KEPT_LOG_CHUNK_MIN || info->chunk_size > KEPT_LOG_CHUNK_MAX ||
	    !info->nr_chunks || info->nr_chunks > KEPT_LOG_CHUNKS_MAX ||
	    info->bytes > (UINT64)info->nr_chunks * info->chunk_size ||
	    info->bytes <= (UINT64)(info->nr_chunks - 1) * info->chunk_size) {
		fmt_snprintf(
		    why, why_size,
		    "its MhvLogInfo says %llu bytes in %u chunks of %u, not what mhv writes",
		    info->bytes, info->nr_chunks, info->chunk_size);
		return false;
	}
	return true;
}

/* The log's bytes from its chunks, each exactly as large as the info
 * implies, into a pool buffer; NULL and why in @why when one is not. */
static char *read_chunks(const struct kept_log_info *info, char *why, UINTN why_size)
{
	CHAR16 name[12];
	char *buf;
	UINT64 pos = 0;
	UINTN size, want;
	UINT32 i, attrs;
	EFI_STATUS st;

	if (EFI_ERROR(BS->AllocatePool(EfiLoaderData, info->bytes, (void **)&buf))) {
		fmt_snprintf(why, why_size, "no memory for its %llu bytes", info->bytes);
		return NULL;
	}
	for (i = 0; i < info->nr_chunks; i++, pos += want) {
		kept_log_chunk_name((u16 *)name, i);
		want = info->bytes - pos < info->chunk_size ? info->bytes - pos : info->chunk_size;
		size = want;
		st = RT->GetVariable(name, &vendor, &attrs, &size, buf + pos);
		if (st == EFI_NOT_FOUND)
			fmt_snprintf(why, why_size, "variable MhvLog%04u of %u is missing", i,
				     info->nr_chunks);
		else if ((EFI_ERROR(st) && st != EFI_BUFFER_TOO_SMALL) ||
			 (!EFI_ERROR(st) && attrs != KEPT_LOG_ATTRS))
			fmt_snprintf(why, why_size, "variable MhvLog%04u cannot be read as mhv's",
				     i);
		else if (size != want)
			fmt_snprintf(why, why_size, "variable MhvLog%04u has %llu bytes, not %llu",
				     i, (unsigned long long)size, (unsigned long long)want);
		else
			continue;
		BS->FreePool(buf);
		return NULL;
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
	EFI_FILE_HANDLE dir = NULL, f = NULL;
	char name[NAME_MAX], why[120], *log = NULL;
	UINTN len;
	UINT32 deleted;

	note[0] = 0;
	if (read_info(&info, why, sizeof(why)))
		log = read_chunks(&info, why, sizeof(why));
	if (!log) {
		deleted = delete_all(NULL);
		if (why[0])
			fmt_snprintf(note, note_size,
				     "previous run's log: %s: its %u UEFI variables deleted", why,
				     deleted);
		else if (deleted)
			fmt_snprintf(note, note_size,
				     "previous run's log: %u UEFI variables of a store cut short "
				     "(no MhvLogInfo) deleted",
				     deleted);
		if (note[0])
			say(note);
		return;
	}
	if (!EFI_ERROR(root->Open(root, &dir, RESULTS_DIR,
				  EFI_FILE_MODE_READ | EFI_FILE_MODE_WRITE | EFI_FILE_MODE_CREATE,
				  EFI_FILE_DIRECTORY)))
		f = create_file(dir, &info, name, sizeof(name));
	len = info.bytes;
	if (!f || EFI_ERROR(f->Write(f, &len, log)) || len != info.bytes ||
	    EFI_ERROR(f->Flush(f))) {
		delete_all(&info);
		fmt_snprintf(note, note_size,
			     "previous run's log (%llu bytes) cannot be written to \\mhv-results\\ "
			     "(read-only volume?): it waits in UEFI variables; runs keep no other",
			     info.bytes);
	} else {
		delete_all(NULL);
		fmt_snprintf(note, note_size,
			     "previous run's log (%llu bytes, status 0x%x%s) written to "
			     "\\mhv-results\\%s on the boot volume; its UEFI variables deleted",
			     info.bytes, info.status,
			     info.bytes_left_out ? ", cut to fit the variable store" : "", name);
	}
	if (f)
		f->Close(f);
	if (dir)
		dir->Close(dir);
	BS->FreePool(log);
	say(note);
}
