#!/usr/bin/env python3
"""Writes tests/golden/notations.txt and notations.pgn from tests/golden/movetext.txt: the first
games, each in one of the notations of src/text/notation.rs (the last ones mixed), python-chess
computing the origin squares. Run from the repository root: `python3 scripts/golden_notations.py`
(needs `pip install chess`). The golden inputs are fixed once made; see scripts/golden.sh."""

import chess
lines = open('tests/golden/movetext.txt', encoding='latin-1').read().split('\n')
games = [l for l in lines if l and l.split(' ')[-1] in ('1-0','0-1','1/2-1/2','*')][:15]
FIG = dict(zip('KQRBN', '♔♕♖♗♘'))
BFIG = dict(zip('KQRBN', '♚♛♜♝♞'))
def long(b, m, hyphen):
    if b.is_castling(m): return b.san(m)
    p = b.piece_at(m.from_square)
    piece = '' if p.piece_type == chess.PAWN else p.symbol().upper()
    sep = 'x' if b.is_capture(m) else ('-' if hyphen else '')
    promo = '=' + chess.piece_symbol(m.promotion).upper() if m.promotion else ''
    return piece + chess.square_name(m.from_square) + sep + chess.square_name(m.to_square) + promo
def rewrite(kind, b, m, san, i):
    if kind == 'zeros': return [san.replace('O', '0')]
    if kind == 'bare': return [san.replace('=', '')]
    if kind == 'long': return [long(b, m, True)]
    if kind == 'compact': return [long(b, m, False)]
    if kind == 'lower': return [san if san.startswith('O') else san.lower()]
    if kind == 'fig': return [''.join(FIG.get(c, c) for c in san)]
    if kind == 'cfig': return [''.join((FIG if b.turn else BFIG).get(c, c) for c in san)]
    if kind == 'glyph': return [san + ['!', '?', '!!', '??', '!?', '?!'][i % 6] if i % 5 == 2 else san]
    if kind == 'null': return ['--', '--', san] if i == 6 and not b.is_check() else [san]
    if kind == 'z0': return ['Z0', 'Z0', san] if i == 5 and not b.is_check() else [san]
    if kind == 'mate':
        b2 = b.copy(); b2.push(m)
        return [san + '++'] if b2.is_checkmate() else [san]
    if kind == 'ep': return [san, 'e.p.'] if b.is_en_passant(m) else [san]
    if kind == 'uci': return [m.uci()]
    if kind == 'mixed':
        return rewrite(['long', 'fig', 'zeros', 'lower'][i % 4], b, m, san, i)
    return [san]
kinds = ['zeros', 'bare', 'long', 'compact', 'lower', 'fig', 'cfig', 'glyph', 'null', 'z0', 'mate', 'ep', 'mixed', 'mixed', 'uci']
out = []
pgn = []
for n, (g, kind) in enumerate(zip(games, kinds)):
    toks = g.split(' ')
    b = chess.Board(); words = []
    for i, san in enumerate(toks[:-1]):
        m = b.parse_san(san)
        words += rewrite(kind, b, m, san, i)
        b.push(m)
    out.append(' '.join(words + [toks[-1]]))
    if kind in ('long', 'fig', 'null', 'zeros', 'mixed', 'uci', 'ep'):
        moves = []; num = 1; k = 0
        for w in words:
            if w == 'e.p.': moves[-1] += ' e.p.'; continue
            if k % 2 == 0: moves.append(f'{num}.'); num += 1
            moves.append(w); k += 1
        pgn.append(f'[Event "Notation {kind} {n}"]\n[Result "{toks[-1]}"]\n\n' + ' '.join(moves + [toks[-1]]) + '\n')
open('tests/golden/notations.txt', 'w').write('\n'.join(out) + '\n')
open('tests/golden/notations.pgn', 'w').write('\n'.join(pgn))
