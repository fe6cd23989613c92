"""Matches of the Naive Bayes engine (bayes:3) against random, material:3 and pst:3.

    flock /tmp/chesslab-cpu.lock python bench/bayes_matches.py

plays 40 games per opponent in chunks of 4 (colours alternate; chunk c uses the
arena's openings 2c and 2c+1, one from each side, and seeds c, c+1) and records every
finished chunk in data/results/bayes_matches.json, so an interrupted run resumes
where it stopped. ``--max-chunks 1`` plays one chunk and exits, ``--max-minutes 8``
starts no chunk that might end after 8 minutes (to keep each job that holds the CPU
lock short). Notebook 09 shows the table from that file.
"""
from __future__ import annotations

import argparse
import math
import time

from chesslab.arena import OPENINGS, MatchResult, match
from chesslab.files import DATA_DIR, read_json, write_json_atomic

RESULTS = DATA_DIR / "results" / "bayes_matches.json"
PLAYER = "bayes:3"


def summarise(chunks: dict) -> dict:
    """Totals over finished chunks, with the arena's score interval and Elo."""
    total = MatchResult(PLAYER, "")
    for chunk in chunks.values():
        total.wins += chunk["wins"]
        total.draws += chunk["draws"]
        total.losses += chunk["losses"]
    finite = lambda x: round(x, 1) if math.isfinite(x) else None  # noqa: E731
    low, high = total.score_interval()
    return {"games": total.n, "wins": total.wins, "draws": total.draws,
            "losses": total.losses, "score": round(total.score, 4),
            "score_95": [round(low, 4), round(high, 4)], "elo": finite(total.elo),
            "elo_error": finite(total.elo_error)}


def play_chunk(opponent: str, index: int, size: int) -> dict:
    openings = tuple(OPENINGS[(2 * index + k) % len(OPENINGS)] for k in range(2))
    start = time.perf_counter()
    result = match(PLAYER, opponent, games=size, openings=openings, seed=index,
                   progress=False)
    games = [{"white": g.headers["White"], "black": g.headers["Black"],
              "result": g.headers["Result"], "termination": g.headers["Termination"],
              "plies": int(g.headers["PlyCount"]), "opening": g.headers.get("Opening", "")}
             for g in result.games]
    return {"wins": result.wins, "draws": result.draws, "losses": result.losses,
            "seconds": round(time.perf_counter() - start, 1), "games": games}


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--opponents", nargs="+", default=["random", "material:3", "pst:3"])
    parser.add_argument("--games", type=int, default=40)
    parser.add_argument("--chunk", type=int, default=4, help="games per chunk (even)")
    parser.add_argument("--max-chunks", type=int, default=None,
                        help="stop after this many chunks (resume later)")
    parser.add_argument("--max-minutes", type=float, default=None,
                        help="start no chunk that might end after this many minutes")
    parser.add_argument("--out", default=str(RESULTS))
    args = parser.parse_args(argv)

    try:
        results = read_json(args.out, "match results")
    except FileNotFoundError:
        results = {"player": PLAYER, "command": "python bench/bayes_matches.py",
                   "chunk": args.chunk, "matches": {}}
    if results.get("chunk") != args.chunk:
        raise SystemExit(f"{args.out} was played in chunks of {results.get('chunk')}; "
                         f"use --chunk {results.get('chunk')} or a new --out")
    played, start, longest = 0, time.perf_counter(), 0.0
    # Round-robin over the opponents, so a partial run has games against each of them.
    for index in range(args.games // args.chunk):
        for opponent in args.opponents:
            entry = results["matches"].setdefault(opponent, {"chunks": {}})
            if str(index) in entry["chunks"]:
                continue
            if args.max_chunks is not None and played >= args.max_chunks:
                return 0
            elapsed = time.perf_counter() - start
            if args.max_minutes is not None and elapsed + longest > 60 * args.max_minutes:
                return 0
            entry["chunks"][str(index)] = play_chunk(opponent, index, args.chunk)
            longest = max(longest, entry["chunks"][str(index)]["seconds"])
            entry["summary"] = summarise(entry["chunks"])
            write_json_atomic(args.out, results, indent=1)
            played += 1
            s = entry["summary"]
            print(f"{PLAYER} vs {opponent}: chunk {index} done "
                  f"({entry['chunks'][str(index)]['seconds']} s); so far +{s['wins']} "
                  f"={s['draws']} -{s['losses']} in {s['games']} games", flush=True)
    print("all matches complete")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
