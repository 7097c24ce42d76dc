"""Figures over rounds, and how they are shown: medians and spread, ratios, Markdown tables, charts.

A scenario returns its raw figures as ``{case: {engine: {figure: [one value per round]}}}``; this
module turns them into summaries, a Markdown table (median, spread, kconnect / Java) and a chart.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

Raw = Mapping[str, Mapping[str, Mapping[str, list[float]]]]
"""case -> engine -> figure -> one value per round."""

COLOURS = {
    "java": "#dd8452",
    "kconnect": "#4c72b0",
    "kconnect_count": "#a1c9f4",
    "json": "#dd8452",
    "avro": "#4c72b0",
    "ceiling": "#8c8c8c",
    "storage": "#4c72b0",
    "file": "#dd8452",
    "aiokafka": "#4c72b0",
    "confluent": "#dd8452",
}

Columns = Sequence[tuple[str, str]]
"""The two engines (or settings) compared, as (key in the raw figures, label); the ratio is second / first."""

ENGINES: Columns = (("java", "Java"), ("kconnect", "kconnect"))


def median(values: Sequence[float]) -> float:
    """The median (the mean of the middle two for an even count)."""
    ordered = sorted(values)
    middle = len(ordered) // 2
    return ordered[middle] if len(ordered) % 2 else (ordered[middle - 1] + ordered[middle]) / 2


def summarize(raw: Raw) -> dict[str, Any]:
    """Median, min and max of each figure, kept beside the raw values."""
    return {
        case: {
            engine: {
                figure: {"median": median(v), "min": min(v), "max": max(v), "rounds": list(v)}
                for figure, v in figures.items()
                if v
            }
            for engine, figures in engines.items()
        }
        for case, engines in raw.items()
    }


def _format(value: float, unit: str) -> str:
    if unit in ("/s", "req/s"):
        return f"{value:,.0f}"
    if unit == "ms":
        return f"{value:,.1f}" if value < 100 else f"{value:,.0f}"
    if unit == "MiB":
        return f"{value:,.0f}"
    return f"{value:,.2f}"


def table(
    summary: Mapping[str, Any],
    figures: Sequence[tuple[str, str, str, bool]],
    case_title: str = "case",
    columns: Columns = ENGINES,
) -> str:
    """A Markdown table: one row per case and figure, Java and kconnect as median (min-max), and the ratio.

    `figures` are (key, label, unit, higher_is_better); the ratio is kconnect / Java, and a note says
    which way is better. `columns` compares two other keys of the raw figures instead.
    """
    (first, first_label), (second, second_label) = columns
    rows = [
        f"| {case_title} | figure | {first_label} | {second_label} | {second_label} / {first_label} |",
        "|---|---|---|---|---|",
    ]
    for case, engines in summary.items():
        for key, label, unit, higher in figures:
            cells = []
            for engine in (first, second):
                f = engines.get(engine, {}).get(key)
                cells.append(
                    "n/a"
                    if f is None
                    else f"{_format(f['median'], unit)} ({_format(f['min'], unit)}-{_format(f['max'], unit)})"
                )
            base, other = (engines.get(e, {}).get(key) for e in (first, second))
            ratio = (
                f"{other['median'] / base['median']:.2f}x ({'higher' if higher else 'lower'} is better)"
                if base and other and base["median"]
                else "n/a"
            )
            rows.append(f"| {case} | {label}, {unit} | {cells[0]} | {cells[1]} | {ratio} |")
    return "\n".join(rows) + "\n"


def bar_chart(
    summary: Mapping[str, Any],
    panels: Sequence[tuple[str, str]],
    title: str,
    path: Path,
    columns: Columns = ENGINES,
) -> None:
    """Grouped bars (Java and kconnect per case, or any number of `columns`) with min-max whiskers, one
    panel per (figure, label)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    cases = list(summary)
    fig, axes = plt.subplots(1, len(panels), figsize=(5.5 * len(panels), 4.2), squeeze=False)
    width = 0.76 / len(columns)
    offsets = [(i - (len(columns) - 1) / 2) * width for i in range(len(columns))]
    for axis, (key, label) in zip(axes[0], panels, strict=True):
        for offset, (engine, engine_label) in zip(offsets, columns, strict=True):
            xs, heights, low, high = [], [], [], []
            for i, case in enumerate(cases):
                f = summary[case].get(engine, {}).get(key)
                if f is None:
                    continue
                xs.append(i + offset)
                heights.append(f["median"])
                low.append(f["median"] - f["min"])
                high.append(f["max"] - f["median"])
            bars = axis.bar(
                xs, heights, width, yerr=[low, high], capsize=3, label=engine_label, color=COLOURS[engine]
            )
            axis.bar_label(bars, labels=[_short(h) for h in heights], fontsize=7, padding=2)
        axis.set_xticks(range(len(cases)), cases, fontsize=8)
        axis.set_title(label, fontsize=10)
        axis.set_ylim(bottom=0)
        axis.legend(fontsize=8)
    fig.suptitle(title, fontsize=11)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def _short(value: float) -> str:
    if value >= 10_000:
        return f"{value / 1000:.0f}k"
    if value >= 100:
        return f"{value:.0f}"
    return f"{value:.2g}" if value < 1 else f"{value:.1f}"
