"""No search at all: mate if it can, else the capture of the most valuable piece (whatever
takes it), else the move that goes nearest the centre."""
import chess

NAME = "greedy"
VALUE = {chess.PAWN: 1, chess.KNIGHT: 3, chess.BISHOP: 3, chess.ROOK: 5, chess.QUEEN: 9}


def taken(board: chess.Board, move: chess.Move) -> int:
    """The value of the piece ``move`` captures; 0 for a move that captures nothing."""
    if board.is_en_passant(move):           # the captured pawn is not on the target square
        return VALUE[chess.PAWN]
    victim = board.piece_at(move.to_square)
    return VALUE[victim.piece_type] if victim else 0


def centrality(move: chess.Move) -> float:
    file, rank = chess.square_file(move.to_square), chess.square_rank(move.to_square)
    return -abs(file - 3.5) - abs(rank - 3.5)


def choose_move(board: chess.Board) -> chess.Move:
    moves = sorted(board.legal_moves, key=lambda m: m.uci())
    for move in moves:
        board.push(move)
        mate = board.is_checkmate()
        board.pop()
        if mate:
            return move
    return max(moves, key=lambda m: (taken(board, m), centrality(m)))
