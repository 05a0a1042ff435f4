import shutil

from callbench.spec import suite_hash


def test_hash_changes_on_any_edit_and_follows_symlinked_folders(mini_path, tmp_path):
    copy = tmp_path / "copy"
    shutil.copytree(mini_path, copy)
    base = suite_hash(copy)
    assert base == suite_hash(mini_path)
    (copy / "agents/parcel-desk/instructions.md").write_text("changed", encoding="utf-8")
    assert suite_hash(copy) != base

    linked = tmp_path / "linked"
    linked.mkdir()
    shutil.copy(mini_path / "suite.yaml", linked / "suite.yaml")
    (linked / "agents").symlink_to(mini_path / "agents", target_is_directory=True)
    (linked / "scenarios").symlink_to(mini_path / "scenarios", target_is_directory=True)
    assert suite_hash(linked) == base
