"""The notebooks' prose says only what their outputs, their code or a sourced fact say.

A number typed in a markdown cell drifts: a rerun, a retrained model or a new results
file changes the output and the sentence stays. So every number written in a notebook's
markdown must be

* printed in that notebook's stored outputs (streams, text/plain, text/markdown,
  text/html), or
* a literal of one of its code cells (a setting the reader can see), or
* inside a phrase of ``FACTS``: a short list of facts kept here, each with its source
  (a rule of chess, a paper, a seed in ../shared/seeds/, a formula).

How numbers are compared ("as printed"): a number is a run of digits with an optional
decimal part, not glued to a letter or an underscore on its left (so squares like e4,
names like Q2, c35, planes14 or mcts@1s's "1" after "@"... are not numbers: see
``number_tokens``). Thousands separators are dropped ("1,534" is 1534), a sign is
ignored ("+84" and "-84" are 84: prose writes a range "-1 to +1" or a gain "+100"),
trailing decimal zeros are dropped ("0.350" is 0.35, "2.0" is 2), and a
percentage is its number ("53.7%" needs "53.7" printed). No rounding: prose writing
"0.35" for a printed "0.3496" fails; print the rounded number.

Not number claims (``exempt_spans``, kept few): link targets and URLs, HTML tags, a
heading's leading notebook number ("# 09 · ..."), a numbered list's "1.", a number
named by a structural word (notebook 05, Exercise 3, section 2, cell 12, step 1,
chapter 6, seed 001, ...), and a citation's volume and year ("*Nature* 550 (2017)",
"(Kocsis and Szepesvári, 2006)"). A fenced code block (a command to type) and an inline
code span that sets something (`max_plies=400`, `--games 32`) hold settings the reader
types, like a code cell's literals. Other code spans and LaTeX are read like the rest; only
the formula constants 0, 1, 2 and 10 inside LaTeX are exempt.
"""
import importlib
import json
import re
from pathlib import Path

import pytest

NOTEBOOKS = sorted((Path(__file__).resolve().parent.parent / "notebooks").glob("*.ipynb"))

#: Facts a notebook may state without printing them: (regex of the phrase that states
#: it, source). Every number inside a match of the phrase is covered.
FACTS = [
    (r"\b8\s*x\s*8\b|\b64(?=[- ](?:squares|buttons|numbers?|codes)\b)|x 64 squares|"
     r"square \* 64 \+|\(12, 64\)",
     "rule of chess: the board has 8 x 8 = 64 squares"),
    (r"pawn 100, knight and bishop 300, rook 500, queen 900|100/300/300/500/900",
     "piece values of the Naive Bayes chapter's material evaluation (seed 002, table "
     "'Values of Chess Pieces')"),
    (r"h8 = 63", "python-chess numbers the squares a1 = 0, b1 = 1, ..., h8 = 63 "
     "(chess.SQUARES)"),
    (r"learning rate 0\.001", "the thesis (seed 000): 'learning rate ... equal to $0.001$'"),
    (r"about 20× more positions for every extra ply from the start|20 legal moves at the start|one ply from the start, 400 after two, 8,902 after three",
     "rule of chess: perft from the initial position is 20, 400, 8,902"),
    (r"75-move rule", "rule of chess: FIDE Laws of Chess, article 9.6.2 (75 moves)"),
    (r"50-move rule|fifty-move", "rule of chess: FIDE Laws of Chess, article 9.3 (50 moves)"),
    (r"0\.64 (?:is|about) \+100|0\.76 (?:is|about) \+200",
     "Elo's logistic formula: 1 / (1 + 10^(-d/400)) is 0.640 at d = 100, 0.760 at d = 200"),
    (r"\$P' = 0\.75\\,P \+ 0\.25\\,\\eta\$",
     "AlphaZero (Silver et al. 2018; the MCTS notes, seed 004): root prior 0.75 P + 0.25 "
     "Dirichlet noise"),
    (r"the 55% arena", "the MCTS notes (seed 004): a new agent replaces the best when it "
     "wins more than 55% of the games"),
    (r"700,000 steps of 4,096 positions",
     "AlphaZero (Silver et al., arXiv:1712.01815): 'Training proceeded for 700,000 steps "
     "(mini-batches of size 4,096)' (notebook 12)"),
    (r"9 planes, 4272 moves|9 planes in, 4272 move logits",
     "the actor-critic README (seed 003): 9x8x8 input, 4272-move policy"),
    (r"half a session \(45 minutes\)|\(\d+ minutes(?:, if it is installed)?\)",
     "a lesson plan's durations: the author's estimates (TEACHING.md says so), not a "
     "measurement"),
    (r"README writes 2 \* 64 \+ 30 = 158|\"the 30th square\"",
     "the actor-critic README (seed 003): '2 x 64 + 30 = 158', 'the 30th element'"),
    (r"Stockfish 15.1 scales its centipawns so that \+100 means roughly a 50% chance to win",
     "Stockfish 15.1's release notes: evaluations are normalised so that +1 (100 cp) is a "
     "50% win chance (its win-rate model, UCI_ShowWDL)"),
    (r"14 planes, 896 numbers|12 piece planes, 768 numbers|\b14 planes\b",
     "the tutorial's input (seed 001): 14 planes of 8 x 8 (14 x 64 = 896); its first 12 "
     "are the piece planes (12 x 64 = 768)"),
    (r"\+400 cp \(about a piece up\) becomes 0\.76|\+400 cp about 0\.73",
     "arithmetic: tanh(400 / 400) = 0.762 and 1 / (1 + e^-1) = 0.731"),
    (r"Stockfish labels, 14 planes", "the tutorial (seed 001): 14x8x8 input planes"),
    (r"the games took 12 min 32 s, the random positions 8 min 20 s, the depth-10 labels "
     r"67 min and the depth-8 extension 14 min 17 s \(about 102 min in all\)",
     "data/README.md (the maintainers' measurement when data/positions.npz was made, not "
     "shipped to students, so notebook 04 says 'measured once when the shipped data was "
     "built'): table 'Measured' (12 min 32 s, 8 min 20 s, 67 min) and the `data extend` "
     "paragraph (14 min 17 s); their sum is 102 min"),
    (r"UCI_Elo type spin default 1350 min 1350 max 2850",
     "Stockfish 15.1's reply to `uci` (its UCI_Elo option; notebook 04 prints the installed "
     "engine's reply when there is one)"),
]

#: Words that name a place in the course or a document, not a quantity.
STRUCTURAL = (r"notebooks?|exercises?|sections?|cells?|steps?|parts?|chapters?|sessions?|"
              r"issues?|questions?|seeds?|figures?|tables?|tasks?|lessons?|weeks?|"
              r"try-this items?|item|version|planes?")

_NUMBER = re.compile(
    r"(?<![\w@.\\])"                               # not glued to a name on its left
    r"(\d{1,3}(?:,\d{3})+(?!\d)|\d+)"              # integer part, maybe with 1,000 commas
    r"(\.\d+)?"                                    # decimal part
    r"(?:[eE]([-+−]?\d+))?"                        # exponent (1e-9)
)


def _normal(integer: str, fraction: str | None, exponent: str | None) -> str:
    text = str(int(integer.replace(",", "")))
    if fraction and fraction.rstrip("0") != ".":
        text += fraction.rstrip("0")
    if exponent:
        text += "e" + str(int(exponent.replace("−", "-")))
    return text


def number_tokens(text: str):
    """(start, end, normal form) of each number in ``text`` (see the module docstring)."""
    for m in _NUMBER.finditer(text):
        yield m.start(), m.end(), _normal(m.group(1), m.group(2), m.group(3))


def numbers_in(text: str) -> set:
    """The normal forms of every number in ``text``; 1_000_000 in code is 1000000."""
    text = re.sub(r"(?<=\d)_(?=\d)", "", text)
    return {n for _, _, n in number_tokens(text)}


def _cell_text(cell) -> str:
    return "".join(cell["source"])


def outputs_and_code(nb) -> tuple[set, set]:
    """Numbers printed by a notebook's code cells, and numbers written in its code."""
    printed, written = [], []
    for cell in nb["cells"]:
        if cell["cell_type"] != "code":
            continue
        written.append(_cell_text(cell))
        for out in cell.get("outputs", []):
            printed.append("".join(out.get("text", "")))
            printed.append(str(out.get("evalue", "")))
            for mime, value in out.get("data", {}).items():
                if mime.startswith("text/"):
                    printed.append("".join(value))
    return numbers_in("\n".join(printed)), numbers_in("\n".join(written))


def exempt_spans(text: str) -> list[tuple[int, int]]:
    """Character ranges of a markdown cell that hold no number claim."""
    patterns = [
        r"\]\([^)]*\)",                                     # link targets
        r"\w+://\S+",                                      # URLs (tcp://HOST:8786)
        r"^```.*?^```",                                     # fenced code: commands to type
        r"`[^`]*(?:=|--)[^`]*`",                            # `max_plies=400`, `--games 32`
        r"\bStockfish \d+(?:\.\d+)?",                       # a program's version
        r"<[^>\n]+>",                                       # HTML tags
        r"^#+\s*\d+",                                       # "# 09 · Play lab"
        r"^\s*\d+\.(?=\s)",                                 # numbered list items
        rf"\b(?:{STRUCTURAL})\s+\d+[a-z]?(?:\.\d+)*(?:(?:\s*,\s*|\s+and\s+|\s+or\s+|-)\d+[a-z]?)*",
        r"\*\s+\d+\s+\((?:19|20)\d\d\)",                    # "*Nature* 550 (2017)"
        r"\b\d+\s+\((?:19|20)\d\d\)",                       # "report 88 (1970)"-like volume
        r"\((?:19|20)\d\d\)",                               # "(2016)"
        r",\s+(?:19|20)\d\d\)",                             # "(Auer ..., 2002)"
        r"\b\d+(?:st|nd|rd|th) ed\.",                       # "2nd ed."
        r"section \d+(?:\.\d+)+",                           # "section 6.6.3"
        r"technical report \d+",
    ]
    flags = re.M | re.I | re.S
    spans = [(m.start(), m.end()) for p in patterns for m in re.finditer(p, text, flags)]
    for pattern, _source in FACTS:
        pattern = pattern.replace(" ", r"\s+")          # a phrase may wrap in the source
        spans += [(m.start(), m.end()) for m in re.finditer(pattern, text)]
    for m in re.finditer(r"\$[^$\n]+\$", text):             # LaTeX formula constants
        for start, end, value in number_tokens(m.group()):
            if value in {"0", "1", "2", "10"}:
                spans.append((m.start() + start, m.start() + end))
    return spans


def _sentence(text: str, start: int, end: int) -> str:
    left = max(text.rfind(". ", 0, start), text.rfind("\n\n", 0, start), -1)
    right = min([i for i in (text.find(". ", end), text.find("\n\n", end)) if i >= 0],
                default=len(text))
    return " ".join(text[left + 1:right + 1].split())


def free_numbers(nb) -> list[tuple[int, str, str]]:
    """(cell index, number, sentence) of each markdown number the rules do not cover."""
    printed, written = outputs_and_code(nb)
    known = printed | written
    found = []
    for index, cell in enumerate(nb["cells"]):
        if cell["cell_type"] != "markdown":
            continue
        text = _cell_text(cell)
        spans = exempt_spans(text)
        for start, end, value in number_tokens(text):
            if any(a <= start and end <= b for a, b in spans):
                continue
            if value not in known:
                found.append((index, value, _sentence(text, start, end)))
    return found


def describe(name: str, found) -> str:
    return "\n".join(f"{name} cell {i}: {value!r} is not printed, not a code literal and "
                     f"not a listed fact: {sentence!r}" for i, value, sentence in found)


def _load(path):
    return json.loads(path.read_text(encoding="utf-8"))


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem[:2])
def test_every_number_in_the_prose_is_printed_written_or_sourced(path):
    found = free_numbers(_load(path))
    assert not found, ("print the number by code, point at the output instead, or add a "
                       "sourced fact to FACTS in tests/test_prose.py:\n"
                       + describe(path.name, found))


def _markdown(text):
    return {"cell_type": "markdown", "source": text}


def _code(text, printed=""):
    return {"cell_type": "code", "source": text, "outputs": [
        {"output_type": "stream", "name": "stdout", "text": printed}]}


def test_a_planted_free_number_is_flagged_with_its_cell_and_sentence():
    nb = _load(NOTEBOOKS[0])
    planted = json.loads(json.dumps(nb))
    planted["cells"].insert(1, _markdown("Intro.\n\nThe network wins 73.4% of its games. "
                                         "Then more."))
    found = [f for f in free_numbers(planted) if f[0] == 1]
    assert found == [(1, "73.4", "The network wins 73.4% of its games.")]
    message = describe("01_board_encoding.ipynb", found)
    assert "01_board_encoding.ipynb cell 1: '73.4'" in message
    assert "The network wins 73.4% of its games." in message


def test_printed_written_and_sourced_numbers_pass_and_the_rest_fail():
    nb = {"cells": [
        _code("depth = 4\nprint(f'{score:.3f}')", printed="score 0.350   1,534 positions\n"),
        _markdown("At depth 4 the score is 0.35 over 1534 positions (notebook 07, "
                  "section 2). A rook is 500: pawn 100, knight and bishop 300, rook 500, "
                  "queen 900. See [x](https://a.b/c?x=12345) and "
                  "*Nature* 550 (2017)."),
        _markdown("It takes 88 minutes. e4 and Nf3 and Q2 are names. About 0.3496."),
    ]}
    found = free_numbers(nb)
    assert [(i, v) for i, v, _ in found] == [(1, "500"), (2, "88"), (2, "0.3496")]


def test_number_normal_forms():
    assert numbers_in("1,534 and +84, -0.350, 2.0, 53.7%, 1e-09, 1_000_000") == {
        "1534", "84", "0.35", "2", "53.7", "1e-9", "1000000"}
    assert numbers_in("e4 Nf3 c35 Q2 mcts@1s planes14 x_2") == set()


# ------------------------------------------------------------ chesslab names in prose
def markdown_names(nb) -> list[tuple[int, str]]:
    """(cell index, dotted name) of each ``chesslab.x.y`` written in markdown."""
    names = []
    for index, cell in enumerate(nb["cells"]):
        if cell["cell_type"] == "markdown":
            names += [(index, m) for m in re.findall(r"\bchesslab(?:\.[A-Za-z_]\w*)+",
                                                     _cell_text(cell))]
    return names


def resolves(dotted: str) -> bool:
    """True when ``dotted`` is a module, or an attribute path inside one."""
    parts = dotted.split(".")
    for cut in range(len(parts), 0, -1):
        try:
            obj = importlib.import_module(".".join(parts[:cut]))
        except ImportError:
            continue
        for attribute in parts[cut:]:
            if not hasattr(obj, attribute):
                try:                                  # a submodule not imported yet
                    obj = importlib.import_module(f"{obj.__name__}.{attribute}")
                    continue
                except (ImportError, AttributeError):
                    return False
            obj = getattr(obj, attribute)
        return True
    return False


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem[:2])
def test_every_chesslab_name_in_the_prose_resolves(path):
    wrong = [(i, name) for i, name in markdown_names(_load(path)) if not resolves(name)]
    assert not wrong, "\n".join(f"{path.name} cell {i}: {name} does not import"
                                for i, name in wrong)


def test_a_planted_wrong_name_is_flagged():
    nb = {"cells": [_markdown("See `chesslab.search.searcher.Searcher` and "
                              "`chesslab.search.no_such_module.thing` and "
                              "chesslab.training.recipe.quiet_leaf.")]}
    wrong = [name for _, name in markdown_names(nb) if not resolves(name)]
    assert wrong == ["chesslab.search.no_such_module.thing"]
    assert not resolves("chesslab.search.searcher.NoSuchClass")
