"""The shipped policy-value network with MCTS against the classic players.

    flock /tmp/chesslab-cpu.lock python bench/mcts_matches.py --player mcts:300 \
        --opponents random,material:2,pst:3 --games 20 [--max-plies 200] [--max-minutes 9]

Uses ``arena.match`` (colours alternate, each opening from both sides). Results go to
data/results/mcts_matches.json, one entry per pairing, marked with the SHA-256 of the
network file that played; a pairing already there for the same network is skipped, so
a run cut short by --max-minutes continues where it stopped, and retraining the network
starts a fresh table (older entries stay, under their own network).
"""
from __future__ import annotations

import argparse
import hashlib
import time
from pathlib import Path

from chesslab.arena import match
from chesslab.files import DATA_DIR, read_json, write_json_atomic
from chesslab.mcts import DEFAULT_MODEL, mcts_player

OUT = DATA_DIR / "results" / "mcts_matches.json"


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--player", default="mcts:300")
    parser.add_argument("--opponents", default="random,material:2,pst:3")
    parser.add_argument("--games", type=int, default=20)
    parser.add_argument("--max-plies", type=int, default=200)
    parser.add_argument("--max-minutes", type=float, default=None)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--network", default=str(DEFAULT_MODEL),
                        help="policy-value network file (default: the shipped one)")
    args = parser.parse_args(argv)
    doc = read_json(OUT, "results") if OUT.exists() else {"matches": []}
    network = hashlib.sha256(Path(args.network).read_bytes()).hexdigest()[:16]
    start = time.perf_counter()
    for opponent in args.opponents.split(","):
        key = [args.player, opponent, args.games, args.max_plies, network]
        if any([m["player"], m["opponent"], m["games"], m["max_plies"], m.get("network")] == key
               for m in doc["matches"]):
            print(f"{args.player} vs {opponent}: already in {OUT.name}")
            continue
        if args.max_minutes and time.perf_counter() - start > 60 * args.max_minutes:
            print("time is up; run again to continue")
            break
        kind, _, sims = args.player.partition(":")
        if kind != "mcts" or not sims.isdigit():
            raise SystemExit(f"--player must be mcts:N (N simulations), not {args.player!r}")
        player = mcts_player(int(sims), seed=args.seed, model=args.network)
        move_times = []
        choose = player.choose_move

        def timed(board, choose=choose):
            t = time.perf_counter()
            move = choose(board)
            move_times.append(time.perf_counter() - t)
            return move

        player.choose_move = timed
        t0 = time.perf_counter()
        res = match(player, opponent, games=args.games, seed=args.seed,
                    max_plies=args.max_plies, progress=False)
        entry = {"player": args.player, "opponent": opponent, "network": network,
                 "games": args.games,
                 "max_plies": args.max_plies, "wins": res.wins, "draws": res.draws,
                 "losses": res.losses, "score": res.score, "summary": res.summary(),
                 "mean_move_seconds": sum(move_times) / max(len(move_times), 1),
                 "terminations": [g.headers.get("Termination") for g in res.games],
                 "seconds": round(time.perf_counter() - t0, 1)}
        doc["matches"].append(entry)
        write_json_atomic(OUT, doc, indent=1)
        print(res.summary(), f"(mean move time {entry['mean_move_seconds']:.2f} s)", flush=True)


if __name__ == "__main__":
    main()
