"""The README's two commands and CI stay in step."""

from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def readme_commands() -> list[str]:
    lines = (ROOT / "README.md").read_text().splitlines()
    return [line.strip() for line in lines[:6] if line.startswith("    ")]


def test_readme_opens_with_install_run_and_test_commands():
    install_run, test = readme_commands()
    assert '".[embedded]"' in install_run and "synth generate" in install_run
    assert "pytest" in test


def test_ci_runs_the_readme_test_command_verbatim():
    _, test = readme_commands()
    ci_lines = [line.strip() for line in (ROOT / ".ci" / "run").read_text().splitlines()]
    assert test in ci_lines
