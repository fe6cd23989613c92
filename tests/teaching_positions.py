"""Positions the teaching modules' tests share: two middlegames and one case for each rule
a search must get right at a leaf."""

FENS = [
    "r1bq1rk1/pp2bppp/2n1pn2/3p4/2PP4/2N1PN2/PP3PPP/R2QKB1R w KQ - 0 8",
    "r1bqk2r/pppp1ppp/2n2n2/2b1p3/2B1P3/3P1N2/PPP2PPP/RNBQK2R w KQkq - 0 5",
    "6k1/5ppp/8/8/8/8/5PPP/R5K1 w - - 0 1",                # mate in one
    "4k3/8/8/3q4/8/8/3R4/4K3 w - - 0 1",                    # a hanging queen
    "7k/5Q2/6K1/8/8/8/8/8 b - - 0 1",                      # stalemate
    "4k3/8/8/8/8/8/8/4K2N b - - 0 1",                      # insufficient material
]
