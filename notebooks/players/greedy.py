"""No search at all: mate if it can, else the capture that wins the most material,
else the move that goes nearest the centre."""
import chess

NAME = "greedy"
VALUE = {chess.PAWN: 1, chess.KNIGHT: 3, chess.BISHOP: 3, chess.ROOK: 5, chess.QUEEN: 9,
         chess.KING: 0}


def gain(board: chess.Board, move: chess.Move) -> float:
    victim = board.piece_at(move.to_square)
    if victim is None:                      # en passant, or not a capture
        return 1.0 if board.is_en_passant(move) else 0.0
    return VALUE[victim.piece_type] - 0.1 * VALUE[board.piece_at(move.from_square).piece_type]


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
    return max(moves, key=lambda m: (gain(board, m), centrality(m)))
