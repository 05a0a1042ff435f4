"""The importer's output for the vendored OpenVoiceCS sample is pinned byte for byte.

The converter is long and every line of its report is a promise about what was converted,
approximated or dropped; a refactor that reorders a note or changes one matcher would pass the
behavioural tests and still change the suite users get. `converted.sha256` (the `sha256sum` format)
holds the digest of every file the importer writes for the sample. When a change to the output is
intended, regenerate it with `python tests/test_import_openvoicecs_golden.py` and review the diff of
the converted suite, not just of the digests.
"""

import hashlib
import os
import shutil
import sys
from pathlib import Path

from callbench.importers import convert_openvoicecs

FIXTURES = Path(__file__).resolve().parent / "fixtures" / "openvoicecs"
DIGESTS = FIXTURES / "converted.sha256"
FILES = ("openvoicecs-sample.json", "openvoicecs-LICENSE-DATA.txt")


def _convert(work: Path) -> dict[str, str]:
    """Convert a copy of the sample from inside `work` with relative paths, so that the source and
    output paths the report records are the same on every checkout."""
    for name in FILES:
        shutil.copy(FIXTURES / name, work / name)
    here = Path.cwd()
    os.chdir(work)
    try:
        convert_openvoicecs(Path(FILES[0]), Path("suite"))
    finally:
        os.chdir(here)
    out = work / "suite"
    return {
        p.relative_to(out).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(out.rglob("*"))
        if p.is_file()
    }


def _read_digests() -> dict[str, str]:
    pairs = (line.split("  ", 1) for line in DIGESTS.read_text().splitlines() if line.strip())
    return {path: digest for digest, path in pairs}


def test_the_converted_sample_is_byte_identical(tmp_path):
    got = _convert(tmp_path)
    want = _read_digests()
    assert len(want) == 34  # 6 agents x 2 files, 18 scenarios, suite, licence, 2 reports
    assert sorted(got) == sorted(want), "the importer writes a different set of files"
    changed = [path for path in want if got[path] != want[path]]
    assert not changed, (
        f"the importer's output changed in {changed}; if intended, regenerate {DIGESTS.name} "
        f"(python {Path(__file__).name}) and review the converted suite"
    )


if __name__ == "__main__":
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        digests = _convert(Path(tmp))
    DIGESTS.write_text("".join(f"{d}  {p}\n" for p, d in digests.items()))
    print(f"wrote {len(digests)} digests to {DIGESTS}", file=sys.stderr)
