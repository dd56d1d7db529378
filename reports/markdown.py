"""Markdown pieces shared by the report and its tables."""

from __future__ import annotations

import math

import pandas as pd


def pct(x: float) -> str:
    return "–" if x is None or math.isnan(x) else f"{100 * x:.0f}%"


def md_table(frame: pd.DataFrame) -> str:
    """A DataFrame as a Markdown (GFM) table; numbers right-aligned."""
    def cell(v: object) -> str:
        text = "" if v is None or (isinstance(v, float) and math.isnan(v)) else str(v)
        return text.replace("|", "\\|").replace("\n", " ")

    cols = [str(c) for c in frame.columns]
    align = ["---:" if pd.api.types.is_numeric_dtype(frame[c]) else "---" for c in frame.columns]
    lines = ["| " + " | ".join(cell(c) for c in cols) + " |", "| " + " | ".join(align) + " |"]
    lines += ["| " + " | ".join(cell(v) for v in row) + " |" for row in frame.itertuples(index=False)]
    return "\n".join(lines)
