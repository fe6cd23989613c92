"""Long matches, in parallel and resumable: held-out openings (at a time per move or on a
clock), the Naive Bayes engine's and MCTS's matches, two networks head to head
(``results match``, ``bayes-matches``, ``mcts-matches``, ``mcts-head-to-head``)."""
from __future__ import annotations

import time
from pathlib import Path

import chess

from chesslab.base.files import file_name, file_tag, read_json, updating_json
from chesslab.base.parallel import parallel_map, resumable_map
from chesslab.board.game import play_game
from chesslab.board.rules import points
from chesslab.datasets.records import DEFAULT_GAMES, read_games
from chesslab.evaluators.policy_value import load_policy_value
from chesslab.experiments.store import (checkpoint_path, engine_stamp, record_match,
                                        result_path, run_checkpointed, stamp)
from chesslab.matches.clock import clock_text, seat_on_clock
from chesslab.matches.match import OPENINGS, MatchResult, match, read_record
from chesslab.matches.players import make_player, model_file, model_tag
from chesslab.search.mcts import DEFAULT_MODEL
from chesslab.training.pipeline import load, split
from chesslab.training.bootstrap import shipped_game_split


def held_out_openings(count: int, plies: int = 8, seed: int = 0,
                      balanced_cp: int = 80) -> list[str]:
    """The first ``plies`` moves (UCI) of games whose positions no network trained on
    (the test part of ``Dataset.split(seed=seed)``), kept only where Stockfish's label
    of the position after them is within ``balanced_cp`` of equal: the shipped games
    open with 3-6 random plies, which can leave one side clearly better."""
    test = split(load(), seed=seed)[2]
    at_ply = {int(g): int(cp) for g, ply, cp in zip(test.game_id, test.ply, test.cp)
              if g >= 0 and ply == plies}
    lines = []
    for game in read_games(DEFAULT_GAMES):
        cp = at_ply.get(int(game.headers.get("GameId", -1)))
        if cp is None or abs(cp) > balanced_cp:
            continue
        moves = list(game.mainline_moves())
        line = " ".join(m.uci() for m in moves[:plies])
        if len(moves) > plies + 20 and line not in lines:
            lines.append(line)
        if len(lines) == count:
            break
    if len(lines) < count:
        raise ValueError(f"only {len(lines)} balanced held-out openings of {plies} plies; "
                         f"ask for fewer games")
    return lines


def _pair_job(a, b, opening, seed, max_plies, resign_cp=None, a_model=None, b_model=None,
              time_control=None):
    job = {"a": a, "a_model": a_model, "b": b, "b_model": b_model, "opening": opening,
           "seed": seed, "max_plies": max_plies, "resign_cp": resign_cp}
    if time_control is not None:        # only then: a fixed-time job keeps its old key
        job["time_control"] = time_control
    return job


def _play_pair(job) -> list:
    """Both games of one opening (a as White, then b as White): [(pgn text, a's points)];
    on the job's clock if it has one."""
    out = []
    with make_player(job["a"], seed=job["seed"], model=job["a_model"]) as a, \
            make_player(job["b"], seed=job["seed"] + 1, model=job["b_model"]) as b:
        (a, b), clock = seat_on_clock((a, b), job.get("time_control"))
        for white, black in ((a, b), (b, a)):
            game = play_game(white, black, opening=job["opening"], max_plies=job["max_plies"],
                             resign_cp=job["resign_cp"], clock=clock)
            out.append((str(game), points(game.headers["Result"],
                                          chess.WHITE if white is a else chess.BLACK)))
    return out


def _termination(pgn_text: str) -> str:
    return pgn_text.split('[Termination "', 1)[1].split('"', 1)[0]


def _tally(spec_a, spec_b, pairs) -> MatchResult:
    """Player a's wins, draws and losses over pairs of games."""
    result = MatchResult(spec_a, spec_b)
    for pair in pairs:
        for _, got in pair:
            result.add(got)
    return result


def run_match(spec_a: str, spec_b: str, games: int = 100, workers: int = 2, seed: int = 0,
              max_plies: int = 300, resign_cp: float | None = 1000, progress=True,
              checkpoint=None, time_control: str | None = None, a_model=None,
              b_model=None) -> dict:
    """``games`` games a vs b from held-out openings, each opening with both colours,
    ``workers`` games at a time (same results for any number of workers at a fixed
    depth; on a clock or a time per move the moves depend on the machine's speed).

    ``time_control`` (``"60+0.6"``): each side on its own clock (``matches.clock``)
    instead of the specs' own time per move. With a ``checkpoint`` file
    (``resumable_map``) a match stopped after an hour loses at most one pair of games
    per worker. ``a_model``, ``b_model``: another model file for a player that reads one
    (a candidate network, played before it is shipped). The record's ``seconds`` is this
    run's wall time; ``games_resumed`` counts the games read back from the checkpoint."""
    if games < 2 or games % 2:
        raise ValueError(f"games must be an even number >= 2 (each opening is played with "
                         f"both colours), got {games}")
    time_control = clock_text(time_control, (spec_a, spec_b))
    for spec, model in ((spec_a, a_model), (spec_b, b_model)):
        model_file(spec, model)             # refused here, not in a worker mid-match
    openings = held_out_openings(games // 2)
    jobs = [_pair_job(spec_a, spec_b, line, seed + 2 * i, max_plies, resign_cp,
                      a_model and str(a_model), b_model and str(b_model), time_control)
            for i, line in enumerate(openings)]
    start = time.perf_counter()
    played_now = []
    pairs = resumable_map(_play_pair, jobs, checkpoint, workers, progress,
                          on_result=lambda index, _: played_now.append(index))
    seconds = time.perf_counter() - start
    result = _tally(spec_a, spec_b, pairs)
    endings = {}
    for pair in pairs:
        for text, _ in pair:
            ending = _termination(text)
            endings[ending] = endings.get(ending, 0) + 1
    return {**result.record(), "a_model": model_tag(spec_a, a_model),
            "b_model": model_tag(spec_b, b_model),
            "endings": endings,
            "openings": f"first 8 plies of {len(openings)} test-split games (Stockfish "
                        f"within 80 cp of equal after them), each with both colours",
            "max_plies": max_plies, "resign_cp": resign_cp, "seed": seed,
            "time_control": time_control, "workers": workers, "seconds": round(seconds, 1),
            # a resumed match's earlier runs are not in "seconds": their games are counted here
            "games_resumed": 2 * (len(jobs) - len(played_now)),
            "pgn": [text for pair in pairs for text, _ in pair],
            **engine_stamp((spec_a, spec_b)), **stamp()}


def record_long_match(spec_a: str, spec_b: str, games: int = 100, workers: int = 2,
                      seed: int = 0, max_plies: int = 300, resign_cp: float | None = 1000,
                      path=None, time_control: str | None = None,
                      command: str | None = None, a_model=None, b_model=None) -> dict:
    """``run_match`` with its checkpoint named by ``match_name`` (a stopped match resumes),
    recorded in ``path`` (default matches.json) once it is done, with the ``command`` that
    ran it when given (a reader can rerun it); returns the entry."""
    time_control = clock_text(time_control, (spec_a, spec_b))
    checkpoint = checkpoint_path(match_name(spec_a, spec_b, games, seed, time_control,
                                            a_model, b_model))
    entry = run_match(spec_a, spec_b, games, workers, seed, max_plies, resign_cp,
                      checkpoint=checkpoint, time_control=time_control, a_model=a_model,
                      b_model=b_model)
    if command is not None:
        entry["command"] = command
    record_match(entry, path)
    checkpoint.unlink(missing_ok=True)
    return entry


def match_name(spec_a: str, spec_b: str, games: int, seed: int,
               time_control: str | None = None, a_model=None, b_model=None) -> str:
    """The checkpoint name of a match (players, models, games, seed and clock, so a
    retrained model never resumes an old match)."""
    tags = "_".join(t or "hand" for t in (model_tag(spec_a, a_model),
                                          model_tag(spec_b, b_model)))
    clock = f"_tc{time_control}" if time_control else ""
    return file_name(f"{spec_a}_vs_{spec_b}_{games}g_seed{seed}{clock}_{tags}")


def _play_chunk(job) -> dict:
    """``size`` games of player vs opponent from two of ``matches.match.OPENINGS``
    (chunk ``index`` uses openings 2 index and 2 index + 1, seed ``index``)."""
    player, opponent, index, size, max_plies = job
    openings = tuple(OPENINGS[(2 * index + k) % len(OPENINGS)] for k in range(2))
    start = time.perf_counter()
    result = match(player, opponent, games=size, openings=openings, seed=index,
                   max_plies=max_plies, progress=False)
    games = [{"white": g.headers["White"], "black": g.headers["Black"],
              "result": g.headers["Result"], "termination": g.headers["Termination"],
              "plies": int(g.headers["PlyCount"]), "opening": g.headers.get("Opening", "")}
             for g in result.games]
    return {"wins": result.wins, "draws": result.draws, "losses": result.losses,
            "seconds": round(time.perf_counter() - start, 1), "games": games}


def _chunks_summary(player: str, opponent: str, chunks: dict) -> dict:
    """The match record of the finished chunks together."""
    total = MatchResult(player, opponent)
    for chunk in chunks.values():
        total.wins += chunk["wins"]
        total.draws += chunk["draws"]
        total.losses += chunk["losses"]
    return total.record()


def bayes_matches_name(player: str, opponents, games: int, chunk: int, max_plies: int) -> str:
    """The checkpoint name of ``bayes_matches``: its settings and the digest of every model
    a player reads (as ``match_name``), so chunks played before ``train bayes`` are never
    resumed into a run with the new model."""
    tags = "_".join(t for t in map(model_tag, (player, *opponents)) if t) or "hand"
    return file_name(f"bayes_matches_{player}_{games}g_{chunk}_{max_plies}_{tags}")


def bayes_matches(player: str = "bayes:3", opponents=("random", "material:3", "pst:3"),
                  games: int = 40, chunk: int = 4, max_plies: int = 400, workers: int = 1,
                  progress=True) -> dict:
    """``games`` games of ``player`` against each opponent in chunks of ``chunk``
    (colours alternate), round-robin over the opponents, resumable chunk by chunk;
    what data/results/bayes_matches.json holds."""
    if chunk < 2 or chunk % 2 or games % chunk:
        raise ValueError(f"chunks hold an even number of games (both colours of each "
                         f"opening) and games must be a multiple of it; got --chunk {chunk}, "
                         f"--games {games}")
    jobs = [[player, opponent, index, chunk, max_plies]
            for index in range(games // chunk) for opponent in opponents]
    name = bayes_matches_name(player, opponents, games, chunk, max_plies)
    results = run_checkpointed(name, _play_chunk, jobs, workers, progress)
    matches = {}
    for (_, opponent, index, _, _), chunk_result in zip(jobs, results):
        matches.setdefault(opponent, {"chunks": {}})["chunks"][str(index)] = chunk_result
    for opponent, entry in matches.items():
        entry["summary"] = _chunks_summary(player, opponent, entry["chunks"])
    return {"player": player, "chunk": chunk, "max_plies": max_plies, "matches": matches}


def _play_mcts_match(job) -> dict:
    """One pairing of mcts-matches: ``matches.match.match`` with the player's move times."""
    spec, opponent, games, max_plies, seed, network, tag = job
    player = make_player(spec, seed=seed, model=network)
    move_times = []
    choose = player.choose_move

    def timed(board):
        start = time.perf_counter()
        move = choose(board)
        move_times.append(time.perf_counter() - start)
        return move

    player.choose_move = timed
    start = time.perf_counter()
    res = match(player, opponent, games=games, seed=seed, max_plies=max_plies, progress=False)
    return {**res.record(), "a": spec, "b": opponent, "network": tag, "max_plies": max_plies,
            "mean_move_seconds": sum(move_times) / max(len(move_times), 1),
            "terminations": [g.headers.get("Termination") for g in res.games],
            "seconds": round(time.perf_counter() - start, 1)}


#: What makes two entries of mcts_matches.json the same pairing.
MCTS_MATCH_KEY = ("a", "b", "games", "max_plies", "network")


def mcts_matches(player: str = "mcts:300", opponents=("random", "material:2", "pst:3"),
                 games: int = 20, max_plies: int = 200, seed: int = 0, network=None,
                 workers: int = 1, path=None, progress=True, describe: str | None = None) -> list:
    """``games`` games of the MCTS player (with ``network``, default the shipped one)
    against each opponent (``matches.match.match``: colours alternate, each opening
    from both sides). Each pairing is recorded in ``path`` (default mcts_matches.json) under the
    SHA-256 of the network as soon as it is played; a pairing already there is skipped,
    so a stopped run resumes and a retrained network starts a fresh table. ``describe``
    notes what the network is (how it was trained) under "networks"."""
    if not player.startswith("mcts"):
        raise ValueError(f"the player must be an MCTS spec such as mcts:300, not {player!r}")
    path = Path(path or result_path("mcts_matches"))
    tag = file_tag(network or DEFAULT_MODEL, 16)
    if describe:                 # what the network is, kept beside its results
        with updating_json(path, "results file", lambda: {"matches": []}, indent=1) as doc:
            doc.setdefault("networks", {})[tag] = describe
    played = read_json(path, "results file")["matches"] if path.exists() else []
    done = {tuple(read_record(m).get(k) for k in MCTS_MATCH_KEY) for m in played}
    jobs = [(player, opponent, games, max_plies, seed, network and str(network), tag)
            for opponent in opponents
            if (player, opponent, games, max_plies, tag) not in done]
    if progress and len(jobs) < len(opponents):
        print(f"{len(opponents) - len(jobs)} pairing(s) already in {path.name}")

    def save(_index, entry):
        record_match(entry, path, MCTS_MATCH_KEY)
        if progress:
            print(entry["summary"], f"(mean move time {entry['mean_move_seconds']:.2f} s)",
                  flush=True)
    return parallel_map(_play_mcts_match, jobs, workers, on_result=save)


def record_openings(count: int, plies: int = 8) -> list[str]:
    """The first ``plies`` moves of the held-out game records (the last tenth of the
    shipped games, which the bootstrap never trained on)."""
    lines = []
    for game in shipped_game_split()[1]:
        if len(lines) >= count:
            break
        moves = list(game.mainline_moves())
        if len(moves) > plies + 20:
            lines.append(" ".join(m.uci() for m in moves[:plies]))
    return lines


def self_play_iterations(path) -> dict:
    """``{"after_iterations": N}`` when the network was trained by N self-play iterations
    (``train_selfplay`` notes them in the file; the shipped network under "selfplay"),
    else {}: notebook 12 plots the matches of such networks against the bootstrap."""
    notes = load_policy_value(path).training_notes
    n = notes.get("iterations", notes.get("selfplay", {}).get("iterations"))
    return {} if n is None else {"after_iterations": int(n)}


def mcts_head_to_head(a, b, simulations: int = 300, games: int = 64, max_plies: int = 200,
                      workers: int = 2, seed: int = 0, progress=True,
                      time_per_move: float | None = None) -> dict:
    """Two policy-value networks head to head, both with MCTS at ``simulations`` (or,
    with ``time_per_move``, as many as fit in that many seconds: a bigger network is
    slower, so only a timed match says whether it plays better on this machine): the
    standard openings of a match (``matches.match.OPENINGS``) and, once those are used
    up, held-out game records (``record_openings``), each start once with each
    colour. Both search greedily (no noise, most visited move), so games differ only by
    their start; resumable pair by pair. The entry for
    data/results/mcts_head_to_head.json."""
    if games < 2 or games % 2:
        raise ValueError(f"games must be an even number >= 2, got {games}")
    starts = games // 2
    openings = list(OPENINGS[:starts]) + record_openings(max(0, starts - len(OPENINGS)))
    if time_per_move is None:
        spec, budget = f"mcts:{simulations}", simulations
    elif time_per_move > 0:
        spec, budget, simulations = f"mcts@{time_per_move:g}s", f"{time_per_move:g}s", None
    else:
        raise ValueError(f"time_per_move must be a positive number of seconds, "
                         f"not {time_per_move}")
    jobs = [_pair_job(spec, spec, line, seed + 2 * i, max_plies, None, str(a), str(b))
            for i, line in enumerate(openings)]
    tags = {p: file_tag(p, 16) for p in (a, b)}
    start = time.perf_counter()
    pairs = run_checkpointed(f"head_to_head_{tags[a]}_{tags[b]}_{budget}_{games}g_"
                             f"{max_plies}_seed{seed}", _play_pair, jobs, workers, progress)
    res = _tally(f"{Path(a).name} {spec}", f"{Path(b).name} {spec}", pairs)
    return {**self_play_iterations(a), **res.record(), "a": Path(a).name, "b": Path(b).name,
            "a_network": tags[a], "b_network": tags[b], "simulations": simulations,
            "time_per_move": time_per_move, "max_plies": max_plies, "seed": seed,
            "terminations": [_termination(text) for pair in pairs for text, _ in pair],
            "seconds": round(time.perf_counter() - start, 1)}


#: What makes two entries of mcts_head_to_head.json the same match.
HEAD_TO_HEAD_KEY = ("a_network", "b_network", "simulations", "time_per_move", "games",
                    "max_plies", "seed")
