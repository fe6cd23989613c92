"""Two policy-value networks head to head, both with MCTS at the same simulations.

    python bench/mcts_head_to_head.py --a NEW.json --b data/models/policy_value.json \
        --simulations 300 --games 64 --workers 2

The games start from the 16 standard openings of ``arena.match`` and, past 32 games,
from the first 8 plies of held-out game records (the last tenth of the shipped games,
which the bootstrap never trained on); each start is played once with each colour.
Both players search greedily (no noise, most visited move), so every game differs only
by its start. A game still running after ``--max-plies`` is a draw, as in every match
table here. The result goes to data/results/mcts_head_to_head.json under the SHA-256
prefixes of both files, with the score's 95% interval and the Elo difference it implies,
and, when the first network came from self-play, after how many iterations.
"""
from __future__ import annotations

import argparse
import hashlib
import time
from pathlib import Path

from chesslab.arena import OPENINGS, MatchResult, match
from chesslab.files import DATA_DIR, read_json, write_json_atomic
from chesslab.bootstrap import shipped_game_split
from chesslab.mcts import mcts_player
from chesslab.parallel import parallel_map
from chesslab.policy_value import load_policy_value

OUT = DATA_DIR / "results" / "mcts_head_to_head.json"


def held_out_openings(count: int, plies: int = 8) -> list[str]:
    lines = []
    for game in shipped_game_split()[1]:
        moves = list(game.mainline_moves())
        if len(moves) > plies + 20:
            lines.append(" ".join(m.uci() for m in moves[:plies]))
        if len(lines) == count:
            break
    return lines


def self_play_iterations(path) -> dict:
    """``{"after_iterations": N}`` when the network was trained by N self-play iterations
    (``train_selfplay`` notes them in the file; the shipped network under "selfplay"),
    else {}: notebook 10 plots the matches of such networks against the bootstrap."""
    notes = load_policy_value(path).training_notes
    n = notes.get("iterations", notes.get("selfplay", {}).get("iterations"))
    return {} if n is None else {"after_iterations": int(n)}


def play_chunk(job):
    a_path, b_path, simulations, openings, max_plies, seed = job
    a = mcts_player(simulations, seed=seed, model=a_path,
                    name=f"{Path(a_path).stem} mcts:{simulations}")
    b = mcts_player(simulations, seed=seed + 1, model=b_path,
                    name=f"{Path(b_path).stem} mcts:{simulations}")
    res = match(a, b, games=2 * len(openings), openings=openings, max_plies=max_plies,
                progress=False)
    return {"wins": res.wins, "draws": res.draws, "losses": res.losses,
            "terminations": [g.headers.get("Termination") for g in res.games]}


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--a", required=True, help="network file of the first player")
    parser.add_argument("--b", required=True, help="network file of the second player")
    parser.add_argument("--simulations", type=int, default=300)
    parser.add_argument("--games", type=int, default=64, help="an even number")
    parser.add_argument("--max-plies", type=int, default=200)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    starts = args.games // 2
    openings = list(OPENINGS[:starts]) + held_out_openings(max(0, starts - len(OPENINGS)))
    chunks = [openings[i::args.workers] for i in range(args.workers)]
    t0 = time.perf_counter()
    parts = parallel_map(play_chunk, [(args.a, args.b, args.simulations, chunk, args.max_plies,
                                       args.seed) for chunk in chunks if chunk], args.workers)
    res = MatchResult(f"{Path(args.a).name} mcts:{args.simulations}",
                      f"{Path(args.b).name} mcts:{args.simulations}")
    res.wins, res.draws, res.losses = (sum(p[k] for p in parts)
                                       for k in ("wins", "draws", "losses"))
    low, high = res.score_interval()
    sha = {p: hashlib.sha256(Path(p).read_bytes()).hexdigest()[:16] for p in (args.a, args.b)}
    entry = {**self_play_iterations(args.a), "a": Path(args.a).name, "b": Path(args.b).name, "a_network": sha[args.a],
             "b_network": sha[args.b], "simulations": args.simulations, "games": res.n,
             "max_plies": args.max_plies, "wins": res.wins, "draws": res.draws,
             "losses": res.losses, "score": round(res.score, 4),
             "ci95": [round(low, 3), round(high, 3)], "summary": res.summary(),
             "terminations": [t for p in parts for t in p["terminations"]],
             "seconds": round(time.perf_counter() - t0, 1)}
    doc = read_json(OUT, "results") if OUT.exists() else {"matches": []}
    doc["matches"].append(entry)
    write_json_atomic(OUT, doc, indent=1)
    print(res.summary(), f"({entry['seconds']:.0f} s)")

if __name__ == "__main__":
    main()
