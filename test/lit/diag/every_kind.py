"""Every diagnostic kind in compiler/diag/*.def is provoked by some lit test: its message
appears, with `{}` standing for anything, in a comment (a CHECK line, or a
check prefix's) of a test under test/lit."""
import pathlib
import re
import sys

root = pathlib.Path(sys.argv[1])
kinds = []
for deffile in sorted((root / "compiler/diag").glob("*.def")):
    kinds += re.findall(r'^DIAG\((\w+), (\w+), "((?:[^"\\]|\\.)*)"\)',
                        deffile.read_text(), re.M)
checks = []
for path in (root / "test/lit").rglob("*"):
    if path.suffix in (".ledger", ".play", ".test", ".catalog"):
        checks += [l for l in path.read_text(errors="replace").splitlines() if l.lstrip().startswith("#")]

missing = []
for name, severity, text in kinds:
    word = {"Error": "error", "Warning": "warning", "Note": "note"}[severity]
    text = text.replace('\\"', '"')
    pattern = re.escape(f"{word}: ") + ".*".join(re.escape(p) for p in text.split("{}"))
    if not any(re.search(pattern, line) for line in checks):
        missing.append(f"{name}: {word}: {text}")
for m in missing:
    print("not provoked by any test:", m)
print(f"{len(kinds) - len(missing)} of {len(kinds)} diagnostic kinds provoked")
sys.exit(1 if missing else 0)
