"""How long the class tournament takes, and what isolating each player costs.

    python bench/tournament_speed.py                      # 30 students, the full measure
    python bench/tournament_speed.py --students 6         # a smaller class, extrapolated

A class of generated submissions (each wraps one of the course's players, some search to
a fixed depth, some for a time under the move time; every tenth is faulty: one raises
mid-game, one answers 3x too slowly, one does not import) plays a gauntlet against the
ladder (``event.LADDER``) at ``--move-time`` seconds a move. The same event is timed with
1 and 2 local workers and on a 2-worker Dask LocalCluster (when Dask is installed), then
the games of a few good submissions are played both isolated and in this process
(``tournament.load_player``, how the capstone ran before) with one worker: their ratio is
the cost of isolation. Prints games per minute and the time a class of 30 would take at
that rate (the cost is linear in the class size).
"""
from __future__ import annotations

import argparse
import shutil
import tempfile
import time
from pathlib import Path

from chesslab.base.files import write_json_atomic
from chesslab.board.game import play_game
from chesslab.board.rules import adjudicate_material
from chesslab.matches import event, formats
from chesslab.matches.tournament import load_player

#: What the generated students play, in turn (fixed depths and times under 0.1 s).
KINDS = ("random", "material:1", "pst@0.05s", "pst:1", "nnue@0.05s", "material:2",
         "pst:2", "nnue:1", "nnue@0.05s")
SUBMISSION = '''from chesslab.matches.players import make_player
NAME = "{name}"
_PLAYER = make_player("{spec}", seed={seed})


def choose_move(board):
{body}    return _PLAYER.choose_move(board)
'''
FAULTS = {
    "raises": "    if board.fullmove_number == 12:\n        raise RuntimeError('bug')\n",
    "slow": ("    import os, time\n    if board.fullmove_number == 8:\n"
             "        time.sleep(3 * float(os.environ['CHESSLAB_MOVE_TIME']))\n"),
    "broken": None,
}


def write_class(folder: Path, students: int) -> list[str]:
    """Write ``students`` submissions; returns the files of the good ones."""
    good = []
    faults = list(FAULTS)
    for k in range(students):
        spec = KINDS[k % len(KINDS)]
        fault = faults[(k // 10) % len(faults)] if k % 10 == 9 else None
        name = f"student{k + 1:02d}"
        if fault == "broken":
            text = "import numpy_but_misspelled\n"
        else:
            text = SUBMISSION.format(name=name, spec=spec, seed=k,
                                     body=FAULTS[fault] if fault else "")
        (folder / f"{name}.py").write_text(text, encoding="utf-8")
        if fault is None:
            good.append(f"{name}.py")
    return good


def _count(items) -> dict:
    counts = {}
    for item in items:
        counts[item] = counts.get(item, 0) + 1
    return dict(sorted(counts.items()))


def timed(function):
    start = time.perf_counter()
    result = function()
    seconds = time.perf_counter() - start
    return result, seconds


def in_process(folder, files, ladder, games, max_plies):
    """The same gauntlet games, each submission imported here (no isolation)."""
    from chesslab.matches.players import make_player
    players = {f: load_player(folder / f) for f in files}
    for f, player in players.items():
        player.name = Path(f).stem
    played = 0
    for f in files:
        for pairing in formats.gauntlet_pairings([players[f].name], ladder):
            for g in formats.games_of(pairing, games):
                sides = []
                for side, offset in (("white", 0), ("black", 1)):
                    name = g[side]
                    sides.append(players[f] if name == players[f].name else
                                 make_player(name, seed=g["seed"] + offset))
                play_game(*sides, opening=g["opening"], max_plies=max_plies,
                          adjudicate=adjudicate_material)
                played += 1
    return played


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--students", type=int, default=30)
    parser.add_argument("--games", type=int, default=4, help="per student and ladder player")
    parser.add_argument("--move-time", type=float, default=0.1)
    parser.add_argument("--max-plies", type=int, default=120)
    parser.add_argument("--overhead-students", type=int, default=3,
                        help="good submissions timed both isolated and in-process")
    parser.add_argument("--no-dask", action="store_true")
    parser.add_argument("--out", default=None, help="also write the numbers as JSON")
    args = parser.parse_args()
    ladder = list(event.LADDER)
    rows = {}
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp) / "class"
        folder.mkdir()
        good = write_class(folder, args.students)
        settings = dict(format="gauntlet", games=args.games, move_time=args.move_time,
                        max_plies=args.max_plies, progress=False, ladder=ladder)
        runs = [("1 local worker", 1), ("2 local workers", 2)]
        if not args.no_dask:
            try:
                import distributed
                runs.append(("2-worker Dask LocalCluster", "dask"))
            except ImportError:
                print("Dask not installed: no cluster run")
        standings = []
        for label, workers in runs:
            if workers == "dask":
                with distributed.LocalCluster(n_workers=2, threads_per_worker=1,
                                              processes=True, dashboard_address=None,
                                              host="127.0.0.1") as cluster, \
                        distributed.Client(cluster) as client:
                    record, seconds = timed(lambda: event.run_tournament(
                        folder, workers=client.get_executor(), **settings))
            else:
                record, seconds = timed(lambda: event.run_tournament(
                    folder, workers=workers, **settings))
            n = len(record["games"])
            rows[label] = {"seconds": round(seconds, 1), "games": n,
                           "games_per_minute": round(60 * n / seconds, 1),
                           "faults": len(record["faults"]),
                           "faults_by_kind": _count(f"{f['player']}: {f['what']}"
                                                    for f in record["faults"]),
                           "withdrawn": len(record["withdrawn"])}
            standings.append([(r["player"], r["points"]) for r in record["standings"]])
            print(f"{label:28s} faults: {rows[label]['faults_by_kind']}")
            print(f"{label:28s} {n} games in {seconds:7.1f} s = "
                  f"{60 * n / seconds:6.1f} games/min; 30 students x {len(ladder)} x "
                  f"{args.games} games would take {30 * len(ladder) * args.games / n * seconds / 60:5.1f} min",
                  flush=True)
        sample = good[:args.overhead_students]
        sub = Path(tmp) / "sample"
        sub.mkdir()
        for f in sample:
            shutil.copyfile(folder / f, sub / f)
        record, isolated = timed(lambda: event.run_tournament(
            sub, workers=1, **settings))
        played, inproc = timed(lambda: in_process(
            sub, sample, ladder, args.games, args.max_plies))
        rows["isolation"] = {"students": len(sample), "games": played,
                             "isolated_seconds": round(isolated, 1),
                             "in_process_seconds": round(inproc, 1),
                             "ratio": round(isolated / inproc, 2)}
        print(f"isolation: {played} games of {len(sample)} good students, isolated "
              f"{isolated:.1f} s vs in-process {inproc:.1f} s: ratio {isolated / inproc:.2f}")
        print("same standings on every run:", all(s == standings[0] for s in standings))
    rows["settings"] = {"students": args.students, "games": args.games,
                        "move_time": args.move_time, "max_plies": args.max_plies,
                        "ladder": ladder}
    if args.out:
        write_json_atomic(args.out, rows, indent=1)


if __name__ == "__main__":
    main()
