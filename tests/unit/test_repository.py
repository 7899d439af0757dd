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


def test_a_non_editable_install_ships_every_package():
    """Every folder with an __init__.py under a package-dir root is listed in pyproject's packages (a
    missing one installs with `pip install .` but fails to import)."""
    import tomllib

    setuptools = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
    found = set()
    for name, folder in setuptools["package-dir"].items():
        for init in (ROOT / folder).rglob("__init__.py"):
            parts = init.parent.relative_to(ROOT / folder).parts
            found.add(".".join((name, *parts)))
    assert found - set(setuptools["packages"]) == set()
