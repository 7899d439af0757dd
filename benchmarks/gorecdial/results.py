"""The GoRecDial suite's tables (markdown and console) and plots: metric against the dialogue turn, like the
paper's figure 6 (Turn@1 at each expert turn; the share of games won by each utterance)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from rich.table import Table

SUPERVISED_COLUMNS = ("f1", "bleu4", "turn@1", "turn@3", "chat@1", "chat@3", "decision_acc")
HEADERS = {"f1": "F1", "bleu4": "BLEU-4", "turn@1": "Turn@1", "turn@3": "Turn@3", "chat@1": "Chat@1",
           "chat@3": "Chat@3", "decision_acc": "Decision acc"}
GAME_COLUMNS = (("goal", "Goal"), ("score", "Score"), ("turn2goal", "Turn2Goal"), ("games", "games"))
SEEKERS = {"retrieval": "retrieval seeker", "llm": "LLM seeker"}


def _cell(value: Any, interval: list[float] | None = None) -> str:
    if value is None:
        return "–"
    text = f"{value:,}" if isinstance(value, int) else f"{value:.3f}"
    return text if interval is None else f"{text} [{interval[0]:.2f}, {interval[1]:.2f}]"


def _weights(fold: dict[str, float]) -> str:
    return ", ".join(f"{name.removesuffix('_weight')} {value:.2f}" for name, value in fold.items())


def _difference(name: str, found: dict[str, Any]) -> str:
    low, high = found["turn@1_ci"]
    return f"{name} {found['turn@1']:+.3f} [{low:+.3f}, {high:+.3f}]"


def _pair_title(pair: dict[str, Any]) -> str:
    return f"{pair['train']} -> {pair['test']} ({pair['evaluation']}, {pair['test_games']} held-out games)"


def supervised_rows(pair: dict[str, Any]) -> list[list[str]]:
    return [[name, *(_cell(metrics.get(c), metrics.get(f"{c}_ci")) for c in SUPERVISED_COLUMNS)]
            for name, metrics in pair["supervised"].items()]


def game_rows(pair: dict[str, Any]) -> list[list[str]]:
    rows = []
    for expert in next(iter(pair["games"].values()), {}):
        cells = [expert]
        for seeker in pair["games"]:
            metrics = pair["games"][seeker].get(expert, {})
            cells += [_cell(metrics.get(key), metrics.get(f"{key}_ci")) for key, _ in GAME_COLUMNS]
        rows.append(cells)
    return rows


def game_headers(pair: dict[str, Any]) -> list[str]:
    return ["expert"] + [f"{label} ({SEEKERS[s]})" for s in pair["games"] for _, label in GAME_COLUMNS]


def markdown(results: dict[str, Any]) -> str:
    lines = ["# GoRecDial expert benchmark", ""]
    lines += ["| dataset | games | expert turns | recommend turns | data's expert correct (all / first pick) | "
              "skipped |", "|---|---:|---:|---:|---:|---|"]
    for label, d in results["datasets"].items():
        picks = f"{_cell(d['data_expert_correct'])} / {_cell(d['data_expert_first_correct'])}"
        lines.append(f"| {label} | {d['games']:,} | {d['expert_turns']:,} | {d['recommend_turns']:,} | {picks} | "
                     f"{', '.join(f'{k}: {v}' for k, v in d['skipped'].items()) or '–'} |")
    for pair in results["pairs"]:
        lines += ["", f"## {_pair_title(pair)}", "", "### Supervised (per expert turn; F1 and BLEU-4 on speak turns)", ""]
        headers = ["model", *(HEADERS[c] for c in SUPERVISED_COLUMNS)]
        lines += ["| " + " | ".join(headers) + " |", "|---|" + "---:|" * len(SUPERVISED_COLUMNS)]
        lines += ["| " + " | ".join(row) + " |" for row in supervised_rows(pair)]
        if pair.get("against_prior"):
            lines += ["", "Turn@1 against the candidate prior's, on the same expert turns (paired 95% interval, whole games "
                      "resampled): "
                      + "; ".join(_difference(name, d) for name, d in pair["against_prior"].items() if d["turn@1_ci"]) + "."]
        if pair.get("against_first_training"):
            against = pair["against_first_training"]
            lines += ["", f"Turn@1 against the expert trained on {against['train']}, on the same held-out expert turns (paired "
                      "95% interval, whole games resampled): " + "; ".join(_difference(name, d) for name, d in against["experts"].items()
                                                                           if d["turn@1_ci"]) + "."]
        if pair.get("predict_weights"):
            lines += ["", "PREDICT's weights, fold by fold (dialogue: the GRU's dot product; prior; cosine: the sentence "
                      "encoder's): " + "; ".join(f"{name} " + " | ".join(_weights(fold) for fold in folds)
                                                 for name, folds in pair["predict_weights"].items()) + "."]
        lines += ["", f"### Games (greedy experts, at most {pair.get('game_utterances', 20)} utterances)", ""]
        headers = game_headers(pair)
        lines += ["| " + " | ".join(headers) + " |", "|---|" + "---:|" * (len(headers) - 1)]
        lines += ["| " + " | ".join(row) + " |" for row in game_rows(pair)]
        times = ", ".join(f"{k.removesuffix('_s')} {v:.0f} s" for k, v in pair["times"].items())
        lines += ["", f"Times: {times}."]
        if pair.get("llm_usage"):
            usage = pair["llm_usage"]
            lines.append(f"LLM seeker: {usage['calls']} calls, {usage['prompt_tokens']:,} prompt and "
                         f"{usage['completion_tokens']:,} completion tokens, {usage['format_retries']} format retries.")
    lines += ["", "Turn@k: the correct candidate is among PREDICT's top k of 5 at an expert turn; Chat@k: after the "
              "whole dialogue. Goal: the seeker accepted the correct movie; Score: its points, halved per "
              "recommendation before it; Turn2Goal: utterances to the goal in won games. In brackets: 95% bootstrap "
              "intervals (Turn@1 over expert turns, the game metrics over games).", ""]
    return "\n".join(lines)


def console_tables(results: dict[str, Any]) -> list[Table]:
    tables = []
    for pair in results["pairs"]:
        table = Table(title=f"supervised: {_pair_title(pair)}")
        for header in ["model", *(HEADERS[c] for c in SUPERVISED_COLUMNS)]:
            table.add_column(header, justify="left" if header == "model" else "right")
        for row in supervised_rows(pair):
            table.add_row(*row)
        tables.append(table)
        table = Table(title=f"games: {_pair_title(pair)}")
        for header in game_headers(pair):
            table.add_column(header, justify="left" if header == "expert" else "right")
        for row in game_rows(pair):
            table.add_row(*row)
        tables.append(table)
    return tables


def plot(results: dict[str, Any], folder: Path) -> list[Path]:
    """gorecdial.png: per train x test pair, Turn@1 at each expert turn per model and the cumulative Goal by
    utterance per expert and seeker; gorecdial_botplay.png: the mean reward of each bot-play update."""
    from synth.analysis.stats.plots import pyplot

    plt = pyplot()

    pairs = results["pairs"]
    written = []
    figure, axes = plt.subplots(len(pairs), 2, figsize=(12, 4.2 * len(pairs)), squeeze=False)
    for row, pair in zip(axes, pairs):
        for name, curve in pair["turn_curves"].items():
            points = [(i + 1, v) for i, v in enumerate(curve) if v is not None]
            if points:
                row[0].plot(*zip(*points), marker="o", label=name)
        row[0].axhline(0.2, color="grey", linestyle=":", label="random")
        row[0].set(xlabel="expert turn", ylabel="Turn@1", title=f"{pair['train']} -> {pair['test']}", ylim=(0, 1.05))
        row[0].legend(fontsize=7)
        for seeker, by_expert in pair["games"].items():
            for expert, metrics in by_expert.items():
                curve = metrics["goal_by_utterance"]
                row[1].plot(range(1, len(curve) + 1), curve, label=f"{expert} vs {SEEKERS[seeker]}")
        row[1].set(xlabel="utterance", ylabel="Goal (cumulative)", title="games won by each utterance", ylim=(0, 1.05))
        row[1].legend(fontsize=7)
    figure.tight_layout()
    path = folder / "gorecdial.png"
    figure.savefig(path, dpi=120)
    plt.close(figure)
    written.append(path)
    rewards = [(p, p["botplay_reward"]) for p in pairs if p["botplay_reward"]]
    if rewards:
        figure, axis = plt.subplots(figsize=(6, 4))
        for pair, curve in rewards:
            axis.plot(range(1, len(curve) + 1), curve, label=f"{pair['train']} -> {pair['test']}")
        axis.set(xlabel="bot-play update", ylabel="mean reward (training games)", title="bot-play")
        axis.legend(fontsize=7)
        figure.tight_layout()
        path = folder / "gorecdial_botplay.png"
        figure.savefig(path, dpi=120)
        plt.close(figure)
        written.append(path)
    return written
