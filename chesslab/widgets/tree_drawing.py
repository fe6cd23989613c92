"""Small SVG pictures for the tree explorers: a layered tree of boxes, bars of visits.

Written by hand (a few string templates) so that a step of the explorer redraws in
milliseconds: matplotlib would take longer than the step itself. Each box has up to
three lines of text and a style (``STYLES``); edges join a box to its parent in the
level above, their width can carry a number (MCTS visits).
"""
from __future__ import annotations

import html
import math

BOX_W, BOX_H, GAP_X, GAP_Y, PAD = 96, 48, 6, 24, 6

#: style -> (fill, stroke, stroke width, dashed, text colour)
STYLES = {
    "open": ("#fff7d6", "#c9a227", 1.2, False, "#222"),      # entered, not finished
    "done": ("#ffffff", "#777777", 1.0, False, "#222"),      # finished, exact value
    "cutoff": ("#fde2e2", "#c0392b", 1.2, False, "#222"),    # failed high: a cut-off
    "quiesce": ("#e4f4e4", "#4d8f4d", 1.0, False, "#222"),   # quiescence search
    "tt": ("#ece4f7", "#7d5ba6", 1.0, False, "#222"),        # answered by the table
    "pruned": ("#f2f2f2", "#b0b0b0", 1.0, True, "#999"),     # never searched
    "collapsed": ("#fafafa", "#cccccc", 1.0, True, "#777"),  # siblings not drawn
    "current": ("#ffe9b3", "#e67e22", 2.6, False, "#111"),   # the step just taken
    "selected": ("#dbe9ff", "#2e6fd8", 2.6, False, "#111"),  # the node shown beside
}


class Box:
    """A node to draw: ``key`` (unique), up to three ``lines``, a ``style`` of
    ``STYLES``, the ``parent`` key in the level above, an ``edge`` width (default 1)."""

    __slots__ = ("key", "lines", "style", "parent", "edge", "x", "y")

    def __init__(self, key, lines, style="done", parent=None, edge=1.0):
        self.key, self.lines, self.style, self.parent, self.edge = key, lines, style, parent, edge
        self.x = self.y = 0.0


def tree_svg(levels, note: str = "") -> str:
    """An SVG of ``levels`` (lists of ``Box``, top level first), each level centred."""
    widest = max((len(level) for level in levels), default=1)
    width = max(widest * (BOX_W + GAP_X) + 2 * PAD, 320)
    top = PAD + (16 if note else 0)
    height = top + len(levels) * (BOX_H + GAP_Y) - GAP_Y + PAD
    placed = {}
    for row, level in enumerate(levels):
        start = (width - len(level) * (BOX_W + GAP_X) + GAP_X) / 2
        for i, box in enumerate(level):
            box.x, box.y = start + i * (BOX_W + GAP_X), top + row * (BOX_H + GAP_Y)
            placed[box.key] = box
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width:.0f}" '
             f'height="{height:.0f}" font-family="DejaVu Sans, sans-serif" font-size="11">']
    if note:
        parts.append(f'<text x="{PAD}" y="{PAD + 10}" fill="#555">{html.escape(note)}</text>')
    for level in levels:
        for box in level:
            parent = placed.get(box.parent)
            if parent is None:
                continue
            dash = ' stroke-dasharray="4 3"' if box.style in ("pruned", "collapsed") else ""
            parts.append(f'<line x1="{parent.x + BOX_W / 2:.1f}" y1="{parent.y + BOX_H:.1f}" '
                         f'x2="{box.x + BOX_W / 2:.1f}" y2="{box.y:.1f}" stroke="#8a8a8a" '
                         f'stroke-width="{box.edge:.2f}"{dash}/>')
    for level in levels:
        for box in level:
            parts.append(_box(box))
    parts.append("</svg>")
    return "".join(parts)


def _box(box) -> str:
    fill, stroke, width, dashed, ink = STYLES[box.style]
    dash = ' stroke-dasharray="4 3"' if dashed else ""
    out = [f'<g class="node-{box.style}"><rect x="{box.x:.1f}" y="{box.y:.1f}" '
           f'width="{BOX_W}" height="{BOX_H}" rx="5" fill="{fill}" stroke="{stroke}" '
           f'stroke-width="{width}"{dash}/>']
    for i, line in enumerate(box.lines[:3]):
        weight = ' font-weight="bold"' if i == 0 else ""
        out.append(f'<text x="{box.x + BOX_W / 2:.1f}" y="{box.y + 14 + 14 * i:.1f}" '
                   f'text-anchor="middle" fill="{ink}"{weight}>{html.escape(line)}</text>')
    out.append("</g>")
    return "".join(out)


def window_of(items, keep: int, size: int) -> tuple:
    """(first, last) indices of at most ``size`` consecutive items around ``keep``."""
    if len(items) <= size:
        return 0, len(items)
    first = min(max(keep - size // 2, 0), len(items) - size)
    return first, first + size


def bars_svg(rows, title: str = "", width: int = 360) -> str:
    """Horizontal bars: ``rows`` of (label, length 0..1, text after the bar, highlight)."""
    row_h, label_w = 18, 58
    height = PAD * 2 + row_h * len(rows) + (18 if title else 0)
    y0 = PAD + (18 if title else 0)
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
             f'font-family="DejaVu Sans, sans-serif" font-size="11">']
    if title:
        parts.append(f'<text x="{PAD}" y="{PAD + 11}" fill="#333" font-weight="bold">'
                     f'{html.escape(title)}</text>')
    room = width - label_w - 160                  # room for the text after the bar
    for i, (label, length, text, hot) in enumerate(rows):
        y = y0 + i * row_h
        colour = "#e67e22" if hot else "#4a78c2"
        bar = max(0.0, min(1.0, length)) * room
        parts.append(f'<text x="{PAD}" y="{y + 12}" fill="#222">{html.escape(label)}</text>'
                     f'<rect x="{label_w}" y="{y + 3}" width="{bar:.1f}" height="{row_h - 6}" '
                     f'fill="{colour}"/><text x="{label_w + bar + 4:.1f}" y="{y + 12}" '
                     f'fill="#444">{html.escape(text)}</text>')
    parts.append("</svg>")
    return "".join(parts)


def edge_width(visits: float, most: float) -> float:
    """Edge width by visits: thin for a single visit, thickest for the most visited edge
    (square root, so that the rarely visited edges stay visible)."""
    if visits <= 0 or most <= 0:
        return 0.6
    return 0.6 + 6.4 * math.sqrt(visits / most)
