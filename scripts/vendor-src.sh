# shellcheck shell=sh
# Sourced by the build scripts of pinned third-party test inputs (Bochs,
# kvm-unit-tests): find their source without copying it into the repository.
# The variables here start with vs_: the scripts that source this have their own.

# vendor_tarball NAME [FILE]: print the path of NAME.tar.xz: FILE if given,
# else the shared vendor folder next to the clone (or next to the main clone
# when this is a git worktree); status 1 when there is none.
vendor_tarball() {
	if [ -n "${2:-}" ]; then
		[ -f "$2" ] && { echo "$2"; return 0; }
		echo "vendor: $2 not found" >&2
		return 1
	fi
	vs_top=$(git rev-parse --show-toplevel 2>/dev/null || pwd)
	vs_common=$(git rev-parse --path-format=absolute --git-common-dir 2>/dev/null || echo "$vs_top/.git")
	for vs_dir in "$vs_top/../shared/vendor" "$(dirname "$vs_common")/../shared/vendor"; do
		[ -f "$vs_dir/$1.tar.xz" ] && { echo "$vs_dir/$1.tar.xz"; return 0; }
	done
	return 1
}

# vendor_src_ident DIR: a source folder's identity for a build cache: its
# path and every file's name, size and time.
vendor_src_ident() {
	echo "src:$1 $(find "$1" -path '*/.git' -prune -o -type f -printf '%P %s %T@\n' |
		LC_ALL=C sort | sha256sum | cut -c1-16)"
}

# vendor_unpack TARBALL DEST: the tarball's one top folder becomes DEST.
vendor_unpack() {
	rm -rf "$2" && mkdir -p "$2" && tar -xJf "$1" -C "$2" --strip-components=1
}

# vendor_clone URL COMMIT SUBDIR DEST: SUBDIR (or .) of URL at COMMIT becomes DEST.
vendor_clone() {
	command -v git >/dev/null || return 1
	vs_tmp=$4.clone
	rm -rf "$vs_tmp" "$4"
	# One commit, shallow; hosts that refuse to serve a bare commit id get
	# a whole clone.
	if ! { git init -q "$vs_tmp" &&
		timeout 300 git -C "$vs_tmp" fetch -q --depth 1 "$1" "$2" 2>/dev/null &&
		git -C "$vs_tmp" checkout -q FETCH_HEAD; }; then
		rm -rf "$vs_tmp"
		if ! { timeout 900 git clone -q "$1" "$vs_tmp" 2>/dev/null &&
			git -C "$vs_tmp" checkout -q "$2"; }; then
			rm -rf "$vs_tmp"
			return 1
		fi
	fi
	if [ "$3" = . ]; then
		mv "$vs_tmp" "$4"
	else
		mv "$vs_tmp/$3" "$4" && rm -rf "$vs_tmp"
	fi
}
