"""``python -m chesslab match`` and ``bestmove``: players against each other, or one position."""
from __future__ import annotations

import chess

from chesslab.matches.match import match
from chesslab.cli.common import COUNT, defaults_from, endings
from chesslab.cli.results import tc_args
from chesslab.board.encoding import as_board
from chesslab.matches.players import make_player


def _match(args):
    result = match(args.white, args.black, games=args.games, seed=args.seed,
                   max_plies=args.max_plies, progress=not args.quiet, pgn_path=args.pgn,
                   time_control=args.tc)
    print(result.summary() + (f"  on a {args.tc} clock" if args.tc else ""))
    print(endings(game.headers["Termination"] for game in result.games))


def _bestmove(args):
    board = as_board(args.fen)
    with make_player(args.player) as player:
        move = player.choose_move(board)
        result = player.last_result
    print(f"bestmove {move.uci()}" if result is None else result.describe(board))


def add_match(sub):
    p = sub.add_parser("match", help="play a match between two players")
    p.add_argument("--white", required=True, help="player spec, e.g. pst:3")
    p.add_argument("--black", required=True, help="player spec, e.g. random")
    p.add_argument("--games", type=COUNT, help="games, colours alternating")
    p.add_argument("--seed", type=int, help="of the players' tie-breaks")
    p.add_argument("--max-plies", type=COUNT, help="adjudicate a draw after this many half-moves")
    tc_args(p)
    p.add_argument("--pgn", help="write the games to this PGN file")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    defaults_from(p, match, tc="time_control")
    p.set_defaults(func=_match)

    p = sub.add_parser("bestmove", help="search one position and print the answer")
    p.add_argument("--fen", default=chess.STARTING_FEN)
    p.add_argument("--player", default="pst@1s", help="search player spec, e.g. pst@1s")
    p.set_defaults(func=_bestmove)
