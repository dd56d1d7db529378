"""The Pareto frontier of vision calls against success, read with the intervals: which configs no
other config beats, and which ones the data cannot tell apart."""

from __future__ import annotations

import numpy as np
import pandas as pd


def _bounds(points: pd.DataFrame, column: str, low: str, high: str) -> tuple[np.ndarray, np.ndarray]:
    """A column's interval, or the values themselves where the table has no interval."""
    values = points[column].to_numpy(float)
    if low not in points or high not in points:
        return values, values
    return points[low].to_numpy(float), points[high].to_numpy(float)


def pareto_frontier(points: pd.DataFrame, x: str = "vision_calls",
                    y: str = "success_rate") -> pd.Series:
    """True for points no other point beats. One point beats another when it is better on one axis
    beyond the intervals (fewer calls: its whole interval lies below the other's; more success:
    above) and not worse beyond them on the other. Without interval columns the intervals are the
    values, and this is the plain frontier (fewer or equal calls, higher or equal success)."""
    x_lo, x_hi = _bounds(points, x, f"{x}_low", f"{x}_high")
    y_lo, y_hi = _bounds(points, y, "success_low", "success_high")
    on = []
    for i in range(len(points)):
        fewer, more = x_hi < x_lo[i], y_lo > y_hi[i]
        not_more_calls, not_less_success = ~(x_lo > x_hi[i]), ~(y_hi < y_lo[i])
        if x_lo[i] == x_hi[i] and y_lo[i] == y_hi[i]:  # no intervals: ties count as not worse
            fewer, more = x_hi < x_lo[i], y_lo > y_hi[i]
            not_more_calls, not_less_success = x_lo <= x_hi[i], y_hi >= y_lo[i]
        beaten = (fewer & not_less_success) | (more & not_more_calls)
        on.append(not beaten.any())
    return pd.Series(on, index=points.index, name="pareto")


def indistinct(points: pd.DataFrame, names: str = "config_name", x: str = "vision_calls",
               y: str = "success_rate") -> pd.Series:
    """Per point, the other points whose intervals overlap its own on both axes (the data cannot
    tell them apart), as "a, b"."""
    x_lo, x_hi = _bounds(points, x, f"{x}_low", f"{x}_high")
    y_lo, y_hi = _bounds(points, y, "success_low", "success_high")
    label = points[names].astype(str).to_numpy()
    out = []
    for i in range(len(points)):
        overlap = (x_lo <= x_hi[i]) & (x_hi >= x_lo[i]) & (y_lo <= y_hi[i]) & (y_hi >= y_lo[i])
        overlap[i] = False
        out.append(", ".join(label[overlap]))
    return pd.Series(out, index=points.index, name="indistinct_from")
