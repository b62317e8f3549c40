# SPDX-License-Identifier: MIT
"""The C front end of the style checks: universal-ctags (Debian package
universal-ctags, scripts/deps.sh) reads the C sources and says what each
defines and includes, so that no check guesses a definition from the
shape of a line.

ctags runs once per call over whole folders, with .c and .h both read as
C, and answers in JSON: one dict per tag, with at least
  name, path (as given to ctags), line, kind ("function", "prototype",
  "macro", "struct", "member", "enumerator", "typedef", "variable",
  "header", ...), and for a header (an #include) roles "local" ("...")
  or "system" (<...>).
ctags follows the preprocessor's branches as the compiler would see them
without -D: both arms of #ifdef/#else are read, #if 0 is not.
"""
import json
import shutil
import subprocess

KINDS = "defghmpstuvx"  # macro enumerator function enum header member prototype struct typedef union variable extern


def missing():
    """A one-line error when ctags is not universal-ctags, else None."""
    exe = shutil.which("ctags")
    if not exe:
        return "no ctags: install universal-ctags (sh scripts/deps.sh)"
    out = subprocess.run([exe, "--version"], capture_output=True, text=True).stdout
    if "Universal Ctags" not in out:
        return f"{exe} is not universal-ctags: install universal-ctags (sh scripts/deps.sh)"
    return None


def tags(paths, cwd=None):
    """Every tag ctags finds in @paths (files or folders, read recursively)."""
    err = missing()
    if err:
        raise SystemExit(err)
    cmd = ["ctags", "--languages=C", "--langmap=C:.c.h", f"--kinds-C={KINDS}", "--extras=+r",
           "--fields=+nKSeEr", "--output-format=json", "-f", "-", "-R", *paths]
    run = subprocess.run(cmd, capture_output=True, text=True, cwd=cwd)
    if run.returncode:
        raise SystemExit(f"ctags failed ({run.returncode}): {run.stderr.strip()}")
    out = []
    for line in run.stdout.splitlines():
        t = json.loads(line)
        if t.get("_type") == "tag":
            out.append(t)
    return out


def definitions(all_tags, kind="function"):
    """(name, path, line) of each definition of @kind (not references)."""
    return [(t["name"], t["path"], t["line"]) for t in all_tags
            if t["kind"] == kind and "reference" not in t.get("extras", "").split(",")]


def includes(all_tags):
    """(path, line, included name) of each #include "..." (local) in @all_tags."""
    return [(t["path"], t["line"], t["name"]) for t in all_tags
            if t["kind"] == "header" and "local" in t.get("roles", "").split(",")]
