"""Suites written by someone else: they may not read files outside their folder, and may not hang
the loader.

Each test copies the mini fixture and spoils one file the way a hostile or
careless author could: a path or symlink out of the folder (whose text would
become the system prompt sent to a candidate), a YAML alias bomb, nesting
deep enough to exhaust Python's stack, a FIFO that blocks a read forever.
"""

import os
import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from callbench.cli import app
from callbench.errors import SuiteError
from callbench.spec import suite_hash
from callbench.suite_check import check_suite, load_suite

AGENT = "agents/parcel-desk/agent.yaml"
INSTRUCTIONS = "agents/parcel-desk/instructions.md"
SCENARIO = "scenarios/parcel-desk/reschedule.yaml"
PASSWD = Path("/etc/passwd")


def copy_of(mini_path: Path, tmp_path: Path) -> Path:
    root = tmp_path / "suite"
    shutil.copytree(mini_path, root)
    return root


def set_instructions(root: Path, value: str) -> None:
    agent = root / AGENT
    agent.write_text(
        agent.read_text(encoding="utf-8").replace(
            "instructions: instructions.md", f"instructions: {value}"
        ),
        encoding="utf-8",
    )


def append(root: Path, rel: str, text: str) -> None:
    with open(root / rel, "a", encoding="utf-8") as f:
        f.write("\n" + text + "\n")


def errors_in(root: Path, rel: str):
    return [p for p in check_suite(root).errors if p.file == rel]


def billion_laughs(levels: int) -> str:
    """`levels` top-level keys, each a list of nine aliases of the one before: 9**levels values from
    ~1 KB."""
    lines = ['lol0: &lol0 ["lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol"]']
    lines += [
        f"lol{i}: &lol{i} [" + ", ".join([f"*lol{i - 1}"] * 9) + "]" for i in range(1, levels)
    ]
    return "\n".join(lines)


def validate(root: Path):
    res = CliRunner().invoke(app, ["validate", str(root)])
    assert "Traceback" not in res.output and not isinstance(
        res.exception, (RecursionError, OSError, ValueError)
    ), res.output
    return res


# --- files outside the suite folder -------------------------------------------------------------


@pytest.mark.skipif(
    not PASSWD.is_file(), reason="needs /etc/passwd as a file outside the suite (absent on this OS)"
)
def test_instructions_at_an_absolute_path_are_refused_and_never_loaded(mini_path, tmp_path):
    root = copy_of(mini_path, tmp_path)
    set_instructions(root, "/etc/passwd")
    result = check_suite(root)
    [problem] = [p for p in result.errors if p.file == AGENT]
    assert problem.path == "instructions" and problem.line == 5
    assert "'/etc/passwd'" in problem.message and "outside the suite folder" in problem.message
    first_line = PASSWD.read_text(encoding="utf-8").splitlines()[0]
    agents = result.suite.agents if result.suite else {}
    assert all(first_line not in a.instructions for a in agents.values())
    with pytest.raises(SuiteError, match="outside the suite folder"):
        load_suite(root)


def test_instructions_climbing_out_with_dotdot_are_refused(mini_path, tmp_path):
    root = copy_of(mini_path, tmp_path)
    (tmp_path / "secret.env").write_text("API_KEY=sk-do-not-send", encoding="utf-8")
    set_instructions(root, "../../../secret.env")  # agents/parcel-desk/ -> suite/ -> tmp_path/
    result = check_suite(root)
    [problem] = [p for p in result.errors if p.file == AGENT]
    assert problem.path == "instructions"
    assert (
        "'../../../secret.env'" in problem.message and "outside the suite folder" in problem.message
    )
    agents = result.suite.agents if result.suite else {}
    assert all("sk-do-not-send" not in a.instructions for a in agents.values())


@pytest.mark.skipif(
    not PASSWD.is_file(), reason="needs /etc/passwd as a file outside the suite (absent on this OS)"
)
def test_instructions_symlinked_out_of_the_folder_are_refused(mini_path, tmp_path):
    root = copy_of(mini_path, tmp_path)
    (root / INSTRUCTIONS).unlink()
    (root / INSTRUCTIONS).symlink_to(PASSWD)
    result = check_suite(root)
    problem = next(p for p in result.errors if p.file == AGENT)
    assert problem.path == "instructions" and "resolves to '/etc/passwd'" in problem.message
    agents = result.suite.agents if result.suite else {}
    assert all("root:" not in a.instructions for a in agents.values())


def test_instructions_elsewhere_inside_the_folder_still_load(mini_path, tmp_path):
    root = copy_of(mini_path, tmp_path)
    (root / "common").mkdir()
    shutil.move(root / INSTRUCTIONS, root / "common/parcel.md")
    (root / INSTRUCTIONS).symlink_to(
        root / "common/parcel.md"
    )  # a symlink is fine while it stays inside
    assert check_suite(root).errors == []
    set_instructions(root, "../../common/parcel.md")
    suite = load_suite(root)
    assert "Swift Parcels" in suite.agents["parcel-desk"].instructions


@pytest.mark.parametrize("rel", [AGENT, SCENARIO, "suite.yaml"])
def test_a_suite_file_symlinked_out_of_the_folder_is_refused(mini_path, tmp_path, rel):
    root = copy_of(mini_path, tmp_path)
    outside = tmp_path / "elsewhere.yaml"
    shutil.move(root / rel, outside)
    (root / rel).symlink_to(outside)
    [problem] = errors_in(root, rel)
    assert (
        problem.path == ""
        and f"resolves to '{outside.resolve()}', outside the suite folder" in problem.message
    )


def test_a_folder_symlinked_out_of_the_suite_is_refused(mini_path, tmp_path):
    root = copy_of(mini_path, tmp_path)
    shutil.move(root / "agents", tmp_path / "agents")
    (root / "agents").symlink_to(tmp_path / "agents", target_is_directory=True)
    result = check_suite(root)
    assert any(p.file == AGENT and "outside the suite folder" in p.message for p in result.errors)
    assert any(
        p.file == "agents" and "outside the suite folder" in p.message for p in result.errors
    )
    # the hash alone still follows it, as a copy of the folder would hash
    assert suite_hash(root) == suite_hash(mini_path)


def test_run_refuses_a_suite_reaching_outside_its_folder(mini_path, tmp_path):
    root = copy_of(mini_path, tmp_path)
    set_instructions(root, "../../../secret.env")
    (tmp_path / "secret.env").write_text("API_KEY=sk-do-not-send", encoding="utf-8")
    res = CliRunner().invoke(app, ["run", "--suite", str(root), "--out", str(tmp_path / "run")])
    assert (
        res.exit_code == 2
        and "instructions" in res.output
        and "outside the suite folder" in res.output
    )
    assert "Traceback" not in res.output and not (tmp_path / "run" / "traces").exists()


# --- YAML that would never finish loading -------------------------------------------------------


def test_a_billion_laughs_is_refused_promptly(mini_path, tmp_path):
    root = copy_of(mini_path, tmp_path)
    append(root, SCENARIO, billion_laughs(10))  # 9**10 values if expanded; it must not be
    [problem] = errors_in(root, SCENARIO)
    assert (
        problem.path == ""
        and "more than 100000 values once aliases are expanded" in problem.message
    )
    res = validate(root)
    assert res.exit_code == 1
    assert [line for line in res.output.splitlines() if SCENARIO in line] == [str(problem)]


def test_an_alias_bomb_in_agent_yaml_is_refused_too(mini_path, tmp_path):
    root = copy_of(mini_path, tmp_path)
    append(root, AGENT, billion_laughs(10))
    [problem] = errors_in(root, AGENT)
    assert "aliases are expanded" in problem.message


def test_ordinary_aliases_still_load(mini_path, tmp_path):
    root = copy_of(mini_path, tmp_path)
    agent = root / AGENT
    text = agent.read_text(encoding="utf-8")
    text = text.replace(
        'tracking_id: { type: string, description: "format SP-NNNN" }',
        'tracking_id: &tracking { type: string, description: "format SP-NNNN" }',
    )
    text = text.replace("tracking_id: { type: string }", "tracking_id: *tracking")
    assert "*tracking" in text
    agent.write_text(text, encoding="utf-8")
    assert check_suite(root).errors == []


def test_deep_nesting_is_one_line_not_a_recursion_error(mini_path, tmp_path):
    root = copy_of(mini_path, tmp_path)
    append(root, SCENARIO, "deep: " + "[" * 600 + "]" * 600)
    [problem] = errors_in(root, SCENARIO)
    assert (
        problem.path == ""
        and "nested deeper than 100 levels" in problem.message
        and problem.line is not None
    )
    res = validate(root)
    assert res.exit_code == 1 and str(problem) in res.output.splitlines()


def test_deep_nesting_built_from_a_chain_of_aliases_is_refused(mini_path, tmp_path):
    root = copy_of(mini_path, tmp_path)
    chain = ["link0: &link0 [end]"] + [f"link{i}: &link{i} [*link{i - 1}]" for i in range(1, 1500)]
    append(root, SCENARIO, "\n".join(chain))  # shallow as written, 1500 levels once expanded
    [problem] = errors_in(root, SCENARIO)
    assert "nested deeper than 100 levels once aliases are expanded" in problem.message


def test_an_alias_inside_its_own_anchor_is_refused(mini_path, tmp_path):
    root = copy_of(mini_path, tmp_path)
    append(root, SCENARIO, "loop: &loop [1, *loop]")
    [problem] = errors_in(root, SCENARIO)
    assert "refers to a value that contains it" in problem.message
    assert validate(root).exit_code == 1


# --- entries the hash walk could not finish ------------------------------------------------------


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs os.mkfifo to make a FIFO (POSIX only)")
def test_a_fifo_in_the_folder_is_refused_not_read(mini_path, tmp_path):
    root = copy_of(mini_path, tmp_path)
    os.mkfifo(root / "agents/parcel-desk/notes.md")  # a read would block forever
    [problem] = errors_in(root, "agents/parcel-desk/notes.md")
    assert "not a regular file" in problem.message


def test_a_symlink_loop_is_refused_not_walked_forever(mini_path, tmp_path):
    root = copy_of(mini_path, tmp_path)
    for name in ("up", "up-again"):  # two links back up: 2**depth paths to walk
        (root / "agents/parcel-desk" / name).symlink_to("..", target_is_directory=True)
    problems = errors_in(root, "agents/parcel-desk/up")
    assert problems and "loops back" in problems[0].message


def test_a_broken_symlink_is_one_line(mini_path, tmp_path):
    root = copy_of(mini_path, tmp_path)
    (root / "agents/parcel-desk/notes.md").symlink_to(
        "gone.md"
    )  # inside the folder, but nothing there
    [problem] = errors_in(root, "agents/parcel-desk/notes.md")
    assert "broken symlink" in problem.message
    assert validate(root).exit_code == 1
